// How a request becomes a block size and a new segment size: the size classes
// of ferry's caching allocators (device and pinned). Pure arithmetic.
//
// The design follows PyTorch's and CUB's experience, without power-of-two
// classes (which turn 20 GB of requests into 32 GB):
//   - every request is rounded up to `quantum` (512 B): waste < 512 B per block;
//   - small requests (<= small_limit, 1 MiB) are carved out of small segments
//     (2 MiB) and split at any quantum, so many small blocks share one
//     cudaMalloc;
//   - medium requests (<= medium_limit, 10 MiB) come from 20 MiB segments;
//   - larger requests get a segment of their own, rounded to large_quantum
//     (2 MiB): waste < 2 MiB, and the segment may later be split for smaller
//     requests when the remainder is at least large_split_min (1 MiB);
//   - huge requests (>= huge_threshold, 1 GiB) are rounded to large_quantum,
//     never split, and a cached huge block serves a later request only if it
//     wastes at most 1/8 of it: bounded waste, never a 2x blow-up.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::core {

struct SizePolicy {
  std::size_t quantum = 512;
  std::size_t small_limit = std::size_t{1} << 20;
  std::size_t small_segment = std::size_t{2} << 20;
  std::size_t medium_limit = std::size_t{10} << 20;
  std::size_t medium_segment = std::size_t{20} << 20;
  std::size_t large_quantum = std::size_t{2} << 20;
  std::size_t large_split_min = std::size_t{1} << 20;
  std::size_t huge_threshold = std::size_t{1} << 30;
  // Device memory keeps small and large blocks apart (a small block never
  // pins a large segment); the pinned pool, which is capped, shares one pool
  // so its preallocated segment serves every size.
  bool separate_small_pool = true;

  static SizePolicy device() { return SizePolicy{}; }
  static SizePolicy pinned() {
    SizePolicy p;
    p.separate_small_pool = false;
    p.huge_threshold = SIZE_MAX;  // a capped pool splits everything it holds
    return p;
  }

  // The block size for a request: throws Status::InvalidArgument for 0,
  // Status::Overflow where rounding overflows. `what` names the argument.
  std::size_t round_request(std::size_t bytes, const char* what) const;
  // The size of a new segment for a rounded request.
  std::size_t segment_size(std::size_t rounded) const;
  bool is_small(std::size_t rounded) const { return separate_small_pool && rounded <= small_limit; }
  bool is_huge(std::size_t size) const { return size >= huge_threshold; }
  // Whether a free block of `block_size` may serve `rounded` at all.
  bool can_serve(std::size_t block_size, std::size_t rounded) const;
  // Whether serving `rounded` from `block_size` splits off the remainder.
  bool should_split(std::size_t block_size, std::size_t rounded) const;
};

}  // namespace ferry::core
