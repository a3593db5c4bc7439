#include "core/memory/memory_counters.h"

namespace ferry::core {

unsigned thread_arena_slot() noexcept {
  static std::atomic<unsigned> next{0};
  thread_local const unsigned slot = next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}

}  // namespace ferry::core
