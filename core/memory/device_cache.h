// DeviceCache: ferry's caching, stream-ordered device allocator.
//
// Semantics (those of ferry_memory_alloc_device / ferry_memory_free_device):
//   - a block freed on stream S is reusable at once by allocations on S;
//   - on any other stream only after an event recorded on S after the free
//     has completed (StreamEpochs); never through a device-wide sync.
// Size classes, splitting and merging: SizePolicy and BlockArena.
// When cudaMalloc fails: every cached block is given back (waiting on the
// events of blocks freed on streams, which is not a device sync) and the
// allocation is retried once; then Status::OutOfMemory with the sizes.
// Bounded: free bytes held beyond max_cached_bytes are given back at free.
//
// Concurrency: the cache is split into arenas, each with its own lock and
// counters on its own cache lines, one per live thread (thread_arena_slot).
// A thread serves itself from its home arena and grows it with new segments;
// blocks cached in other arenas serve it only when the device is full, so
// threads do not contend in steady state. A block is freed to the arena that
// holds it.
// Every public method is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/memory/block_arena.h"
#include "core/device/device_runtime.h"
#include "core/memory/memory_counters.h"
#include "core/memory/orphan_segments.h"
#include "core/memory/stream_epochs.h"
#include "core/device/event_pool.h"

namespace ferry::core {

class DeviceCache {
 public:
  struct Options {
    std::size_t max_cached_bytes = std::size_t{2} << 30;  // free bytes kept (device_cache_bytes)
    // Streams that live as long as the cache (the context's pool): frees on
    // them record their event lazily. NULL (the legacy default stream) always
    // counts as one; every other stream gets an event at each free.
    std::vector<StreamHandle> long_lived_streams;
    unsigned arenas = 8;
    SizePolicy policy = SizePolicy::device();
    // At destruction, segments holding blocks held beyond the context's life
    // go here instead of back to the backend; null: every segment is freed.
    std::shared_ptr<OrphanSegments> orphans;
  };

  DeviceCache(DeviceRuntime& backend, EventPool& events, Options options);
  // Gives every segment back, blocks still handed out included, except the
  // segments Options::orphans adopts.
  ~DeviceCache();
  DeviceCache(const DeviceCache&) = delete;
  DeviceCache& operator=(const DeviceCache&) = delete;

  // A block of at least `bytes` (aligned to 512), usable at once on `stream`.
  // Throws Status::InvalidArgument (0), Status::Overflow, Status::OutOfMemory.
  void* allocate(std::size_t bytes, StreamHandle stream);
  // Gives a block back in the order of `stream` (see above). A pointer this
  // cache did not hand out, or freed already: Status::NotFound, nothing changed.
  void free(void* ptr, StreamHandle stream);
  // Gives back every wholly free segment whose blocks' work has completed
  // (polled, never waited for). Returns the bytes given back.
  std::size_t trim();
  // Whether ptr is the start of a block handed out and not freed.
  bool owns(const void* ptr) const;

  AllocatorStats stats() const;
  void reset_counters() noexcept;  // hits, misses, calls; not the byte gauges
  std::size_t arena_count() const noexcept { return arenas_.size(); }
  // For tests: "" when every arena's invariants hold.
  std::string check_invariants() const;

 private:
  struct alignas(kArenaAlign) Arena {
    Arena(const SizePolicy& policy, EventPool& events) : blocks(policy), epochs(events) {}
    mutable std::mutex mutex;
    ArenaCounters counters;
    BlockArena blocks;
    StreamEpochs epochs;
  };

  StreamKey key_of(StreamHandle stream) const noexcept;
  bool is_long_lived(StreamHandle stream) const noexcept;
  ArenaBlock* try_cached(Arena& arena, std::size_t rounded, StreamKey key, bool reclaim);
  void reclaim(Arena& arena, bool wait);  // makes completed frees reusable everywhere
  void* grow(Arena& home, std::size_t bytes, std::size_t rounded, StreamKey key);
  std::uint64_t in_use_now() const noexcept;
  std::size_t release_free_segments(Arena& arena, std::size_t bytes_wanted, bool wait);
  void enforce_cap();
  std::uint64_t cached_now() const noexcept;
  void* backend_malloc(std::size_t bytes);

  DeviceRuntime& backend_;
  EventPool& events_;
  Options options_;
  bool streams_;  // false on the CPU backend: every stream is the same
  std::vector<std::unique_ptr<Arena>> arenas_;

  std::atomic<std::uint64_t> reserved_{0};  // changes only when segments come and go
  std::atomic<std::uint64_t> peak_{0};      // raised only when an arena reaches a new high
  CallCounter malloc_calls_;
};

}  // namespace ferry::core
