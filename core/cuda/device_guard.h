// Makes `device` current for a scope and restores the caller's current device
// afterwards, so ferry never leaves a caller's thread on another GPU.
#pragma once

#include <cuda_runtime_api.h>

#include "core/cuda/cuda_check.h"

namespace ferry::cuda {

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    FERRY_CUDA_TRY(cudaGetDevice(&previous_));
    if (previous_ != device) FERRY_CUDA_TRY(cudaSetDevice(device));
  }
  ~DeviceGuard() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_)
      FERRY_CUDA_ASSERT(cudaSetDevice(previous_));
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace ferry::cuda
