// An owning CUDA event. Timing is off by default: such events are cheaper to
// record and to wait on, and most of ferry's events only order work.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "core/device/cuda/cuda_check.h"

namespace ferry::cuda {

class CudaEvent {
 public:
  explicit CudaEvent(bool timing = false) {
    FERRY_CUDA_TRY(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~CudaEvent() {
    if (event_ != nullptr) FERRY_CUDA_ASSERT(cudaEventDestroy(event_));
  }
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  cudaEvent_t get() const noexcept { return event_; }
  void record(cudaStream_t stream) const { FERRY_CUDA_TRY(cudaEventRecord(event_, stream)); }
  // True once the recorded work has completed; never blocks.
  bool query() const {
    cudaError_t err = cudaEventQuery(event_);
    if (err == cudaErrorNotReady) return false;
    FERRY_CUDA_TRY(err);
    return true;
  }
  void synchronize() const { FERRY_CUDA_TRY(cudaEventSynchronize(event_)); }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace ferry::cuda
