// StreamOrderedPool: ferry's one caching allocator, for every kind of memory.
// The ordering logic lives here; the free-list policy is BlockArena's (size
// classes: SizePolicy); the memory comes from a PoolUpstream. The pinned pool,
// the device cache and the staging ring are instances (RMM's
// stream_ordered_memory_resource over its coalescing_free_list).
//
// Reuse after GPU work: StreamEpochs is the only mechanism.
//   - allocate(bytes, stream): a block freed on `stream` is reusable at once
//     (stream order covers it); device memory.
//   - allocate(bytes): only blocks whose work completed. Host code writes the
//     memory (pinned staging), so a block freed on a stream is reusable by no
//     one until an event recorded on that stream after the free completed and
//     promoted it to "any stream". No free ever carries this key.
//   - free(ptr): reusable everywhere at once (no GPU work uses it).
//   - free(ptr, stream): tagged with the stream's epoch, and an event is
//     recorded on the stream at the free. Not later, when another stream
//     wants the block: an event recorded then also covers the work queued
//     since, is rarely complete when polled, and the pool would grow instead
//     of reusing a block whose work finished long ago. Events are queried, or
//     waited for with an event synchronize: never a device-wide sync.
//
// Growth and bounds: new segments come from the upstream while in use +
// cached stays under cap_bytes. At the cap: blocks cached in other arenas,
// then wholly free segments given back, then (wait_at_cap) the oldest event
// in flight waited for, then Status::OutOfMemory. When the upstream is out of
// memory: every cached block goes back (waiting on events) and one retry.
// Free bytes beyond max_cached_bytes go back at free.
//
// Arenas, one per live thread (thread_arena_slot), each with its own lock,
// counters, BlockArena and StreamEpochs: a thread serves itself from its home
// arena and grows it; other arenas' blocks serve it only when no growth is
// possible. A block is freed to the arena that holds it. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/device/event_pool.h"
#include "core/memory/block_arena.h"
#include "core/memory/memory_counters.h"
#include "core/memory/orphan_segments.h"
#include "core/memory/pool_upstream.h"
#include "core/memory/stream_epochs.h"

namespace ferry::core {

class StreamOrderedPool {
 public:
  struct Options {
    std::size_t cap_bytes = SIZE_MAX;         // in use + cached
    bool wait_at_cap = false;                 // at the cap, wait for memory in flight
    std::size_t max_cached_bytes = SIZE_MAX;  // free bytes kept
    unsigned arenas = 8;
    SizePolicy policy;
    // At destruction, segments holding blocks held beyond the context's life
    // go here instead of back upstream; null: every segment goes back.
    std::shared_ptr<OrphanSegments> orphans;
    // For messages: the pool's name and its options' names.
    const char* name = "pool";
    const char* cap_option = "cap_bytes";
    const char* wait_option = "wait_at_cap";
  };

  StreamOrderedPool(PoolUpstream& upstream, EventPool& events, Options options);
  // Waits for the events recorded for blocks freed on streams, then gives
  // every segment back, blocks still handed out included (except orphans).
  ~StreamOrderedPool();
  StreamOrderedPool(const StreamOrderedPool&) = delete;
  StreamOrderedPool& operator=(const StreamOrderedPool&) = delete;

  // A block of at least `bytes`, aligned to 512, usable at once on `stream`.
  // Throws Status::InvalidArgument (0), Status::Overflow, Status::OutOfMemory.
  void* allocate(std::size_t bytes, StreamHandle stream);
  // A block no GPU work may still use (see above). Same errors.
  void* allocate(std::size_t bytes);
  // Like allocate(bytes), but nullptr where it would fail because the cap is
  // reached and no memory is in flight (memory in use elsewhere may come back).
  void* try_allocate(std::size_t bytes);
  // A block handed out and not freed, else Status::NotFound and nothing changes.
  void free(void* ptr);
  void free(void* ptr, StreamHandle stream);
  // Preallocation: a segment of `bytes` from the upstream, wholly free, in
  // arena 0, which then serves every thread before any grows. False when it
  // does not fit under the cap or the upstream has no memory for it.
  bool preallocate(std::size_t bytes);

  // Gives back every wholly free segment whose work completed (polled).
  std::size_t trim();
  bool owns(const void* ptr) const;  // the start of a block handed out
  bool contains(const void* ptr, std::size_t bytes) const;  // inside one segment
  std::uint64_t held_bytes() const noexcept { return held_.load(std::memory_order_relaxed); }
  std::size_t outstanding_events() const;
  AllocatorStats stats() const;
  void reset_counters() noexcept;  // hits, misses, calls; not the byte gauges
  std::size_t arena_count() const noexcept { return arenas_.size(); }
  std::size_t cap_bytes() const noexcept { return cap_.load(std::memory_order_relaxed); }
  // Lets the pool grow to `bytes` (a cap only ever rises): a client that
  // learns its working set as it goes (the staging ring).
  void raise_cap(std::size_t bytes) noexcept;
  std::string check_invariants() const;  // for tests: "" when all hold

 private:
  struct alignas(kArenaAlign) Arena {
    Arena(const SizePolicy& policy, EventPool& events) : blocks(policy), epochs(events) {}
    mutable std::mutex mutex;
    ArenaCounters counters;
    BlockArena blocks;
    StreamEpochs epochs;
  };
  enum class Growth { kGrown, kAtCap, kUpstreamFull };

  StreamKey key_of(StreamHandle stream) const noexcept;
  void* allocate_keyed(std::size_t bytes, StreamKey key, bool fail_at_cap);
  void* try_arena(Arena& arena, std::size_t rounded, StreamKey key, bool reclaim_first);
  void* try_other_arenas(const Arena& home, std::size_t rounded, StreamKey key);
  // Locked: frees whose work completed become reusable everywhere (wait: waits for all of them).
  void reclaim(Arena& arena, bool wait);
  void reclaim_stream(Arena& arena, StreamKey stream, bool wait);
  void release(void* ptr, StreamKey key);
  Growth grow(Arena& home, std::size_t rounded, StreamKey key, void*& out);
  void* retry_after_giving_back(Arena& home, std::size_t bytes, std::size_t rounded, StreamKey key);
  void* add_new_segment(Arena& home, void* segment, std::size_t size, std::size_t rounded, StreamKey key);
  bool reserve(std::size_t bytes) noexcept;
  void* upstream_allocate(std::size_t bytes);
  std::size_t release_free_segments(std::size_t bytes_wanted, bool wait);
  bool wait_for_oldest_in_flight();
  void enforce_max_cached();
  std::uint64_t in_use_now() const noexcept;
  Arena* find_locked(std::uintptr_t addr, std::unique_lock<std::mutex>& lock, ArenaBlock*& block);
  [[noreturn]] void fail_at_cap(std::size_t bytes, std::size_t rounded) const;

  PoolUpstream& upstream_;
  DeviceRuntime& runtime_;
  Options options_;
  const bool streams_;  // false on the CPU backend: all work is complete at once
  std::vector<std::unique_ptr<Arena>> arenas_;
  std::atomic<std::size_t> cap_;
  std::atomic<bool> shared_segment_{false};  // arena 0 holds a segment meant for every thread

  std::atomic<std::uint64_t> held_{0};  // changes only when segments come and go
  std::atomic<std::uint64_t> peak_{0};  // raised only when an arena reaches a new high
  CallCounter upstream_calls_;
};

}  // namespace ferry::core
