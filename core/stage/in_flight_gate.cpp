#include "core/stage/in_flight_gate.h"

#include "core/error.h"

namespace ferry::core {

bool InFlightGate::enter(bool block) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    FERRY_EXPECT(!closed_, Status::InvalidHandle, "ctx is being destroyed: no new batch is accepted");
    if (in_flight_ < max_) break;
    if (!block) return false;
    changed_.wait(lock);
  }
  if (in_flight_++ == 0) busy_since_ = Clock::now();
  return true;
}

void InFlightGate::leave() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--in_flight_ == 0) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - busy_since_).count();
      busy_ns_.fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
    }
  }
  changed_.notify_all();
}

void InFlightGate::close() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

void InFlightGate::wait_idle() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return in_flight_ == 0; });
}

int InFlightGate::in_flight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_;
}

bool InFlightGate::full() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_ >= max_;
}

}  // namespace ferry::core
