#include "core/device/cuda/cuda_runtime.h"
#include "core/device/numa_placement.h"

#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/device/cuda/cuda_check.h"
#include "core/device/device_scope.h"

namespace ferry::core {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// Touches every page so cudaHostRegister finds them resident; threads for big blocks.
void prefault(void* ptr, std::size_t bytes) {
  auto* p = static_cast<volatile unsigned char*>(ptr);
  auto touch = [p](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; i += 4096) p[i] = 0;
  };
  const std::size_t big = std::size_t{64} << 20;
  if (bytes < big) return touch(0, bytes);
  const std::size_t threads = std::min<std::size_t>(8, std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t per = (bytes / threads + 4095) & ~std::size_t{4095};
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t)
    workers.emplace_back(touch, std::min(bytes, t * per), std::min(bytes, (t + 1) * per));
  for (auto& w : workers) w.join();
}

class CudaRuntime final : public DeviceRuntime {
 public:
  CudaRuntime(int device, PinnedMethod method, int host_node)
      : device_(device), method_(method), host_node_(host_node), kernels_read_pinned_(pinned_mapped(device, method)) {}

  bool has_streams() const noexcept override { return true; }
  const char* pinned_method() const noexcept override {
    return method_ == PinnedMethod::kHostAlloc ? "cudaHostAlloc" : "malloc+prefault+cudaHostRegister";
  }
  const char* device_method() const noexcept override { return "cudaMalloc"; }
  bool kernels_read_pinned_memory() const noexcept override { return kernels_read_pinned_; }

