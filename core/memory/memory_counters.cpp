#include "core/memory/memory_counters.h"

#include <array>
#include <mutex>

namespace ferry::core {
namespace {

// Slots of the threads alive now. A thread takes the lowest free slot when it
// first allocates and gives it back when it exits, so N live threads hold N
// different slots (different arenas while N <= the arena count), also when a
// thread pool or a benchmark keeps replacing its threads. Touched once per
// thread, never on the allocation path.
class SlotRegistry {
 public:
  unsigned acquire() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (unsigned i = 0; i < used_.size(); ++i)
      if (!used_[i]) {
        used_[i] = true;
        return i;
      }
    return static_cast<unsigned>(used_.size()) + overflow_++;  // more live threads than slots: share
  }
  void release(unsigned slot) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot < used_.size()) used_[slot] = false;
  }

 private:
  std::mutex mutex_;
  std::array<bool, 1024> used_{};
  unsigned overflow_ = 0;
};

SlotRegistry& registry() {
  static auto* r = new SlotRegistry;  // never destroyed: threads may exit after static destructors ran
  return *r;
}

struct ThreadSlot {
  ThreadSlot() noexcept : slot(registry().acquire()) {}
  ~ThreadSlot() { registry().release(slot); }
  const unsigned slot;
};

}  // namespace

unsigned thread_arena_slot() noexcept {
  thread_local const ThreadSlot slot;
  return slot.slot;
}

}  // namespace ferry::core
