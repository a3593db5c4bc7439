// The CUDA runtime (compiled only in CUDA builds). This header has no CUDA
// include: the context builds the runtime through the factory.
//
// Pinned memory, two methods (ContextOptions::pinned_method):
//   register  (the default) posix_memalign (2 MiB aligned, transparent huge
//             pages advised), pre-faulted by touching every page (threads for
//             large blocks), then cudaHostRegister.
//   alloc     cudaHostAlloc.
// Measured on an H200 host (driver 580, bench/memory_bench.cpp,
// gpu/pinned_segment_miss, one new pool segment, allocation + release, ms):
//   2 MiB 0.31 vs 0.77, 20 MiB 2.0 vs 6.1, 64 MiB 3.8 vs 19.8,
//   256 MiB 13.4 vs 117 (register vs alloc, pre-faulting included): the
//   driver's own allocation zeroes and maps page by page.
#pragma once

#include <memory>

#include "core/context_options.h"
#include "core/device/device_runtime.h"

namespace ferry::core {

// The runtime of CUDA device `device` (already checked to exist by the context).
std::unique_ptr<DeviceRuntime> make_cuda_runtime(int device, PinnedMethod method, int host_node = -1);

}  // namespace ferry::core
