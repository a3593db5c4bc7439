#include "core/dataset/epoch_order.h"

#include <algorithm>
#include <utility>

#include "core/convert/philox.h"

namespace ferry::core {
namespace {

// The seed is mixed with a constant (the epoch is the stream's step), so a
// shuffle and an augmentation given the same seed draw unrelated numbers.
constexpr std::uint64_t kShuffleSalt = 0x5348554646'4C4500ull;  // "SHUFFLE"

}  // namespace

std::vector<std::int64_t> epoch_permutation(std::int64_t n, std::uint64_t seed, std::uint64_t epoch) {
  std::vector<std::pair<std::uint64_t, std::int64_t>> keyed(static_cast<std::size_t>(n));
  philox::Stream stream;
  stream.seed = seed ^ kShuffleSalt;
  stream.step = epoch;
  for (std::int64_t i = 0; i < n; ++i) {
    stream.index = static_cast<std::uint64_t>(i);
    const philox::Block b = stream.block(0);
    keyed[static_cast<std::size_t>(i)] = {(std::uint64_t{b.v[0]} << 32) | b.v[1], i};
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = keyed[i].second;
  return order;
}

std::int64_t epoch_places(std::int64_t n, int world_size) { return (n + world_size - 1) / world_size; }

std::vector<std::int64_t> epoch_share(std::int64_t n, int rank, int world_size, bool shuffle, std::uint64_t seed,
                                      std::uint64_t epoch) {
  std::vector<std::int64_t> order;
  if (shuffle) order = epoch_permutation(n, seed, epoch);
  const std::int64_t places = epoch_places(n, world_size);
  std::vector<std::int64_t> share(static_cast<std::size_t>(places));
  for (std::int64_t k = 0; k < places; ++k) {
    const std::int64_t place = (rank + k * world_size) % n;  // past n: the padding wraps to the start
    share[static_cast<std::size_t>(k)] = shuffle ? order[static_cast<std::size_t>(place)] : place;
  }
  return share;
}

}  // namespace ferry::core
