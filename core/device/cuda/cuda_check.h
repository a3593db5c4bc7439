// CUDA error checks that say where: FERRY_CUDA_TRY throws ferry::Error with
// file:line, the call, and the CUDA error's name and text. FERRY_CUDA_ASSERT
// is for destructors and other noexcept paths: it never throws, and reports a
// failure on stderr (a failing destroy call means a bug or a dead context).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>

#include "core/error.h"

namespace ferry::cuda {

inline Status status_of(cudaError_t err) noexcept {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return Status::OutOfMemory;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
      return Status::NoDevice;
    default:
      return Status::Cuda;
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                          int line) {
  fail(status_of(err), file, ":", line, ": ", call, " failed: ", cudaGetErrorName(err), " (",
       static_cast<int>(err), "): ", cudaGetErrorString(err));
}

}  // namespace ferry::cuda

#define FERRY_CUDA_TRY(call)                                                       \
  do {                                                                             \
    cudaError_t ferry_cuda_err_ = (call);                                          \
    if (ferry_cuda_err_ != cudaSuccess) {                                          \
      (void)cudaGetLastError(); /* clear a sticky-free error so later calls work */ \
      ::ferry::cuda::throw_cuda_error(ferry_cuda_err_, #call, __FILE__, __LINE__);  \
    }                                                                              \
  } while (0)

#define FERRY_CUDA_ASSERT(call)                                                            \
  do {                                                                                     \
    cudaError_t ferry_cuda_err_ = (call);                                                  \
    if (ferry_cuda_err_ != cudaSuccess && ferry_cuda_err_ != cudaErrorCudartUnloading) {   \
      std::fprintf(stderr, "ferry: %s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                   cudaGetErrorName(ferry_cuda_err_));                                     \
    }                                                                                      \
  } while (0)
