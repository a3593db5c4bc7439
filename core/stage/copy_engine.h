// CopyEngine: the device operations the staging pipeline needs beyond the
// memory subsystem's backend: where a host pointer lives, host-to-device
// copies (1-D and 2-D) on a stream, one stream waiting for an event, and
// timing events for the statistics. No CUDA header here.
//
// Two implementations: the CUDA one (core/stage/cuda/cuda_copy_engine.cpp) and
// the host one (host_copy_engine.cpp), which copies with memcpy at once, so
// the whole pipeline (chunks, staging ring, threads, completion) also runs,
// and is tested, on machines without a GPU.
//
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <memory>

#include "core/memory/memory_backend.h"

namespace ferry::core {

enum class HostMemoryKind {
  kPageable,  // ordinary host memory: staged through the pinned ring
  kPinned,    // page-locked (cudaHostAlloc'd or registered): copied directly
  kDevice,    // device or managed memory: copied directly
};

class CopyEngine {
 public:
  virtual ~CopyEngine() = default;

  // False for the host engine: copies are complete when a call returns.
  virtual bool asynchronous() const noexcept = 0;
  // Makes the engine's device current on the calling thread; returns the
  // device that was current, for restore_device (host engine: 0, no-op).
  virtual int enter_device() = 0;
  virtual void restore_device(int previous) noexcept = 0;

  // What the driver knows about ptr (cudaPointerGetAttributes).
  virtual HostMemoryKind pointer_kind(const void* ptr) = 0;

  virtual void copy(void* dst, const void* src, std::size_t bytes, StreamHandle stream) = 0;
  // rows rows of width bytes, from src (spitch apart) to dst (dpitch apart).
  virtual void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                       std::size_t width, std::size_t rows, StreamHandle stream) = 0;
  // Work queued on `waiter` from now on waits for `event`'s recorded work.
  virtual void stream_wait(StreamHandle waiter, EventHandle event) = 0;

  // Events that can be timed, recycled by the engine. Records and queries go
  // through record_timing / elapsed_ms; they are also ordinary events.
  virtual EventHandle timing_event_acquire() = 0;
  virtual void timing_event_release(EventHandle event) noexcept = 0;
  virtual void record(EventHandle event, StreamHandle stream) = 0;
  // Milliseconds between two completed timing events (0 on the host engine).
  virtual float elapsed_ms(EventHandle start, EventHandle end) = 0;
};

// The host engine: memcpy, no streams, every event complete.
std::unique_ptr<CopyEngine> make_host_copy_engine();
#if FERRY_HAVE_CUDA
// The CUDA engine for `device`.
std::unique_ptr<CopyEngine> make_cuda_copy_engine(int device);
#endif

// Makes the engine's device current for a scope (a caller's thread, a ferry
// thread), then restores the caller's device.
class DeviceScope {
 public:
  explicit DeviceScope(CopyEngine& engine) : engine_(engine), previous_(engine.enter_device()) {}
  ~DeviceScope() { engine_.restore_device(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  CopyEngine& engine_;
  int previous_;
};

}  // namespace ferry::core
