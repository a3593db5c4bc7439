#include "core/memory/device_cache.h"

namespace ferry::core {

StreamOrderedPool::Options DeviceCache::pool_options(Options options) {
  StreamOrderedPool::Options o;
  o.max_cached_bytes = options.max_cached_bytes;
  o.long_lived_streams = std::move(options.long_lived_streams);
  o.lazy_events = true;  // device memory is only ever used in stream order: a later event is as good
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
