// DeviceRuntime: the one seam between ferry's logic (pools, caches, the
// staging pipeline, the converter; pure C++, tested on every machine with a
// fake) and the device underneath: memory, registration, streams, events,
// copies, waits, where a pointer lives, and which device is current. Two
// implementations: the CUDA one (core/device/cuda/cuda_runtime.h) and the
// host one (host_runtime.h), on which work is complete when a call returns.
//
// Streams and events are opaque handles here (cudaStream_t / cudaEvent_t
// values on CUDA), so no file above this seam includes a CUDA header.
//
// Implementations are thread-safe: every method may be called from any thread.
#pragma once

#include <cstddef>

namespace ferry::core {

using StreamHandle = void*;  // cudaStream_t on CUDA; nullptr is the legacy default stream
using EventHandle = void*;   // cudaEvent_t on CUDA; created by event_create

enum class RegisterOutcome {
  kRegistered,         // the range is now registered by this call
  kAlreadyRegistered,  // someone else (the caller, another library) already registered part of it
};

enum class HostMemoryKind {
  kPageable,  // ordinary host memory: staged through the pinned ring
  kPinned,    // page-locked (ferry's, cudaHostAlloc'd or registered): copied directly
  kDevice,    // device or managed memory: copied directly
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // False on the host runtime: work is complete when a call returns, so
  // events are always complete and streams carry no order.
  virtual bool has_streams() const noexcept = 0;
  // A name for messages and benchmarks: "cudaHostAlloc", "malloc+cudaHostRegister", ...
  virtual const char* pinned_method() const noexcept = 0;
  // What device_malloc calls, for out-of-memory messages: "cudaMalloc", or
  // on the host runtime the host allocation that stands in for device memory.
  virtual const char* device_method() const noexcept = 0;

  // The CUDA device this runtime drives; -1 for the host runtime.
  virtual int device() const noexcept = 0;

  // --- the current device (use DeviceScope, device_scope.h) ---
  // Makes this runtime's device current on the calling thread; returns the
  // device that was current, for restore_device.
  virtual int enter_device() = 0;
  virtual void restore_device(int previous) noexcept = 0;

  // --- memory ---
  // Device memory. Returns nullptr when the device is out of memory (the
  // caller frees cached blocks and retries); throws ferry::Error on any other failure.
  virtual void* device_malloc(std::size_t bytes) = 0;
  virtual void device_free(void* ptr) noexcept = 0;
  // The device's free and total memory in bytes, for an out-of-memory
  // message; false where the runtime cannot tell.
  virtual bool memory_info(std::size_t* free_bytes, std::size_t* total_bytes) noexcept {
    (void)free_bytes;
    (void)total_bytes;
    return false;
  }
  // The device's total memory in bytes, asked once (memory_info costs 20-100
  // us a call on an H200); 0 where the runtime cannot tell.
  virtual std::size_t device_memory_bytes() noexcept { return 0; }
  // Page-locked host memory, aligned to at least 256 bytes. nullptr when out of memory.
  virtual void* pinned_alloc(std::size_t bytes) = 0;
  virtual void pinned_free(void* ptr, std::size_t bytes) noexcept = 0;
  // Whether a kernel may read pinned_alloc's memory through its host pointer
  // (unified addressing maps it for the device).
  virtual bool kernels_read_pinned_memory() const noexcept { return false; }
  // Registration of a caller's pageable range; throws ferry::Error on failure.
  virtual RegisterOutcome host_register(const void* ptr, std::size_t bytes) = 0;
  virtual void host_unregister(const void* ptr) noexcept = 0;
  // What the driver knows about ptr.
  virtual HostMemoryKind pointer_kind(const void* ptr) = 0;

  // --- events ---
  // timing: the event can be timed with elapsed_ms (dearer to record; most
  // of ferry's events only order work). Use EventPool (event_pool.h) to reuse them.
  virtual EventHandle event_create(bool timing) = 0;
  virtual void event_destroy(EventHandle event) noexcept = 0;
  virtual void event_record(EventHandle event, StreamHandle stream) = 0;
  virtual bool event_query(EventHandle event) = 0;  // true once the recorded work completed
  virtual void event_synchronize(EventHandle event) = 0;
  // Milliseconds between two completed timing events (0 on the host runtime).
  virtual float elapsed_ms(EventHandle start, EventHandle end) = 0;

  // --- streams ---
  // Non-blocking streams; high_priority asks for the device's greatest priority.
  virtual StreamHandle stream_create(bool high_priority) = 0;
  virtual void stream_destroy(StreamHandle stream) noexcept = 0;
  // Work queued on `waiter` from now on waits for `event`'s recorded work.
  virtual void stream_wait(StreamHandle waiter, EventHandle event) = 0;

  // --- copies, any direction, queued on `stream` ---
  virtual void copy(void* dst, const void* src, std::size_t bytes, StreamHandle stream) = 0;
  // rows rows of width bytes, from src (spitch apart) to dst (dpitch apart).
  virtual void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                       std::size_t width, std::size_t rows, StreamHandle stream) = 0;
};

}  // namespace ferry::core
