// EventPool: events are created once and reused, so ferry's steady state
// creates no CUDA events (cudaEventCreate/Destroy cost microseconds each and
// serialize in the driver). A pool's events are all timing events or all
// plain ones (cheaper; most of ferry's events only order work).
//
// Thread-safe. On the CPU backend the "events" are tokens that are always
// complete (see HostRuntime).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "core/device/device_runtime.h"

namespace ferry::core {

class EventPool {
 public:
  explicit EventPool(DeviceRuntime& backend, bool timing = false) : backend_(backend), timing_(timing) {}
  // Destroys the events it holds. Events still borrowed then are leaked on
  // purpose (a borrower outliving the pool is a bug; destroying its event
  // under it would be worse).
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // An idle event, created only when none is idle. The caller records it and
  // gives it back with release (after it completed, or not: recording an
  // event again is always allowed).
  EventHandle acquire();
  void release(EventHandle event) noexcept;

  std::uint64_t created() const;  // events created over the pool's life
  std::size_t idle() const;       // events waiting in the pool
  DeviceRuntime& backend() const noexcept { return backend_; }

 private:
  DeviceRuntime& backend_;
  const bool timing_;
  mutable std::mutex mutex_;
  std::vector<EventHandle> idle_;
  std::uint64_t created_ = 0;
};

// Borrows an event for a scope; release() hands the event on instead.
class EventLease {
 public:
  explicit EventLease(EventPool& pool) : pool_(&pool), event_(pool.acquire()) {}
  // Adopts an event borrowed from `pool` earlier.
  EventLease(EventPool& pool, EventHandle adopted) noexcept : pool_(&pool), event_(adopted) {}
  ~EventLease() {
    if (event_ != nullptr) pool_->release(event_);
  }
  EventLease(EventLease&& other) noexcept
      : pool_(other.pool_), event_(std::exchange(other.event_, nullptr)) {}
  EventLease(const EventLease&) = delete;
  EventLease& operator=(const EventLease&) = delete;
  EventLease& operator=(EventLease&&) = delete;

  EventHandle get() const noexcept { return event_; }
  EventHandle release() noexcept { return std::exchange(event_, nullptr); }

 private:
  EventPool* pool_;
  EventHandle event_;
};

}  // namespace ferry::core
