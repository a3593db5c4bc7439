// The CPU backend's runtime: "device" and "pinned" memory are aligned host
// memory, registration only records, copies are memcpy, and work is complete
// when a call returns, so events are tokens that are always complete and
// streams are null. It also runs the staged pipeline in tests on every machine.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/device/device_runtime.h"

namespace ferry::core {

// Not final: tests derive from it to inject failures.
class HostRuntime : public DeviceRuntime {
 public:
  static constexpr std::size_t kAlignment = 4096;  // a page: at least the 256 the ABI promises

  bool has_streams() const noexcept override { return false; }
  int device() const noexcept override { return -1; }
  int enter_device() override { return 0; }
  void restore_device(int) noexcept override {}
  const char* pinned_method() const noexcept override { return "aligned host memory (CPU backend)"; }
  const char* device_method() const noexcept override { return "aligned host memory (CPU backend)"; }
  void* device_malloc(std::size_t bytes) override { return aligned(bytes); }
  void device_free(void* ptr) noexcept override;
  bool memory_info(std::size_t* free_bytes, std::size_t* total_bytes) noexcept override;  // the host's RAM
  void* pinned_alloc(std::size_t bytes) override { return aligned(bytes); }
  void pinned_free(void* ptr, std::size_t) noexcept override;
  RegisterOutcome host_register(const void*, std::size_t) override { return RegisterOutcome::kRegistered; }
  void host_unregister(const void*) noexcept override {}
  HostMemoryKind pointer_kind(const void*) override { return HostMemoryKind::kPageable; }
  EventHandle event_create(bool) override {
    return reinterpret_cast<EventHandle>(next_token_.fetch_add(1, std::memory_order_relaxed));
  }
  void event_destroy(EventHandle) noexcept override {}
  void event_record(EventHandle, StreamHandle) override {}
  bool event_query(EventHandle) override { return true; }
  void event_synchronize(EventHandle) override {}
  float elapsed_ms(EventHandle, EventHandle) override { return 0.0f; }
  StreamHandle stream_create(bool) override { return nullptr; }
  void stream_destroy(StreamHandle) noexcept override {}
  void stream_wait(StreamHandle, EventHandle) override {}
  void copy(void* dst, const void* src, std::size_t bytes, StreamHandle) override;
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows, StreamHandle) override;

 private:
  static void* aligned(std::size_t bytes) noexcept;
  std::atomic<std::uintptr_t> next_token_{1};
};

}  // namespace ferry::core
