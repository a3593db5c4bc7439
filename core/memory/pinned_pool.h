// PinnedPool: ferry's caching pinned (page-locked) host allocator, one
// instance of StreamOrderedPool over PinnedSegments.
//
// - Blocks come from segments the backend allocated (cudaHostAlloc, or
//   malloc + pre-fault + cudaHostRegister: see CudaRuntime), in the size
//   classes of SizePolicy::pinned() (512 B granularity, splitting, merging).
// - Host code writes pinned memory, so a block given back with free_on_stream
//   is reused by no one until an event recorded on that stream at the free
//   completed (queried, never a device sync); free() gives a block back for
//   reuse at once. The event is recorded at the free: a later one would also
//   cover the kernels queued after a staging copy, and hold the block longer.
// - Bounded: in-use + cached bytes never exceed cap_bytes. At the cap an
//   allocation first gives back wholly free segments, then (wait_at_cap) waits
//   for the oldest block in flight and tries again, else fails with
//   Status::OutOfMemory naming the cap and the sizes.
// - Blocks in flight count as cached, not in use.
//
// Arenas, one per live thread, as StreamOrderedPool's; the preallocated
// segment, in arena 0, serves every thread before any growth.
// Every public method is thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "core/memory/stream_ordered_pool.h"

namespace ferry::core {

class PinnedPool {
 public:
  struct Options {
    std::size_t cap_bytes = std::size_t{1} << 30;  // pinned_cache_bytes: in use + cached
    std::size_t prealloc_bytes = 0;                // pinned_prealloc_bytes, allocated at construction
    bool wait_at_cap = true;                       // pinned_wait_at_cap
    unsigned arenas = 8;
    SizePolicy policy = SizePolicy::pinned();
  };

  PinnedPool(DeviceRuntime& backend, EventPool& events, Options options);
  // Waits for the blocks in flight (copies may still read them), then gives
  // every segment back, blocks still handed out included.
  ~PinnedPool() = default;
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  // A pinned block of at least `bytes`, aligned to 512, that no GPU work
  // uses. Throws Status::InvalidArgument (0), Status::Overflow, Status::OutOfMemory.
  void* allocate(std::size_t bytes) { return pool_.allocate(bytes); }
  // Gives a block back, reusable at once (no GPU work uses it any more).
  void free(void* ptr) { pool_.free(ptr); }
  // Gives a block back that work queued on `stream` so far may still use: an
  // event is recorded on `stream` now and the block is reused once it completed.
  void free_on_stream(void* ptr, StreamHandle stream) { pool_.free(ptr, stream); }
  // Whether [ptr, ptr + bytes) lies inside one pinned segment of this pool.
  bool contains(const void* ptr, std::size_t bytes) const { return pool_.contains(ptr, bytes); }
  // Gives back wholly free segments (blocks in flight polled, not waited for).
  std::size_t trim() { return pool_.trim(); }

  AllocatorStats stats() const { return pool_.stats(); }
  void reset_counters() noexcept { pool_.reset_counters(); }
  // Events recorded for blocks in flight and not yet seen complete.
  std::size_t pending_count() const { return pool_.outstanding_events(); }
  const char* method() const noexcept { return segments_.method(); }
  std::size_t cap_bytes() const noexcept { return pool_.cap_bytes(); }
  std::string check_invariants() const { return pool_.check_invariants(); }  // for tests

 private:
  static StreamOrderedPool::Options pool_options(const Options& options);
  void preallocate(std::size_t bytes, std::size_t large_quantum);

  PinnedSegments segments_;
  StreamOrderedPool pool_;
};

}  // namespace ferry::core
