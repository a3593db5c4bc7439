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

namespace v2 {  // ferry 0.2.0

struct context_options {
  v1::context_options base;
  std::uint64_t max_unreleased_batches;
  ferry_pinned_method pinned_method;
};

struct stats {
  std::size_t struct_size;
  std::uint64_t gauges_and_counters[29];  // pinned_in_use_bytes .. busy_ns
  double input_gbps;
  std::uint64_t batches_unreleased;
  int numa_node;
  int numa_cpus;
};

struct source {
  std::size_t struct_size;
  const void* data;
  std::size_t bytes;
  const void* const* samples;
  std::size_t sample_bytes;
  std::int64_t n, h, w, c;
  ferry_layout layout;
  std::int64_t stride_n, stride_c, stride_h, stride_w;
};

struct transform {
  std::size_t struct_size;
  ferry_dtype out_dtype;
  ferry_layout out_layout;
  int out_channels;
  int channel_map[4];
  int pad_channels_to_4;
  float pad_value;
  float scale;
  float mean[4];
  float std[4];
  const float* per_sample_mean;
  const float* per_sample_std;
  ferry_rect crop;
  const ferry_rect* per_sample_crop;
  int mirror;
  const std::uint8_t* per_sample_mirror;
  std::int64_t per_sample_count;
  int pad_outside;
  float fill_value;
};

}  // namespace v2

namespace v3 {  // ferry 0.3.0: samples of different sizes

struct source {
  v2::source base;
  const ferry_sample_desc* sample_descs;
};

struct transform {  // the resize fields appended
  v2::transform base;
  std::int64_t resize_w, resize_h;
  ferry_interpolation interpolation;
  ferry_resize_mode resize_mode;
  std::int64_t resize_shorter;
  ferry_letterbox_align letterbox_align;
  float letterbox_value[4];
  ferry_rectf window;
  const ferry_rectf* per_sample_window;
};

}  // namespace v3

// Each frozen layout is a prefix of today's.
static_assert(offsetof(v1::context_options, submit_nonblocking) ==
              offsetof(ferry_context_options, submit_nonblocking));
static_assert(sizeof(v1::context_options) <= offsetof(ferry_context_options, max_unreleased_batches));
static_assert(offsetof(v2::context_options, pinned_method) == offsetof(ferry_context_options, pinned_method));
static_assert(sizeof(v2::context_options) <= offsetof(ferry_context_options, device_timing));
static_assert(offsetof(v1::stats, input_gbps) == offsetof(ferry_stats, input_gbps));
static_assert(sizeof(v1::stats) <= offsetof(ferry_stats, batches_unreleased));
static_assert(offsetof(v2::stats, numa_cpus) == offsetof(ferry_stats, numa_cpus));
static_assert(sizeof(v2::stats) <= offsetof(ferry_stats, resident_bytes));
static_assert(offsetof(v2::source, stride_w) == offsetof(ferry_source, stride_w));
static_assert(sizeof(v2::source) <= offsetof(ferry_source, sample_descs));
static_assert(offsetof(v3::source, sample_descs) == offsetof(ferry_source, sample_descs));
static_assert(sizeof(v3::source) <= offsetof(ferry_source, format));
static_assert(offsetof(v2::transform, fill_value) == offsetof(ferry_transform, fill_value));
static_assert(sizeof(v2::transform) <= offsetof(ferry_transform, resize_w));
static_assert(offsetof(v3::transform, per_sample_window) == offsetof(ferry_transform, per_sample_window));
static_assert(sizeof(v3::transform) <= offsetof(ferry_transform, augment));

// The struct_size of each released layout, oldest first; the last is sizeof(T).
template <typename T>
struct ReleasedSizes {
  static constexpr std::array<std::size_t, 1> values{sizeof(T)};
};
template <>
struct ReleasedSizes<ferry_context_options> {
  static constexpr std::array<std::size_t, 3> values{sizeof(v1::context_options), sizeof(v2::context_options),
                                                     sizeof(ferry_context_options)};
};
template <>
struct ReleasedSizes<ferry_stats> {
  static constexpr std::array<std::size_t, 3> values{sizeof(v1::stats), sizeof(v2::stats), sizeof(ferry_stats)};
};

template <>
struct ReleasedSizes<ferry_source> {
  static constexpr std::array<std::size_t, 3> values{sizeof(v2::source), sizeof(v3::source), sizeof(ferry_source)};
};
template <>
struct ReleasedSizes<ferry_transform> {
  static constexpr std::array<std::size_t, 3> values{sizeof(v2::transform), sizeof(v3::transform),
                                                     sizeof(ferry_transform)};
};

template <typename T>
constexpr bool is_released_size(std::size_t size) {
  for (std::size_t known : ReleasedSizes<T>::values)
    if (size == known) return true;
  return false;
}

}  // namespace ferry::api
