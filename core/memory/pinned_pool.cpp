#include "core/memory/pinned_pool.h"

#include <algorithm>

#include "core/checked_math.h"
#include "core/error.h"

namespace ferry::core {

PinnedPool::PinnedPool(DeviceRuntime& backend, EventPool& events, Options options)
    : backend_(backend), events_(events), options_(std::move(options)) {
  const unsigned n = std::max(1u, options_.arenas);
  for (unsigned i = 0; i < n; ++i) arenas_.push_back(std::make_unique<Arena>(options_.policy));
  if (options_.prealloc_bytes > 0) {
    const auto size = static_cast<std::size_t>(
        checked_align_up(options_.prealloc_bytes, options_.policy.large_quantum, "pinned_prealloc_bytes"));
    FERRY_EXPECT(size <= options_.cap_bytes, Status::InvalidArgument, "pinned_prealloc_bytes is ",
                 options_.prealloc_bytes, ": more than pinned_cache_bytes (", options_.cap_bytes, ")");
    void* p = backend_alloc(size);
    FERRY_EXPECT(p != nullptr, Status::OutOfMemory, "pinned_prealloc_bytes is ", options_.prealloc_bytes,
                 ": no memory for ", size, " pinned bytes (", backend_.pinned_method(), " failed)");
    arenas_[0]->blocks.add_free_segment(reinterpret_cast<std::uintptr_t>(p), size);
    held_.store(size);
  }
}

PinnedPool::~PinnedPool() {
  for (auto& arena : arenas_) {
    std::lock_guard<std::mutex> lock(arena->mutex);
    for (const Pending& p : arena->pending) {
      try {
        backend_.event_synchronize(p.event);  // a copy may still read the block
      } catch (...) {
        // a dead context: nothing left to wait for
      }
      events_.release(p.event);
    }
    arena->pending.clear();
    for (const SegmentSpan& s : arena->blocks.take_all_segments())
      backend_.pinned_free(reinterpret_cast<void*>(s.base), s.size);
  }
}

void* PinnedPool::backend_alloc(std::size_t bytes) {
  CallTimer timer(alloc_calls_);
  return backend_.pinned_alloc(bytes);
}

void PinnedPool::poll_pending(Arena& arena) {
  auto& pending = arena.pending;
  for (std::size_t i = 0; i < pending.size();) {
    if (backend_.event_query(pending[i].event)) {
      arena.blocks.release_pending(pending[i].block);
      events_.release(pending[i].event);
      pending[i] = pending.back();
      pending.pop_back();
    } else {
      ++i;
    }
  }
}

void* PinnedPool::try_arena(Arena& arena, std::size_t rounded, bool poll) {
  std::lock_guard<std::mutex> lock(arena.mutex);
  if (poll) poll_pending(arena);
  ArenaBlock* b = arena.blocks.allocate(rounded, kAnyStream);
  if (b == nullptr) return nullptr;
  note_allocated(arena.counters, arenas_, peak_, b->size);
  return reinterpret_cast<void*>(b->addr);
}

void* PinnedPool::try_other_arenas(const Arena& home, std::size_t rounded) {
  for (auto& arena : arenas_)
    if (arena.get() != &home)
      if (void* p = try_arena(*arena, rounded, true)) return p;
  return nullptr;
}

bool PinnedPool::reserve(std::size_t bytes) noexcept {
  std::uint64_t held = held_.load(std::memory_order_relaxed);
  do {
    if (held > options_.cap_bytes || bytes > options_.cap_bytes - held) return false;
  } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  return true;
}

void* PinnedPool::grow(Arena& home, std::size_t rounded, std::size_t bytes) {
  std::size_t segment = options_.policy.segment_size(rounded);
  if (!reserve(segment)) {
    segment = rounded;  // near the cap: a segment of exactly the request
    if (!reserve(segment)) return nullptr;
  }
  void* p = backend_alloc(segment);
  if (p == nullptr && segment != rounded) {
    held_.fetch_sub(segment - rounded, std::memory_order_relaxed);
    p = backend_alloc(segment = rounded);
  }
  if (p == nullptr) {
    held_.fetch_sub(segment, std::memory_order_relaxed);
    fail(Status::OutOfMemory, "bytes is ", bytes, ": no memory for ", segment, " pinned bytes (",
         backend_.pinned_method(), " failed; ferry holds ", held_.load(), " pinned bytes)");
  }
  try {
    std::lock_guard<std::mutex> lock(home.mutex);
    ArenaBlock* b = home.blocks.allocate_from_new_segment(reinterpret_cast<std::uintptr_t>(p), segment, rounded,
                                                          kAnyStream);
    note_allocated(home.counters, arenas_, peak_, b->size);
    return p;
  } catch (...) {
    backend_.pinned_free(p, segment);
    held_.fetch_sub(segment, std::memory_order_relaxed);
    throw;
  }
}

std::size_t PinnedPool::release_free_segments(std::size_t bytes_wanted) {
  std::size_t released = 0;
  for (auto& arena : arenas_) {
    if (released >= bytes_wanted) break;
    std::vector<SegmentSpan> spans;
    {
      std::lock_guard<std::mutex> lock(arena->mutex);
      poll_pending(*arena);
      spans = arena->blocks.take_free_segments(bytes_wanted - released);
    }
    for (const SegmentSpan& s : spans) {
      backend_.pinned_free(reinterpret_cast<void*>(s.base), s.size);
      released += s.size;
      held_.fetch_sub(s.size, std::memory_order_relaxed);
    }
  }
  return released;
}

bool PinnedPool::wait_for_one_pending() {
  for (auto& arena : arenas_) {
    EventHandle event = nullptr;
    {
      std::lock_guard<std::mutex> lock(arena->mutex);
      if (!arena->pending.empty()) event = arena->pending.front().event;
    }
    if (event != nullptr) {
      // Outside the lock: others keep allocating and freeing meanwhile. If
      // another thread polls it back to the EventPool first, waiting on it is
      // still safe (the pool destroys events only when the context goes).
      backend_.event_synchronize(event);
      return true;
    }
  }
  return false;
}

void PinnedPool::fail_at_cap(std::size_t bytes, std::size_t rounded) const {
  const AllocatorStats s = stats();
  fail(Status::OutOfMemory, "bytes is ", bytes, " (a block of ", rounded, "): the pinned pool is at its cap, ",
       "pinned_cache_bytes = ", options_.cap_bytes, ", with ", s.in_use_bytes, " bytes in use and ", s.cached_bytes,
       " cached in blocks too small or still in flight",
       options_.wait_at_cap ? "; no block is waiting on GPU work, so waiting cannot help"
                            : "; pinned_wait_at_cap is 0, so ferry does not wait for blocks in flight");
}

void* PinnedPool::allocate(std::size_t bytes) {
  const std::size_t rounded = options_.policy.round_request(bytes, "bytes");
  FERRY_EXPECT(rounded <= options_.cap_bytes, Status::OutOfMemory, "bytes is ", bytes,
               ": more than the pinned pool's cap, pinned_cache_bytes = ", options_.cap_bytes);
  Arena& home = home_arena();
  auto hit = [&](void* p) {
    home.counters.hits.fetch_add(1, std::memory_order_relaxed);  // own arena: an uncontended line
    return p;
  };
  if (void* p = try_arena(home, rounded, false)) return hit(p);
  Arena& shared = *arenas_[0];  // holds the preallocated segment, meant for every thread
  for (;;) {
    if (void* p = try_arena(home, rounded, true)) return hit(p);  // blocks whose copies completed meanwhile
    if (options_.prealloc_bytes > 0 && &shared != &home)
      if (void* p = try_arena(shared, rounded, true)) return hit(p);
    if (void* p = grow(home, rounded, bytes)) {
      home.counters.misses.fetch_add(1, std::memory_order_relaxed);
      return p;
    }
    // At the cap: blocks other threads' arenas cache, then room from their free segments.
    if (void* p = try_other_arenas(home, rounded)) return hit(p);
    if (release_free_segments(rounded) > 0) continue;
    if (options_.wait_at_cap && wait_for_one_pending()) continue;
    home.counters.misses.fetch_add(1, std::memory_order_relaxed);
    fail_at_cap(bytes, rounded);
  }
}

ArenaBlock* PinnedPool::find_locked(std::uintptr_t addr, std::unique_lock<std::mutex>& lock, Arena*& arena) {
  const std::size_t n = arenas_.size();
  const std::size_t home = thread_arena_slot() % n;  // most blocks are freed by the thread that allocated them
  for (std::size_t i = 0; i < n; ++i) {
    Arena& a = *arenas_[(home + i) % n];
    std::unique_lock<std::mutex> l(a.mutex);
    if (ArenaBlock* b = a.blocks.find_allocated(addr)) {
      lock = std::move(l);
      arena = &a;
      return b;
    }
  }
  return nullptr;
}

void PinnedPool::free(void* ptr) {
  std::unique_lock<std::mutex> lock;
  Arena* arena = nullptr;
  ArenaBlock* b = find_locked(reinterpret_cast<std::uintptr_t>(ptr), lock, arena);
  FERRY_EXPECT(b != nullptr, Status::NotFound, "ptr is ", ptr,
               ": not a block of this context's pinned pool (never allocated by it, or freed already)");
  const std::size_t size = b->size;
  arena->blocks.release(b, kAnyStream, 0);
  arena->counters.in_use.fetch_sub(size, std::memory_order_relaxed);
}

void PinnedPool::free_on_stream(void* ptr, StreamHandle stream) {
  if (!backend_.has_streams()) return free(ptr);  // CPU: all work is complete already
  EventLease event(events_);
  backend_.event_record(event.get(), stream);
  free_on_event(ptr, event.release());
}

void PinnedPool::free_on_event(void* ptr, EventHandle recorded_event) {
  EventLease event(events_, recorded_event);
  std::unique_lock<std::mutex> lock;
  Arena* arena = nullptr;
  ArenaBlock* b = find_locked(reinterpret_cast<std::uintptr_t>(ptr), lock, arena);
  FERRY_EXPECT(b != nullptr, Status::NotFound, "ptr is ", ptr,
               ": not a block of this context's pinned pool (never allocated by it, or freed already)");
  const std::size_t size = b->size;
  arena->blocks.mark_pending(b);
  arena->pending.push_back({b, event.release()});
  arena->counters.in_use.fetch_sub(size, std::memory_order_relaxed);
  if (arena->pending.size() > 64) poll_pending(*arena);  // keep the list short between allocations
}

bool PinnedPool::contains(const void* ptr, std::size_t bytes) const {
  const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
  for (const auto& arena : arenas_) {
    std::lock_guard<std::mutex> lock(arena->mutex);
    if (arena->blocks.segment_contains(addr, bytes)) return true;
  }
  return false;
}

std::size_t PinnedPool::trim() { return release_free_segments(SIZE_MAX); }

AllocatorStats PinnedPool::stats() const {
  return sum_arena_stats(arenas_, held_.load(std::memory_order_relaxed), peak_.load(std::memory_order_relaxed),
                         alloc_calls_);
}

void PinnedPool::reset_counters() noexcept { reset_arena_counters(arenas_, alloc_calls_); }

std::size_t PinnedPool::pending_count() const {
  std::size_t n = 0;
  for (const auto& arena : arenas_) {
    std::lock_guard<std::mutex> lock(arena->mutex);
    n += arena->pending.size();
  }
  return n;
}

std::string PinnedPool::check_invariants() const {
  std::string all;
  for (const auto& arena : arenas_) {
    std::lock_guard<std::mutex> lock(arena->mutex);
    all += arena->blocks.check_invariants();
  }
  return all;
}

}  // namespace ferry::core
