// MemorySystem: the memory and stream subsystems of one context, built from
// the context options, in dependency order:
//   (the context's runtime) -> event pools -> stream pool -> pinned pool -> registry -> device cache
// and destroyed in reverse. The staging pipeline and the C API use these
// accessors; every object they return is thread-safe and lives as long as
// the context.
//
// What the pipeline uses:
//   stream_pool().acquire()                  a pool stream, round-robin
//   event_pool().acquire()/release(e)        events without creating any in steady state
//   pinned_pool().allocate/free/free_on_stream   pinned blocks (the staging ring's too)
//   is_ferry_pinned(ptr, bytes)              source already in ferry's pinned memory?
//   registry().lookup_or_register(ptr, bytes, true) ... registry().unpin(ptr, bytes)
//   device_cache().allocate(bytes, stream) / free(ptr, stream)
#pragma once

#include <memory>

#include "core/memory/device_cache.h"
#include "core/memory/host_registry.h"
#include "core/memory/memory_counters.h"
#include "core/device/device_runtime.h"
#include "core/memory/orphan_segments.h"
#include "core/memory/pinned_pool.h"
#include "core/device/event_pool.h"
#include "core/device/stream_pool.h"
#include "core/context_options.h"
#include "core/stats.h"

namespace ferry::core {

// The kinds of memory a trim gives back (bits; the values of the C ABI's FERRY_MEMORY_* kinds).
enum MemoryKind : unsigned { kMemoryPinned = 1, kMemoryRegistered = 2, kMemoryDevice = 4, kMemoryAll = 7 };

class MemorySystem {
 public:
  // On the context's runtime (tests: a fake one); shared, because memory a
  // caller still holds after the context is destroyed is freed through it.
  MemorySystem(std::shared_ptr<DeviceRuntime> runtime, const ContextOptions& options);
  ~MemorySystem();
  MemorySystem(const MemorySystem&) = delete;
  MemorySystem& operator=(const MemorySystem&) = delete;

  DeviceRuntime& runtime() noexcept { return *backend_; }
  EventPool& event_pool() noexcept { return *event_pool_; }
  EventPool& timing_event_pool() noexcept { return *timing_event_pool_; }  // events elapsed_ms can time
  StreamPool& stream_pool() noexcept { return *stream_pool_; }
  PinnedPool& pinned_pool() noexcept { return *pinned_; }
  HostRegistry& registry() noexcept { return *registry_; }
  DeviceCache& device_cache() noexcept { return *device_; }
  const PinnedPool& pinned_pool() const noexcept { return *pinned_; }
  const HostRegistry& registry() const noexcept { return *registry_; }
  const DeviceCache& device_cache() const noexcept { return *device_; }
  // Where device blocks held beyond the context's life go when it is destroyed
  // (see orphan_segments.h); shared, so holders may outlive this object.
  const std::shared_ptr<OrphanSegments>& orphans() const noexcept { return orphans_; }
  // What resident datasets hold (ferry_stats.resident_bytes, resident_datasets).
  const std::shared_ptr<ResidentGauge>& resident_gauge() const noexcept { return resident_; }
  // The runtime, for memory freed after the context (a resident dataset's).
  const std::shared_ptr<DeviceRuntime>& shared_runtime() const noexcept { return backend_; }

  // Whether [ptr, ptr + bytes) lies in pinned memory ferry_memory_alloc_host handed out.
  bool is_ferry_pinned(const void* ptr, std::size_t bytes) const { return pinned_->contains(ptr, bytes); }

  // Trim: kinds is a non-empty set of MemoryKind bits;
  // anything else is Status::Unsupported. Returns the bytes given back.
  std::size_t trim(unsigned kinds);
  // Fills the memory fields of Stats (the pipeline's are the caller's).
  void fill_stats(Stats& out) const;
  void reset_counters() noexcept;

 private:

  std::shared_ptr<DeviceRuntime> backend_;  // shared with orphans_, which may outlive the context
  std::shared_ptr<OrphanSegments> orphans_;
  std::unique_ptr<EventPool> event_pool_, timing_event_pool_;
  std::unique_ptr<StreamPool> stream_pool_;
  std::unique_ptr<PinnedPool> pinned_;
  std::unique_ptr<HostRegistry> registry_;
  std::unique_ptr<DeviceCache> device_;
  std::shared_ptr<ResidentGauge> resident_ = std::make_shared<ResidentGauge>();
};

}  // namespace ferry::core
