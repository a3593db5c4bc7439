// The released layouts of the C ABI's size-prefixed structs.
//
// A caller's struct_size is accepted only if it is the size of a layout that
// was released (an older header, or this one), or larger with every unknown
// byte zero (a newer header). A size that ends inside a field is refused: it
// would hand ferry a torn value (a callback pointer cut to its low bytes).
//
// When a struct grows: freeze its previous layout below as vN, add its size
// to the list, and extend tests/c_abi/struct_versions_test.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ferry/ferry.h"

namespace ferry::api {

namespace v1 {  // ferry 0.1

struct context_options {
  std::size_t struct_size;
  ferry_device_kind device_kind;
  int device_index, stream_count, high_priority_streams;
  std::uint64_t pinned_cache_bytes, pinned_prealloc_bytes;
  int pinned_wait_at_cap;
  std::uint64_t registry_cache_bytes, device_cache_bytes;
  int staging_threads, cpu_threads;
  std::uint64_t chunk_bytes;
  int max_batches_in_flight;
  std::uint64_t max_staging_bytes;
  int submit_nonblocking;
};

struct stats {
  std::size_t struct_size;
  std::uint64_t gauges_and_counters[29];  // pinned_in_use_bytes .. busy_ns
  double input_gbps;
};

}  // namespace v1

// Each frozen layout is a prefix of today's.
static_assert(offsetof(v1::context_options, submit_nonblocking) ==
              offsetof(ferry_context_options, submit_nonblocking));
static_assert(sizeof(v1::context_options) <= offsetof(ferry_context_options, max_unreleased_batches));
static_assert(offsetof(v1::stats, input_gbps) == offsetof(ferry_stats, input_gbps));
static_assert(sizeof(v1::stats) <= offsetof(ferry_stats, batches_unreleased));

// The struct_size of each released layout, oldest first; the last is sizeof(T).
template <typename T>
struct ReleasedSizes {
  static constexpr std::array<std::size_t, 1> values{sizeof(T)};
};
template <>
struct ReleasedSizes<ferry_context_options> {
  static constexpr std::array<std::size_t, 2> values{sizeof(v1::context_options), sizeof(ferry_context_options)};
};
template <>
struct ReleasedSizes<ferry_stats> {
  static constexpr std::array<std::size_t, 2> values{sizeof(v1::stats), sizeof(ferry_stats)};
};

template <typename T>
constexpr bool is_released_size(std::size_t size) {
  for (std::size_t known : ReleasedSizes<T>::values)
    if (size == known) return true;
  return false;
}

}  // namespace ferry::api
