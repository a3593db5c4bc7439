// The CUDA CopyEngine: cudaMemcpyAsync / cudaMemcpy2DAsync on the pipeline's
// streams, cudaStreamWaitEvent, cudaPointerGetAttributes, and a recycled set
// of timing events (created once; none per batch in steady state).
#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "core/cuda/cuda_check.h"
#include "core/stage/copy_engine.h"

namespace ferry::core {
namespace {

class CudaCopyEngine final : public CopyEngine {
 public:
  explicit CudaCopyEngine(int device) : device_(device) {}
  ~CudaCopyEngine() override {
    for (EventHandle e : idle_) FERRY_CUDA_ASSERT(cudaEventDestroy(static_cast<cudaEvent_t>(e)));
  }

  bool asynchronous() const noexcept override { return true; }

  int enter_device() override {
    int previous = device_;
    FERRY_CUDA_TRY(cudaGetDevice(&previous));
    if (previous != device_) FERRY_CUDA_TRY(cudaSetDevice(device_));
    return previous;
  }
  void restore_device(int previous) noexcept override {
    if (previous != device_) FERRY_CUDA_ASSERT(cudaSetDevice(previous));
  }

  HostMemoryKind pointer_kind(const void* ptr) override {
    cudaPointerAttributes attributes{};
    const cudaError_t err = cudaPointerGetAttributes(&attributes, ptr);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();  // older drivers answer "invalid value" for pageable memory
      return HostMemoryKind::kPageable;
    }
    switch (attributes.type) {
      case cudaMemoryTypeHost:
        return HostMemoryKind::kPinned;
      case cudaMemoryTypeDevice:
      case cudaMemoryTypeManaged:
        return HostMemoryKind::kDevice;
      default:
        return HostMemoryKind::kPageable;
    }
  }

  void copy(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override {
    FERRY_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)));
  }
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows, StreamHandle stream) override {
    FERRY_CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault,
                                     static_cast<cudaStream_t>(stream)));
  }
  void stream_wait(StreamHandle waiter, EventHandle event) override {
    FERRY_CUDA_TRY(cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), static_cast<cudaEvent_t>(event), 0));
  }

  EventHandle timing_event_acquire() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        EventHandle e = idle_.back();
        idle_.pop_back();
        return e;
      }
    }
    cudaEvent_t e = nullptr;
    FERRY_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDefault));
    return e;
  }
  void timing_event_release(EventHandle event) noexcept override {
    if (event == nullptr) return;
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.push_back(event);
    } catch (...) {
      FERRY_CUDA_ASSERT(cudaEventDestroy(static_cast<cudaEvent_t>(event)));
    }
  }
  void record(EventHandle event, StreamHandle stream) override {
    FERRY_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)));
  }
  float elapsed_ms(EventHandle start, EventHandle end) override {
    float ms = 0.0f;
    FERRY_CUDA_TRY(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
    return ms;
  }

 private:
  const int device_;
  std::mutex mutex_;
  std::vector<EventHandle> idle_;
};

}  // namespace

std::unique_ptr<CopyEngine> make_cuda_copy_engine(int device) {
  return std::make_unique<CudaCopyEngine>(device);
}

}  // namespace ferry::core
