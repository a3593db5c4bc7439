#include "core/device/event_pool.h"

namespace ferry::core {

EventPool::~EventPool() {
  for (EventHandle e : idle_) backend_.event_destroy(e);
}

EventHandle EventPool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      EventHandle e = idle_.back();
      idle_.pop_back();
      return e;
    }
  }
  EventHandle e = backend_.event_create(timing_);  // outside the lock: creation is slow
  std::lock_guard<std::mutex> lock(mutex_);
  ++created_;
  return e;
}

void EventPool::release(EventHandle event) noexcept {
  if (event == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    idle_.push_back(event);
  } catch (...) {
    backend_.event_destroy(event);  // no memory to keep it: destroy rather than leak
  }
}

std::uint64_t EventPool::created() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return created_;
}

std::size_t EventPool::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

}  // namespace ferry::core
