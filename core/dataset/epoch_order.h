// The order of one epoch over a dataset spread across world_size ranks, by
// DistributedSampler's rule (torch.utils.data.distributed): one permutation
// of the n samples (or the identity), padded by wrapping to a multiple of
// world_size, of which rank takes places rank, rank + world_size, ...
// ferry's permutation is its own: sorted Philox4x32-10 keys of (seed, epoch),
// so every backend, rank and run draws the same one. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

namespace ferry::core {

// A uniformly random permutation of 0 .. n-1 drawn from (seed, epoch): the
// indices sorted by a 64-bit Philox key each (ties, vanishingly rare, by index).
std::vector<std::int64_t> epoch_permutation(std::int64_t n, std::uint64_t seed, std::uint64_t epoch);

// How many places each rank's epoch has: ceil(n / world_size).
std::int64_t epoch_places(std::int64_t n, int world_size);

// Rank's share of one epoch over n samples: epoch_places(n, world_size)
// indices into 0 .. n-1, shuffled by (seed, epoch) or in order.
std::vector<std::int64_t> epoch_share(std::int64_t n, int rank, int world_size, bool shuffle, std::uint64_t seed,
                                      std::uint64_t epoch);

}  // namespace ferry::core
