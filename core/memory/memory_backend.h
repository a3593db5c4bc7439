// The small interface between ferry's memory bookkeeping (pure C++, tested on
// every machine with a fake backend) and the system calls underneath it:
// CUDA on a GPU context, aligned host memory on the CPU backend.
//
// Streams and events are opaque handles here (cudaStream_t / cudaEvent_t
// values on CUDA), so no bookkeeping file includes a CUDA header.
#pragma once

#include <cstddef>

namespace ferry::core {

using StreamHandle = void*;  // cudaStream_t on CUDA; nullptr is the legacy default stream
using EventHandle = void*;   // cudaEvent_t on CUDA; created by event_create

enum class RegisterOutcome {
  kRegistered,         // the range is now registered by this call
  kAlreadyRegistered,  // someone else (the caller, another library) already registered part of it
};

// Implementations are thread-safe: every method may be called from any thread.
class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;

  // False on the CPU backend: work is complete when a call returns, so events
  // are always complete and streams carry no order.
  virtual bool has_streams() const noexcept = 0;
  // A name for messages and benchmarks: "cudaHostAlloc", "malloc+cudaHostRegister", ...
  virtual const char* pinned_method() const noexcept = 0;
  // What device_malloc calls, for out-of-memory messages: "cudaMalloc", or
  // on the CPU backend the host allocation that stands in for device memory.
  virtual const char* device_method() const noexcept = 0;

  // Device memory. Returns nullptr when the device is out of memory (the
  // caller frees cached blocks and retries); throws ferry::Error on any other failure.
  virtual void* device_malloc(std::size_t bytes) = 0;
  virtual void device_free(void* ptr) noexcept = 0;

  // Page-locked host memory, aligned to at least 256 bytes. nullptr when out of memory.
  virtual void* pinned_alloc(std::size_t bytes) = 0;
  virtual void pinned_free(void* ptr, std::size_t bytes) noexcept = 0;

  // Registration of a caller's pageable range; throws ferry::Error on failure.
  virtual RegisterOutcome host_register(const void* ptr, std::size_t bytes) = 0;
  virtual void host_unregister(const void* ptr) noexcept = 0;

  // Events without timing: they only order work.
  virtual EventHandle event_create() = 0;
  virtual void event_destroy(EventHandle event) noexcept = 0;
  virtual void event_record(EventHandle event, StreamHandle stream) = 0;
  virtual bool event_query(EventHandle event) = 0;  // true once the recorded work completed
  virtual void event_synchronize(EventHandle event) = 0;

  // Non-blocking streams; high_priority asks for the device's greatest priority.
  virtual StreamHandle stream_create(bool high_priority) = 0;
  virtual void stream_destroy(StreamHandle stream) noexcept = 0;
};

}  // namespace ferry::core
