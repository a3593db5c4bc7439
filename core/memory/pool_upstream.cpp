#include "core/memory/pool_upstream.h"

#include "core/memory/pinned_pool.h"

namespace ferry::core {

void* PinnedPoolBlocks::allocate(std::size_t bytes) { return pool_.allocate(bytes); }

void PinnedPoolBlocks::deallocate(void* segment, std::size_t) noexcept {
  try {
    pool_.free(segment);
  } catch (...) {
    // Not a block of the pool: nothing to give back.
  }
}

}  // namespace ferry::core
