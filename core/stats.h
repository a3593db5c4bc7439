// A snapshot of one context's memory and pipeline counters (the C ABI's
// stats struct, field for field).
#pragma once

#include <cstdint>

namespace ferry::core {

struct Stats {
  std::uint64_t pinned_in_use_bytes = 0, pinned_cached_bytes = 0, pinned_peak_bytes = 0;
  std::uint64_t pinned_hits = 0, pinned_misses = 0;
  std::uint64_t registered_bytes = 0, registered_peak_bytes = 0;
  std::uint64_t registry_hits = 0, registry_misses = 0;
  std::uint64_t device_in_use_bytes = 0, device_cached_bytes = 0, device_peak_bytes = 0;
  std::uint64_t device_hits = 0, device_misses = 0;
  std::uint64_t cuda_malloc_calls = 0, cuda_malloc_ns = 0;
  std::uint64_t cuda_host_alloc_calls = 0, cuda_host_alloc_ns = 0;
  std::uint64_t cuda_host_register_calls = 0, cuda_host_register_ns = 0;
  std::uint64_t batches_submitted = 0, batches_completed = 0, batches_failed = 0;
  std::uint64_t input_bytes = 0, output_bytes = 0;
  std::uint64_t staging_ns = 0, h2d_ns = 0, convert_ns = 0, busy_ns = 0;
  double input_gbps = 0.0;
  std::uint64_t batches_unreleased = 0;
  int numa_node = -1, numa_cpus = 0;
  std::uint64_t resident_bytes = 0, resident_datasets = 0;
  std::uint64_t timed_chunks = 0;
};

}  // namespace ferry::core
