// The CPU-only build: there are no CUDA devices, and asking for one says why.
#if !FERRY_HAVE_CUDA

#include "core/device/device_query.h"
#include "core/error.h"

namespace ferry::core {

int cuda_device_count() noexcept { return 0; }

void cuda_device_properties(DeviceProperties&, int device) {
  fail(Status::NoDevice, "device is ", device,
       ": this libferry was built without the CUDA backend (FERRY_CUDA=OFF)");
}

void open_cuda_device(int device) {
  fail(Status::NoDevice, "device_index is ", device,
       ": this libferry was built without the CUDA backend (FERRY_CUDA=OFF)");
}

}  // namespace ferry::core

#endif
