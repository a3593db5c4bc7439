#include "core/memory/device_cache.h"

namespace ferry::core {

StreamOrderedPool::Options DeviceCache::pool_options(Options options) {
  StreamOrderedPool::Options o;
  o.max_cached_bytes = options.max_cached_bytes;
  o.arenas = options.arenas;
  o.policy = options.policy;
  o.orphans = std::move(options.orphans);
  o.name = "device cache";
  o.cap_option = "device memory";
  return o;
}

DeviceCache::DeviceCache(DeviceRuntime& backend, EventPool& events, Options options)
    : segments_(backend), pool_(segments_, events, pool_options(std::move(options))) {}

}  // namespace ferry::core
