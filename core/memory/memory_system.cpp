#include "core/memory/memory_system.h"

#include <algorithm>
#include <thread>

#include "core/error.h"

namespace ferry::core {
namespace {

std::size_t to_size(std::uint64_t v) { return v > SIZE_MAX ? SIZE_MAX : static_cast<std::size_t>(v); }

// Arenas per allocator: enough that 8 threads rarely share a lock, few
// enough that per-arena segments waste little.
unsigned arena_count() { return std::clamp(std::thread::hardware_concurrency(), 2u, 8u); }

}  // namespace

MemorySystem::MemorySystem(std::shared_ptr<DeviceRuntime> runtime, const ContextOptions& options)
    : backend_(std::move(runtime)) {
  orphans_ = std::make_shared<OrphanSegments>(backend_);
  event_pool_ = std::make_unique<EventPool>(*backend_);
  timing_event_pool_ = std::make_unique<EventPool>(*backend_, /*timing=*/true);
  // Work of priority > 0 gets two streams of the greatest priority when the pool's are not.
  stream_pool_ = std::make_unique<StreamPool>(*backend_, options.stream_count, options.high_priority_streams != 0,
                                              /*high_priority_extra=*/2);
  PinnedPool::Options pinned;
  pinned.cap_bytes = to_size(options.pinned_cache_bytes);
  pinned.prealloc_bytes = to_size(options.pinned_prealloc_bytes);
  pinned.wait_at_cap = options.pinned_wait_at_cap != 0;
  pinned.arenas = arena_count();
  pinned_ = std::make_unique<PinnedPool>(*backend_, *event_pool_, pinned);
  registry_ = std::make_unique<HostRegistry>(*backend_, to_size(options.registry_cache_bytes));
  DeviceCache::Options device;
  device.max_cached_bytes = to_size(options.device_cache_bytes);
  device.arenas = arena_count();
  device.orphans = orphans_;
  device_ = std::make_unique<DeviceCache>(*backend_, *event_pool_, device);
}

MemorySystem::~MemorySystem() {
  // Reverse order of build: the caches give their memory back while the
  // streams and events they may wait on still exist.
  device_.reset();
  registry_.reset();
  pinned_.reset();
  stream_pool_.reset();
  timing_event_pool_.reset();
  event_pool_.reset();
}

std::size_t MemorySystem::trim(unsigned kinds) {
  FERRY_EXPECT(kinds != 0 && (kinds & ~static_cast<unsigned>(kMemoryAll)) == 0, Status::Unsupported,
               "kinds is ", kinds, ": expected a non-empty combination of pinned (1), ",
               "registered (2) and device (4)");
  std::size_t released = 0;
  if (kinds & kMemoryPinned) released += pinned_->trim();
  if (kinds & kMemoryRegistered) released += registry_->trim();
  if (kinds & kMemoryDevice) released += device_->trim();
  return released;
}

void MemorySystem::fill_stats(Stats& out) const {
  const AllocatorStats pinned = pinned_->stats();
  out.pinned_in_use_bytes = pinned.in_use_bytes;
  out.pinned_cached_bytes = pinned.cached_bytes;
  out.pinned_peak_bytes = pinned.peak_bytes;
  out.pinned_hits = pinned.hits;
  out.pinned_misses = pinned.misses;
  out.cuda_host_alloc_calls = backend_->has_streams() ? pinned.backend_calls : 0;
  out.cuda_host_alloc_ns = backend_->has_streams() ? pinned.backend_ns : 0;

  const HostRegistry::Stats reg = registry_->stats();
  out.registered_bytes = reg.registered_bytes;
  out.registered_peak_bytes = reg.registered_peak_bytes;
  out.registry_hits = reg.hits;
  out.registry_misses = reg.misses;
  out.cuda_host_register_calls = backend_->has_streams() ? reg.register_calls : 0;
  out.cuda_host_register_ns = backend_->has_streams() ? reg.register_ns : 0;

  const AllocatorStats device = device_->stats();
  out.device_in_use_bytes = device.in_use_bytes;
  out.device_cached_bytes = device.cached_bytes;
  out.device_peak_bytes = device.peak_bytes;
  out.device_hits = device.hits;
  out.device_misses = device.misses;
  out.cuda_malloc_calls = backend_->has_streams() ? device.backend_calls : 0;
  out.cuda_malloc_ns = backend_->has_streams() ? device.backend_ns : 0;
  out.resident_bytes = resident_->bytes.load(std::memory_order_relaxed);
  out.resident_datasets = resident_->datasets.load(std::memory_order_relaxed);
}

void MemorySystem::reset_counters() noexcept {
  pinned_->reset_counters();
  registry_->reset_counters();
  device_->reset_counters();
}

}  // namespace ferry::core
