#include "core/context_options.h"

#include <algorithm>
#include <cstdint>
#include <thread>

#include "core/enum_field.h"
#include "core/error.h"

namespace ferry::core {

int staging_thread_count(int option) {
  if (option > 0) return option;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp(cores * 3 / 4, 2u, 16u));
}

void validate_context_options(const ContextOptions& o) {
  checked_enum_field(o.device_kind, {DeviceKind::Auto, DeviceKind::Cpu, DeviceKind::Cuda}, "options->device_kind",
                     "FERRY_DEVICE_AUTO (0), FERRY_DEVICE_CPU (1) or FERRY_DEVICE_CUDA (2)");
  // A value outside its range (INVALID_ARGUMENT); past the device count it is NO_DEVICE, at create.
  checked_enum_field(o.pinned_method, {PinnedMethod::kRegister, PinnedMethod::kHostAlloc}, "options->pinned_method",
                     "FERRY_PINNED_REGISTER (0) or FERRY_PINNED_HOST_ALLOC (1)");
  checked_enum_field(o.device_timing, {DeviceTiming::kAuto, DeviceTiming::kOn, DeviceTiming::kOff},
                     "options->device_timing",
                     "FERRY_DEVICE_TIMING_AUTO (0), FERRY_DEVICE_TIMING_ON (1) or FERRY_DEVICE_TIMING_OFF (2)");
  FERRY_EXPECT(o.device_index >= 0, Status::InvalidArgument, "options->device_index is ", o.device_index,
               ": must not be negative");
  FERRY_EXPECT(o.stream_count >= 1 && o.stream_count <= 64, Status::InvalidArgument,
               "options->stream_count is ", o.stream_count, ": expected 1..64");
  FERRY_EXPECT(o.staging_threads >= 0 && o.staging_threads <= 256, Status::InvalidArgument,
               "options->staging_threads is ", o.staging_threads, ": expected 0 (auto) to 256");
  FERRY_EXPECT(o.cpu_threads >= 0 && o.cpu_threads <= 1024, Status::InvalidArgument,
               "options->cpu_threads is ", o.cpu_threads, ": expected 0 (auto) to 1024");
  FERRY_EXPECT(o.max_batches_in_flight >= 1 && o.max_batches_in_flight <= 1024,
               Status::InvalidArgument, "options->max_batches_in_flight is ",
               o.max_batches_in_flight, ": expected 1..1024");
  FERRY_EXPECT(o.max_unreleased_batches >= 1 && o.max_unreleased_batches <= (std::uint64_t{1} << 30),
               Status::InvalidArgument,
               "options->max_unreleased_batches is ", o.max_unreleased_batches, ": expected 1..2^30");
  FERRY_EXPECT(o.pinned_prealloc_bytes <= o.pinned_cache_bytes, Status::InvalidArgument,
               "options->pinned_prealloc_bytes is ", o.pinned_prealloc_bytes,
               ": more than options->pinned_cache_bytes (", o.pinned_cache_bytes, ")");
  FERRY_EXPECT(o.max_staging_bytes >= (std::uint64_t{1} << 20), Status::InvalidArgument,
               "options->max_staging_bytes is ", o.max_staging_bytes, ": expected at least 1 MiB");
  FERRY_EXPECT(o.max_staging_bytes <= o.pinned_cache_bytes, Status::InvalidArgument,
               "options->max_staging_bytes is ", o.max_staging_bytes,
               ": more than options->pinned_cache_bytes (", o.pinned_cache_bytes,
               "), from which the staging ring is taken");
}

}  // namespace ferry::core
