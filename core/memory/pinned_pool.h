// PinnedPool: ferry's caching pinned (page-locked) host allocator.
//
// - Blocks come from segments the backend allocated (cudaHostAlloc, or
//   malloc + pre-fault + cudaHostRegister: see CudaRuntime), in the size
//   classes of SizePolicy::pinned() (512 B granularity, splitting, merging).
// - Stream-aware reuse: a block given back with free_on_stream/free_on_event
//   is pending until that event completed (queried, never a device sync);
//   only then may anyone reuse it. free() gives a block back for reuse at once.
// - Bounded: in-use + cached bytes never exceed cap_bytes. At the cap an
//   allocation first gives back wholly free segments, then (wait_at_cap) waits
//   for one in-flight block's event and tries again, else fails with
//   Status::OutOfMemory naming the cap and the sizes.
// - Pending blocks count as cached, not in use.
//
// Arenas with their own locks and counters, one per live thread (see
// thread_arena_slot): a thread serves itself from its home arena and grows it
// with new segments while under the cap; only at the cap does it take blocks
// cached in other arenas (the preallocated segment, in arena 0, serves every
// thread before any growth). A block is freed to the arena that holds it.
// Every public method is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/memory/block_arena.h"
#include "core/device/device_runtime.h"
#include "core/memory/memory_counters.h"
#include "core/device/event_pool.h"

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
  // Waits for the events of pending blocks (copies in flight), then gives
  // every segment back, blocks still handed out included.
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  // A pinned block of at least `bytes`, aligned to 512. Throws
  // Status::InvalidArgument (0), Status::Overflow, Status::OutOfMemory.
  void* allocate(std::size_t bytes);
  // Gives a block back, reusable at once (no GPU work uses it any more).
  void free(void* ptr);
  // Gives a block back that work queued on `stream` so far may still use: an
  // event is recorded on `stream` now and the block is reused once it completed.
  void free_on_stream(void* ptr, StreamHandle stream);
  // Same, with an event the caller recorded (from the context's EventPool):
  // the pool takes it in every case (also on error) and gives it back to
  // the EventPool once it completed.
  void free_on_event(void* ptr, EventHandle recorded_event);
  // Whether [ptr, ptr + bytes) lies inside one pinned segment of this pool.
  bool contains(const void* ptr, std::size_t bytes) const;
  // Gives back wholly free segments (pending blocks polled, not waited for).
  std::size_t trim();

  AllocatorStats stats() const;
  void reset_counters() noexcept;
  std::size_t pending_count() const;
  const char* method() const noexcept { return backend_.pinned_method(); }
  std::size_t cap_bytes() const noexcept { return options_.cap_bytes; }
  std::string check_invariants() const;  // for tests

 private:
  struct Pending {
    ArenaBlock* block;
    EventHandle event;
  };
  struct alignas(kArenaAlign) Arena {
    explicit Arena(const SizePolicy& policy) : blocks(policy) {}
    mutable std::mutex mutex;
    ArenaCounters counters;
    BlockArena blocks;
    std::vector<Pending> pending;
  };

  Arena& home_arena() const noexcept { return *arenas_[thread_arena_slot() % arenas_.size()]; }
  void poll_pending(Arena& arena);  // arena locked
  void* try_arena(Arena& arena, std::size_t rounded, bool poll);
  void* try_other_arenas(const Arena& home, std::size_t rounded);
  void* grow(Arena& home, std::size_t rounded, std::size_t bytes);
  bool reserve(std::size_t bytes) noexcept;
  std::size_t release_free_segments(std::size_t bytes_wanted);
  bool wait_for_one_pending();
  void* backend_alloc(std::size_t bytes);
  ArenaBlock* find_locked(std::uintptr_t addr, std::unique_lock<std::mutex>& lock, Arena*& arena);
  [[noreturn]] void fail_at_cap(std::size_t bytes, std::size_t rounded) const;

  DeviceRuntime& backend_;
  EventPool& events_;
  Options options_;
  std::vector<std::unique_ptr<Arena>> arenas_;

  std::atomic<std::uint64_t> held_{0};  // changes only when segments come and go
  std::atomic<std::uint64_t> peak_{0};  // raised only when an arena reaches a new high
  CallCounter alloc_calls_;
};

}  // namespace ferry::core
