// DeviceCache: ferry's caching, stream-ordered device allocator, one
// instance of StreamOrderedPool over DeviceSegments.
//
// Semantics (those of ferry_memory_alloc_device / ferry_memory_free_device):
//   - a block freed on stream S is reusable at once by allocations on S;
//   - on any other stream only after an event recorded on S after the free
//     has completed (StreamEpochs), an event recorded at the free; never
//     through a device-wide sync.
// Size classes, splitting and merging: SizePolicy and BlockArena.
// When cudaMalloc fails: every cached block is given back (waiting on the
// events of blocks freed on streams, which is not a device sync) and the
// allocation is retried once; then Status::OutOfMemory with the sizes.
// Bounded: free bytes held beyond max_cached_bytes are given back at free.
//
// Arenas, one per live thread, as StreamOrderedPool's: threads do not
// contend in steady state. Every public method is thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/memory/orphan_segments.h"
#include "core/memory/stream_ordered_pool.h"

namespace ferry::core {

class DeviceCache {
 public:
  struct Options {
    std::size_t max_cached_bytes = std::size_t{2} << 30;  // free bytes kept (device_cache_bytes)
    unsigned arenas = 8;
    SizePolicy policy = SizePolicy::device();
    // At destruction, segments holding blocks held beyond the context's life
    // go here instead of back to the backend; null: every segment is freed.
    std::shared_ptr<OrphanSegments> orphans;
  };

  DeviceCache(DeviceRuntime& backend, EventPool& events, Options options);
  // Gives every segment back, blocks still handed out included, except the
  // segments Options::orphans adopts.
  ~DeviceCache() = default;
  DeviceCache(const DeviceCache&) = delete;
  DeviceCache& operator=(const DeviceCache&) = delete;

  // A block of at least `bytes` (aligned to 512), usable at once on `stream`.
  // Throws Status::InvalidArgument (0), Status::Overflow, Status::OutOfMemory.
  void* allocate(std::size_t bytes, StreamHandle stream) { return pool_.allocate(bytes, stream); }
  // Gives a block back in the order of `stream` (see above). A pointer this
  // cache did not hand out, or freed already: Status::NotFound, nothing changed.
  void free(void* ptr, StreamHandle stream) { pool_.free(ptr, stream); }
  // Gives back every wholly free segment whose blocks' work has completed
  // (polled, never waited for). Returns the bytes given back.
  std::size_t trim() { return pool_.trim(); }
  // Whether ptr is the start of a block handed out and not freed.
  bool owns(const void* ptr) const { return pool_.owns(ptr); }

  AllocatorStats stats() const { return pool_.stats(); }
  void reset_counters() noexcept { pool_.reset_counters(); }  // hits, misses, calls; not the byte gauges
  std::size_t arena_count() const noexcept { return pool_.arena_count(); }
  // For tests: "" when every arena's invariants hold.
  std::string check_invariants() const { return pool_.check_invariants(); }

 private:
  static StreamOrderedPool::Options pool_options(Options options);

  DeviceSegments segments_;
  StreamOrderedPool pool_;
};

}  // namespace ferry::core
