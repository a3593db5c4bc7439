#include "core/stage/staging_ring.h"

#include <algorithm>

#include "core/error.h"

namespace ferry::core {

StagingRing::StagingRing(PinnedPool& pool, DeviceRuntime& backend, EventPool& events, std::uint64_t max_bytes,
                         std::size_t slots_wanted)
    : pool_(pool), backend_(backend), events_(events), max_bytes_(max_bytes), slots_wanted_(slots_wanted) {}

StagingRing::~StagingRing() {
  std::unique_lock<std::mutex> lock(mutex_);
  released_.wait(lock, [&] { return waiting_on_events_ == 0; });
  for (auto& slot : slots_) {
    if (slot->pending) {
      try {
        backend_.event_synchronize(slot->event);
      } catch (...) {
        // A failed device: the copy is over either way.
      }
    }
    events_.release(slot->event);
    try {
      pool_.free(slot->data);
    } catch (...) {
    }
  }
}

StagingRing::Slot* StagingRing::take_free(std::size_t bytes) {
  Slot* best = nullptr;
  for (auto& slot : slots_) {
    if (slot->in_use || slot->bytes < bytes) continue;
    if (slot->pending) {
      if (!backend_.event_query(slot->event)) continue;
      slot->pending = false;
    }
    if (best == nullptr || slot->bytes < best->bytes) best = slot.get();
  }
  if (best != nullptr) best->in_use = true;
  return best;
}

void StagingRing::drop_free_slots() {
  for (auto it = slots_.begin(); it != slots_.end();) {
    Slot& slot = **it;
    if (!slot.in_use && (!slot.pending || backend_.event_query(slot.event))) {
      events_.release(slot.event);
      pool_.free(slot.data);
      held_ -= slot.bytes;
      it = slots_.erase(it);
    } else {
      ++it;
    }
  }
}

StagingRing::Slot* StagingRing::add_slot(std::size_t bytes) {
  auto slot = std::make_unique<Slot>();
  slot->bytes = bytes;
  slot->data = pool_.allocate(bytes);
  try {
    slot->event = events_.acquire();
  } catch (...) {
    pool_.free(slot->data);
    throw;
  }
  held_ += bytes;
  slots_.push_back(std::move(slot));
  return slots_.back().get();
}

StagingRing::Slot* StagingRing::acquire(std::size_t bytes) {
  FERRY_EXPECT(bytes <= max_bytes_, Status::OutOfMemory, "a staged chunk of ", bytes,
               " bytes (one sample at least) exceeds options->max_staging_bytes (", max_bytes_,
               "): raise it, or give a pinned or registered source");
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (Slot* slot = take_free(bytes)) return slot;
    if (held_ + bytes > max_bytes_) drop_free_slots();  // idle slots of the wrong size make room
    Slot* oldest = nullptr;
    for (auto& slot : slots_)
      if (slot->pending && slot->bytes >= bytes && (oldest == nullptr || slot->order < oldest->order))
        oldest = slot.get();
    const bool enough_slots = slots_.size() >= slots_wanted_ && oldest != nullptr;
    if (!enough_slots && held_ + bytes <= max_bytes_) {
      // The ring grows to the slots it wants at once, so the steady state
      // allocates nothing rather than a slot now and then as the pipeline
      // deepens. A batch's first chunk is its largest (the planner gives the
      // extra samples to the first chunks), so its later chunks fit these slots.
      Slot* slot = add_slot(bytes);
      slot->in_use = true;
      try {
        while (slots_.size() < slots_wanted_ && held_ + bytes <= max_bytes_) add_slot(bytes);
      } catch (...) {
        // Pinned memory ran short: the ring grows later, as it is needed.
      }
      return slot;
    }
    // At the bound (or with enough slots): wait for the oldest copy in flight, outside the lock.
    if (oldest == nullptr) {
      for (auto& slot : slots_)
        if (slot->pending && (oldest == nullptr || slot->order < oldest->order)) oldest = slot.get();
    }
    if (oldest == nullptr) {
      released_.wait(lock);  // every slot is being filled by another thread
      continue;
    }
    const EventHandle event = oldest->event;
    ++waiting_on_events_;
    lock.unlock();
    try {
      backend_.event_synchronize(event);
    } catch (...) {
      lock.lock();
      --waiting_on_events_;
      released_.notify_all();
      throw;
    }
    lock.lock();
    --waiting_on_events_;
    released_.notify_all();
  }
}

void StagingRing::release_after_copy(Slot* slot, StreamHandle stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    backend_.event_record(slot->event, stream);
  } catch (...) {
    // The copy may still be queued: keep the slot out of use rather than
    // risk overwriting it; it is given back when the ring is destroyed.
    slot->in_use = true;
    throw;
  }
  slot->in_use = false;
  slot->pending = true;
  slot->order = ++order_;
  released_.notify_all();
}

void StagingRing::release_unused(Slot* slot) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  slot->in_use = false;
  released_.notify_all();
}

std::uint64_t StagingRing::held_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

}  // namespace ferry::core
