#include "core/device/make_runtime.h"

#include "core/device/host_runtime.h"
#include "core/error.h"
#if FERRY_HAVE_CUDA
#include "core/device/cuda/cuda_runtime.h"
#endif

namespace ferry::core {

std::shared_ptr<DeviceRuntime> make_runtime(DeviceKind kind, int device, PinnedMethod pinned, int host_node) {
  if (kind == DeviceKind::Cpu) return std::make_shared<HostRuntime>();
#if FERRY_HAVE_CUDA
  return make_cuda_runtime(device, pinned, host_node);
#else
  (void)pinned, (void)host_node;
  fail(Status::NoDevice, "device_kind is FERRY_DEVICE_CUDA (device ", device,
       "): this build of ferry has no CUDA backend");
#endif
}

}  // namespace ferry::core
