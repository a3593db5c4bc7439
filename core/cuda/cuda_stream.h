// An owning CUDA stream (non-blocking, optional priority) and its
// non-owning view is the plain cudaStream_t.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "core/cuda/cuda_check.h"

namespace ferry::cuda {

class CudaStream {
 public:
  // priority: 0 is normal; CUDA's "greatest" priority is the most negative.
  explicit CudaStream(int priority = 0) {
    FERRY_CUDA_TRY(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority));
  }
  ~CudaStream() {
    if (stream_ != nullptr) FERRY_CUDA_ASSERT(cudaStreamDestroy(stream_));
  }
  CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  void synchronize() const { FERRY_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace ferry::cuda
