// The CPU backend's memory: "device" and "pinned" memory are aligned host
// memory, registration only records, and work is complete when a call
// returns, so events are tokens that are always complete and streams are null.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/memory/memory_backend.h"

namespace ferry::core {

class HostMemoryBackend final : public MemoryBackend {
 public:
  static constexpr std::size_t kAlignment = 4096;  // a page: at least the 256 the ABI promises

  bool has_streams() const noexcept override { return false; }
  const char* pinned_method() const noexcept override { return "aligned host memory (CPU backend)"; }
  const char* device_method() const noexcept override { return "aligned host memory (CPU backend)"; }
  void* device_malloc(std::size_t bytes) override { return aligned(bytes); }
  void device_free(void* ptr) noexcept override;
  void* pinned_alloc(std::size_t bytes) override { return aligned(bytes); }
  void pinned_free(void* ptr, std::size_t) noexcept override;
  RegisterOutcome host_register(const void*, std::size_t) override { return RegisterOutcome::kRegistered; }
  void host_unregister(const void*) noexcept override {}
  EventHandle event_create() override {
    return reinterpret_cast<EventHandle>(next_token_.fetch_add(1, std::memory_order_relaxed));
  }
  void event_destroy(EventHandle) noexcept override {}
  void event_record(EventHandle, StreamHandle) override {}
  bool event_query(EventHandle) override { return true; }
  void event_synchronize(EventHandle) override {}
  StreamHandle stream_create(bool) override { return nullptr; }
  void stream_destroy(StreamHandle) noexcept override {}

 private:
  static void* aligned(std::size_t bytes) noexcept;
  std::atomic<std::uintptr_t> next_token_{1};
};

}  // namespace ferry::core
