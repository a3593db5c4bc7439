// A fake DeviceRuntime for the memory unit tests: fake addresses (never
// dereferenced), a capacity to run out of, streams that are just numbers, and
// events that complete only when a test says so (complete_stream/complete_all)
// or when someone synchronizes on them (the fake "GPU" then finishes that work).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "core/device/device_runtime.h"

namespace ferry::test {

class FakeRuntime final : public core::DeviceRuntime {
 public:
  explicit FakeRuntime(std::size_t device_capacity = SIZE_MAX, std::size_t pinned_capacity = SIZE_MAX)
      : device_capacity_(device_capacity), pinned_capacity_(pinned_capacity) {}

  bool has_streams() const noexcept override { return true; }
  const char* pinned_method() const noexcept override { return "fake"; }
  const char* device_method() const noexcept override { return "fake"; }
  int device() const noexcept override { return -1; }
  int enter_device() override { return 0; }
  void restore_device(int) noexcept override {}
  core::HostMemoryKind pointer_kind(const void*) override { return core::HostMemoryKind::kPageable; }

  void* device_malloc(std::size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++device_mallocs;
    if (bytes > device_capacity_ - device_used_) return nullptr;
    device_used_ += bytes;
    return take(bytes, device_live_);
  }
  void device_free(void* ptr) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++device_frees;
    auto it = device_live_.find(addr(ptr));
    if (it == device_live_.end()) { ++bad_frees; return; }
    device_used_ -= it->second;
    device_live_.erase(it);
  }
  void* pinned_alloc(std::size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++pinned_allocs;
    if (bytes > pinned_capacity_ - pinned_used_) return nullptr;
    pinned_used_ += bytes;
    return take(bytes, pinned_live_);
  }
  void pinned_free(void* ptr, std::size_t bytes) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pinned_live_.find(addr(ptr));
    if (it == pinned_live_.end() || it->second != bytes) { ++bad_frees; return; }
    pinned_used_ -= bytes;
    pinned_live_.erase(it);
  }

  // Like CUDA: a range sharing a 4 KiB page with a registration is refused.
  core::RegisterOutcome host_register(const void* ptr, std::size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++registers;
    const std::uintptr_t lo = addr(ptr) & ~std::uintptr_t{4095};
    const std::uintptr_t hi = ((addr(ptr) + bytes - 1) | 4095) + 1;
    for (auto& [start, range] : registered_)
      if (range.first < hi && lo < range.second) return core::RegisterOutcome::kAlreadyRegistered;
    registered_[addr(ptr)] = {lo, hi};
    return core::RegisterOutcome::kRegistered;
  }
  void host_unregister(const void* ptr) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (registered_.erase(addr(ptr)) == 0) ++bad_frees;
  }
  void register_outside(const void* ptr, std::size_t bytes) { (void)host_register(ptr, bytes); }

  core::EventHandle event_create(bool) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++events_created;
    auto* e = new Event;
    events_.insert(e);
    return e;
  }
  void event_destroy(core::EventHandle event) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.erase(static_cast<Event*>(event));
    delete static_cast<Event*>(event);
  }
  void event_record(core::EventHandle event, core::StreamHandle stream) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++records;
    auto* e = static_cast<Event*>(event);
    e->stream = stream;
    e->seq = ++seq_;
    e->complete = done_upto_[stream] >= e->seq;
  }
  bool event_query(core::EventHandle event) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++queries;
    auto* e = static_cast<Event*>(event);
    return e->complete || done_upto_[e->stream] >= e->seq;
  }
  void event_synchronize(core::EventHandle event) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++synchronizes;
    auto* e = static_cast<Event*>(event);
    auto& done = done_upto_[e->stream];
    if (done < e->seq) done = e->seq;  // the fake GPU finishes the stream's work up to the event
    e->complete = true;
  }
  core::StreamHandle stream_create(bool high_priority) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (high_priority) ++high_priority_streams;
    return reinterpret_cast<core::StreamHandle>(next_stream_++);
  }
  void stream_destroy(core::StreamHandle) noexcept override {}
  float elapsed_ms(core::EventHandle, core::EventHandle) override { return 0.0f; }
  // The memory tests queue no copies and no cross-stream waits: these count them.
  void stream_wait(core::StreamHandle, core::EventHandle) override { ++unexpected_calls; }
  void copy(void*, const void*, std::size_t, core::StreamHandle) override { ++unexpected_calls; }
  void copy_2d(void*, std::size_t, const void*, std::size_t, std::size_t, std::size_t, core::StreamHandle) override {
    ++unexpected_calls;
  }

  // The fake GPU finishes everything queued on `stream` so far / everywhere.
  void complete_stream(core::StreamHandle stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_upto_[stream] = seq_;
  }
  void complete_all() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Event* e : events_) e->complete = e->complete || e->seq != 0;
    for (auto& [s, done] : done_upto_) done = seq_;
  }
  std::size_t device_used() const { std::lock_guard<std::mutex> l(mutex_); return device_used_; }
  std::size_t pinned_used() const { std::lock_guard<std::mutex> l(mutex_); return pinned_used_; }
  std::size_t registrations() const { std::lock_guard<std::mutex> l(mutex_); return registered_.size(); }
  std::size_t live_events() const { std::lock_guard<std::mutex> l(mutex_); return events_.size(); }

  // Call counts, read by tests after the threads joined.
  std::size_t device_mallocs = 0, device_frees = 0, pinned_allocs = 0, registers = 0, records = 0,
              synchronizes = 0, events_created = 0, high_priority_streams = 0, bad_frees = 0, unexpected_calls = 0,
              queries = 0;

 private:
  struct Event {
    core::StreamHandle stream = nullptr;
    std::uint64_t seq = 0;
    bool complete = false;
  };
  static std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
  void* take(std::size_t bytes, std::map<std::uintptr_t, std::size_t>& live) {
    const std::uintptr_t a = next_addr_;
    next_addr_ += (bytes + (std::uintptr_t{1} << 21)) & ~((std::uintptr_t{1} << 21) - 1);  // gaps between segments
    live[a] = bytes;
    return reinterpret_cast<void*>(a);
  }

  mutable std::mutex mutex_;
  std::size_t device_capacity_, pinned_capacity_, device_used_ = 0, pinned_used_ = 0;
  std::uintptr_t next_addr_ = std::uintptr_t{1} << 40;
  std::uintptr_t next_stream_ = 0x1000;
  std::map<std::uintptr_t, std::size_t> device_live_, pinned_live_;
  std::map<std::uintptr_t, std::pair<std::uintptr_t, std::uintptr_t>> registered_;
  std::set<Event*> events_;
  std::unordered_map<core::StreamHandle, std::uint64_t> done_upto_;
  std::uint64_t seq_ = 0;
};

}  // namespace ferry::test
