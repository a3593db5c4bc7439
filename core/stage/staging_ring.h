// StagingRing: the bounded set of pinned buffers that pageable sources are
// gathered into before their DMA. Buffers come from the context's PinnedPool
// once and are kept, so the steady state allocates nothing; each buffer has an
// event, recorded after the copy that reads it, and is reused only once that
// copy completed. The ring never holds more than max_bytes: at the bound an
// acquire waits for the oldest copy in flight (an event, never a device sync).
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/device/device_runtime.h"
#include "core/memory/pinned_pool.h"
#include "core/device/event_pool.h"

namespace ferry::core {

class StagingRing {
 public:
  struct Slot {
    void* data = nullptr;
    std::size_t bytes = 0;
    EventHandle event = nullptr;  // recorded after the copy that last read the slot
    bool in_use = false;          // handed out by acquire, not yet given back
    bool pending = false;         // given back after a copy; reusable once `event` completed
    std::uint64_t order = 0;      // when it was given back: the oldest pending is waited for first
  };

  // max_bytes: the hard bound. slots_wanted: how many buffers keep the copies
  // busy (the streams plus two); beyond it an acquire waits for the oldest
  // copy rather than grow the ring, so the steady state stops allocating early.
  StagingRing(PinnedPool& pool, DeviceRuntime& backend, EventPool& events, std::uint64_t max_bytes,
              std::size_t slots_wanted = 6);
  // Waits for the copies still reading slots, then gives the buffers back.
  ~StagingRing();
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  // A slot of at least `bytes`. Throws Status::OutOfMemory when bytes
  // exceeds max_bytes (the message names options->max_staging_bytes), or what
  // the pinned pool throws.
  Slot* acquire(std::size_t bytes);
  // Gives the slot back after a copy from it was queued on `stream`.
  void release_after_copy(Slot* slot, StreamHandle stream);
  // Gives the slot back unused (an error before its copy was queued).
  void release_unused(Slot* slot) noexcept;

  std::uint64_t max_bytes() const noexcept { return max_bytes_; }
  std::uint64_t held_bytes() const;

 private:
  Slot* take_free(std::size_t bytes);  // locked
  Slot* add_slot(std::size_t bytes);   // locked; a new idle slot, counted in held_
  void drop_free_slots();              // locked; gives back idle slots too small to serve

  PinnedPool& pool_;
  DeviceRuntime& backend_;
  EventPool& events_;
  const std::uint64_t max_bytes_;
  const std::size_t slots_wanted_;
  mutable std::mutex mutex_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::uint64_t held_ = 0;
  std::uint64_t order_ = 0;
  int waiting_on_events_ = 0;
};

}  // namespace ferry::core
