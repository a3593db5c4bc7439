// The one place that chooses a device runtime: the host runtime for the CPU,
// the CUDA runtime for a GPU (in a build with the CUDA backend).
#pragma once

#include <memory>

#include "core/context_options.h"
#include "core/device/device_kind.h"
#include "core/device/device_runtime.h"

namespace ferry::core {

// kind is CPU or CUDA (never AUTO); device is the CUDA device, already checked
// to work; pinned: how the CUDA runtime makes pinned memory; host_node: the
// NUMA node its pinned memory should come from (-1: wherever). A CUDA kind in
// a build without CUDA throws Status::NoDevice.
std::shared_ptr<DeviceRuntime> make_runtime(DeviceKind kind, int device,
                                            PinnedMethod pinned = PinnedMethod::kRegister, int host_node = -1);

}  // namespace ferry::core