  int device() const noexcept override { return device_; }
  int enter_device() override {
    int previous = device_;
    FERRY_CUDA_TRY(cudaGetDevice(&previous));
    if (previous != device_) FERRY_CUDA_TRY(cudaSetDevice(device_));
    return previous;
  }
  void restore_device(int previous) noexcept override {
    int now = previous;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous) FERRY_CUDA_ASSERT(cudaSetDevice(previous));
  }

  void* device_malloc(std::size_t bytes) override {
    DeviceScope scope(*this);
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    FERRY_CUDA_TRY(err);
    return p;
  }
  bool memory_info(std::size_t* free_bytes, std::size_t* total_bytes) noexcept override {
    int previous = device_;
    if (cudaGetDevice(&previous) != cudaSuccess) return false;
    if (previous != device_ && cudaSetDevice(device_) != cudaSuccess) return false;
    const bool ok = cudaMemGetInfo(free_bytes, total_bytes) == cudaSuccess;
    if (previous != device_) (void)cudaSetDevice(previous);
    if (!ok) (void)cudaGetLastError();
    return ok;
  }
  std::size_t device_memory_bytes() noexcept override {
    std::size_t known = device_bytes_.load(std::memory_order_relaxed);
    if (known != 0) return known;
    std::size_t free_bytes = 0;
    if (!memory_info(&free_bytes, &known)) return 0;
    device_bytes_.store(known, std::memory_order_relaxed);
    return known;
  }
  void device_free(void* ptr) noexcept override {
    // noexcept: a device that cannot be made current is reported by the free itself.
    int previous = device_;
    const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != device_ &&
                          cudaSetDevice(device_) == cudaSuccess;
    FERRY_CUDA_ASSERT(cudaFree(ptr));
    if (switched) restore_device(previous);
  }

  void* pinned_alloc(std::size_t bytes) override {
    DeviceScope scope(*this);
    if (method_ == PinnedMethod::kHostAlloc) {
      void* p = nullptr;
      const cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return nullptr;
      }
      FERRY_CUDA_TRY(err);
      return p;
    }
    // Whole pages: cudaHostRegister pins every page the range touches, and a
    // page shared with another heap object would leave that object partly
    // registered (copies from it then fail with cudaErrorInvalidValue).
    bytes = (bytes + 4095) & ~std::size_t{4095};
    void* p = nullptr;
    if (posix_memalign(&p, bytes >= kHugePage ? kHugePage : 4096, bytes) != 0) return nullptr;
    if (bytes >= kHugePage) (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice only
    prefer_node(p, bytes, host_node_);  // before the first touch places the pages
    prefault(p, bytes);
    const cudaError_t err = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
    if (err != cudaSuccess) {
      std::free(p);
      (void)cudaGetLastError();
      if (err == cudaErrorMemoryAllocation) return nullptr;
      FERRY_CUDA_TRY(err);
    }
    return p;
  }
  void pinned_free(void* ptr, std::size_t) noexcept override {
    if (method_ == PinnedMethod::kHostAlloc) {
      FERRY_CUDA_ASSERT(cudaFreeHost(ptr));
    } else {
      FERRY_CUDA_ASSERT(cudaHostUnregister(ptr));
      std::free(ptr);
    }
  }

  RegisterOutcome host_register(const void* ptr, std::size_t bytes) override {
    DeviceScope scope(*this);
    const cudaError_t err = cudaHostRegister(const_cast<void*>(ptr), bytes, cudaHostRegisterDefault);
    if (err == cudaErrorHostMemoryAlreadyRegistered) {
      (void)cudaGetLastError();
      return RegisterOutcome::kAlreadyRegistered;
    }
    FERRY_CUDA_TRY(err);
    return RegisterOutcome::kRegistered;
  }
  void host_unregister(const void* ptr) noexcept override {
    FERRY_CUDA_ASSERT(cudaHostUnregister(const_cast<void*>(ptr)));
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

  EventHandle event_create(bool timing) override {
    DeviceScope scope(*this);
    cudaEvent_t e = nullptr;
    FERRY_CUDA_TRY(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    return e;
  }
  void event_destroy(EventHandle event) noexcept override {
    FERRY_CUDA_ASSERT(cudaEventDestroy(static_cast<cudaEvent_t>(event)));
  }
  void event_record(EventHandle event, StreamHandle stream) override {
    FERRY_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)));
  }
  bool event_query(EventHandle event) override {
    const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) return false;
    FERRY_CUDA_TRY(err);
    return true;
  }
  void event_synchronize(EventHandle event) override {
    FERRY_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
  }
  float elapsed_ms(EventHandle start, EventHandle end) override {
    float ms = 0.0f;
    FERRY_CUDA_TRY(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
    return ms;
  }

  StreamHandle stream_create(bool high_priority) override {
    DeviceScope scope(*this);
    int least = 0, greatest = 0;
    FERRY_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    FERRY_CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high_priority ? greatest : least));
    return s;
  }
  void stream_destroy(StreamHandle stream) noexcept override {
    FERRY_CUDA_ASSERT(cudaStreamDestroy(static_cast<cudaStream_t>(stream)));
  }
  void stream_wait(StreamHandle waiter, EventHandle event) override {
    FERRY_CUDA_TRY(cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), static_cast<cudaEvent_t>(event), 0));
  }

  void copy(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override {
    FERRY_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)));
  }
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows, StreamHandle stream) override {
    FERRY_CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault,
                                     static_cast<cudaStream_t>(stream)));
  }

 private:
  int device_;
  PinnedMethod method_;
  int host_node_;  // pinned segments prefer this NUMA node (-1: the first touch decides)
  bool kernels_read_pinned_;
  std::atomic<std::size_t> device_bytes_{0};  // device_memory_bytes, once known

  // With unified addressing, cudaHostAlloc'd memory is mapped for the device
  // at its host address; registered memory is where the device also says
  // cudaDevAttrCanUseHostPointerForRegisteredMem.
  static bool pinned_mapped(int device, PinnedMethod method) noexcept {
    int unified = 0, registered = 0;
    if (cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&registered, cudaDevAttrCanUseHostPointerForRegisteredMem, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return unified != 0 && (method == PinnedMethod::kHostAlloc || registered != 0);
  }
};

}  // namespace

std::unique_ptr<DeviceRuntime> make_cuda_runtime(int device, PinnedMethod method, int host_node) {
  return std::make_unique<CudaRuntime>(device, method, host_node);
}

}  // namespace ferry::core
