// What a context is built with, and its validation. The defaults here are the
// ones the C ABI documents (ferry_context_options_init reads them from here).
#pragma once

#include <cstdint>

#include "core/device/device_kind.h"

namespace ferry::core {

// How pinned host memory is made (the values of the C ABI's pinned method).
enum class PinnedMethod : int { kRegister = 0, kHostAlloc = 1 };

// Which chunks are timed on the GPU (the values of the C ABI's ferry_device_timing).
enum class DeviceTiming : int { kAuto = 0, kOn = 1, kOff = 2 };

struct ContextOptions {
  DeviceKind device_kind = DeviceKind::Auto;
  int device_index = 0;
  int stream_count = 4;
  int high_priority_streams = 0;
  std::uint64_t pinned_cache_bytes = std::uint64_t{1} << 30;
  std::uint64_t pinned_prealloc_bytes = 0;
  int pinned_wait_at_cap = 1;
  std::uint64_t registry_cache_bytes = std::uint64_t{4} << 30;
  std::uint64_t device_cache_bytes = std::uint64_t{2} << 30;
  int staging_threads = 0;  // 0: from the machine's cores
  int cpu_threads = 0;      // 0: the machine's cores
  std::uint64_t chunk_bytes = 0;  // 0: auto
  int max_batches_in_flight = 4;
  std::uint64_t max_staging_bytes = std::uint64_t{256} << 20;
  int submit_nonblocking = 0;
  std::uint64_t max_unreleased_batches = 1024;
  PinnedMethod pinned_method = PinnedMethod::kRegister;
  DeviceTiming device_timing = DeviceTiming::kAuto;
};

// Throws ferry::Error naming the first bad field (as options->field) and its value.
void validate_context_options(const ContextOptions& options);

// The staging threads of a GPU context: `option` (ContextOptions::staging_threads) where set,
// else three quarters of the machine's cores, 2 to 16. Measured on H200 hosts of 16 cores: host
// copies reach 44.5 GB/s with 4 threads, 57.5 with 16; 256 pageable images of 300-500 px staged
// at 0.62-0.78 of the bus limit with 8 threads, 0.91 with 12, 0.82-0.88 with 16 (the caller's
// and the completion thread then share the cores).
int staging_thread_count(int option);

}  // namespace ferry::core
