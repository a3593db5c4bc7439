// InFlightGate: the bound on batches in flight. submit takes a place before
// any memory is committed and gives it back when the batch completes, so a
// caller submitting faster than the bus never makes ferry's memory grow.
// It also measures the busy time (wall time with at least one batch in
// flight) for the statistics. Pure C++, thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace ferry::core {

class InFlightGate {
 public:
  InFlightGate(int max_in_flight, std::atomic<std::uint64_t>& busy_ns)
      : max_(max_in_flight), busy_ns_(busy_ns) {}

  // Takes a place. When the gate is full: waits if `block`, else returns
  // false (Status::Busy for the caller). Throws Status::InvalidHandle
  // once the gate is closed (the context is being destroyed).
  bool enter(bool block);
  // Gives a place back (the batch completed or failed).
  void leave() noexcept;
  // Refuses new batches from now on and wakes blocked submitters.
  void close() noexcept;
  // Blocks until no batch is in flight.
  void wait_idle() noexcept;

  int in_flight() const;
  // Every place is taken: a submit may be waiting for the next one given back.
  bool full() const;
  int max_in_flight() const noexcept { return max_; }

 private:
  using Clock = std::chrono::steady_clock;
  const int max_;
  std::atomic<std::uint64_t>& busy_ns_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int in_flight_ = 0;
  bool closed_ = false;
  Clock::time_point busy_since_{};
};

}  // namespace ferry::core
