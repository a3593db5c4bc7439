#include "core/memory/pinned_pool.h"

#include "core/checked_math.h"
#include "core/error.h"

namespace ferry::core {

StreamOrderedPool::Options PinnedPool::pool_options(const Options& options) {
  StreamOrderedPool::Options o;
  o.cap_bytes = options.cap_bytes;
  o.wait_at_cap = options.wait_at_cap;
  o.arenas = options.arenas;
  o.policy = options.policy;
  o.name = "pinned pool";
  o.cap_option = "pinned_cache_bytes";
  o.wait_option = "pinned_wait_at_cap";
  return o;
}

PinnedPool::PinnedPool(DeviceRuntime& backend, EventPool& events, Options options)
    : segments_(backend), pool_(segments_, events, pool_options(options)) {
  if (options.prealloc_bytes > 0) preallocate(options.prealloc_bytes, options.policy.large_quantum);
}

void PinnedPool::preallocate(std::size_t bytes, std::size_t large_quantum) {
  const auto size = static_cast<std::size_t>(
      checked_align_up(bytes, large_quantum, "pinned_prealloc_bytes"));
  FERRY_EXPECT(size <= pool_.cap_bytes(), Status::InvalidArgument, "pinned_prealloc_bytes is ", bytes,
               ": more than pinned_cache_bytes (", pool_.cap_bytes(), ")");
  FERRY_EXPECT(pool_.preallocate(size), Status::OutOfMemory, "pinned_prealloc_bytes is ", bytes, ": no memory for ", size,
               " pinned bytes (", segments_.method(), " failed)");
}

}  // namespace ferry::core
