#include "core/memory/stream_ordered_pool.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"

namespace ferry::core {

StreamOrderedPool::StreamOrderedPool(PoolUpstream& upstream, EventPool& events, Options options)
    : upstream_(upstream),
      runtime_(events.backend()),
      options_(std::move(options)),
      streams_(events.backend().has_streams()),
      cap_(options_.cap_bytes) {
  const unsigned n = std::max(1u, options_.arenas);
  arenas_.reserve(n);
  for (unsigned i = 0; i < n; ++i) arenas_.push_back(std::make_unique<Arena>(options_.policy, events));
}

StreamOrderedPool::~StreamOrderedPool() {
  for (auto& arena : arenas_) {
    std::lock_guard<std::mutex> lock(arena->mutex);
    try {
      arena->epochs.wait_all_recorded();  // a copy may still read pinned memory
    } catch (...) {
      // a dead context: nothing left to wait for
    }
    for (const SegmentSpan& s : arena->blocks.take_all_segments()) {
      if (options_.orphans != nullptr && options_.orphans->adopt(s.base, s.size)) continue;
      upstream_.deallocate(reinterpret_cast<void*>(s.base), s.size);
    }
  }
}

StreamKey StreamOrderedPool::key_of(StreamHandle stream) const noexcept {
  return streams_ ? reinterpret_cast<StreamKey>(stream) : kAnyStream;
}

void* StreamOrderedPool::allocate(std::size_t bytes, StreamHandle stream) {
  return allocate_keyed(bytes, key_of(stream), true);
}

void* StreamOrderedPool::allocate(std::size_t bytes) { return allocate_keyed(bytes, kAnyStream, true); }

void* StreamOrderedPool::try_allocate(std::size_t bytes) { return allocate_keyed(bytes, kAnyStream, false); }

void* StreamOrderedPool::allocate_keyed(std::size_t bytes, StreamKey key, bool fail_when_full) {
  const std::size_t rounded = options_.policy.round_request(bytes, "bytes");
  FERRY_EXPECT(rounded <= cap_bytes(), Status::OutOfMemory, "bytes is ", bytes, ": more than the ",
               options_.name, "'s cap, ", options_.cap_option, " = ", cap_bytes());
  Arena& home = *arenas_[thread_arena_slot() % arenas_.size()];
  auto hit = [&](void* p) {
    home.counters.hits.fetch_add(1, std::memory_order_relaxed);  // own arena: an uncontended line
    return p;
  };
  if (void* p = try_arena(home, rounded, key, false)) return hit(p);  // reusable now
  Arena& shared = *arenas_[0];
  for (;;) {
    // What completed work made reusable meanwhile.
    if (streams_)
      if (void* p = try_arena(home, rounded, key, true)) return hit(p);
    if (shared_segment_.load(std::memory_order_relaxed) && &shared != &home)
      if (void* p = try_arena(shared, rounded, key, streams_)) return hit(p);
    void* grown = nullptr;
    const Growth growth = grow(home, rounded, key, grown);
    if (growth == Growth::kGrown) {
      home.counters.misses.fetch_add(1, std::memory_order_relaxed);
      return grown;
    }
    // No room to grow: blocks other threads' arenas cache come first.
    if (void* p = try_other_arenas(home, rounded, key)) return hit(p);
    if (growth == Growth::kUpstreamFull) {
      home.counters.misses.fetch_add(1, std::memory_order_relaxed);
      return retry_after_giving_back(home, bytes, rounded, key);
    }
    // At the cap: room from wholly free segments, then memory in flight.
    if (release_free_segments(rounded, false) > 0) continue;
    if (options_.wait_at_cap && wait_for_oldest_in_flight()) continue;
    home.counters.misses.fetch_add(1, std::memory_order_relaxed);
    if (!fail_when_full) return nullptr;
    fail_at_cap(bytes, rounded);
  }
}

void* StreamOrderedPool::try_arena(Arena& arena, std::size_t rounded, StreamKey key, bool reclaim_first) {
  std::lock_guard<std::mutex> lock(arena.mutex);
  if (reclaim_first) reclaim(arena, false);
  ArenaBlock* b = arena.blocks.allocate(rounded, key);
  if (b == nullptr) return nullptr;
  note_allocated(arena.counters, arenas_, peak_, b->size);
  return reinterpret_cast<void*>(b->addr);
}

void* StreamOrderedPool::try_other_arenas(const Arena& home, std::size_t rounded, StreamKey key) {
  for (auto& arena : arenas_)
    if (arena.get() != &home)
      if (void* p = try_arena(*arena, rounded, key, streams_)) return p;
  return nullptr;
}

void StreamOrderedPool::reclaim_stream(Arena& arena, StreamKey stream, bool wait) {
  const std::uint64_t safe = wait ? arena.epochs.wait(stream) : arena.epochs.poll(stream);
  arena.blocks.promote(stream, safe);
  // Streams come and go (a caller's), so idle ones are forgotten; but only
  // beyond a few, so the pool's own streams keep their entry across reuses.
  if (arena.epochs.tracked_streams() > 16 && !arena.blocks.has_free_blocks_on(stream))
    arena.epochs.forget_if_idle(stream);
}

void StreamOrderedPool::reclaim(Arena& arena, bool wait) {
  for (StreamKey s : arena.blocks.streams_with_free_blocks()) reclaim_stream(arena, s, wait);
}

void StreamOrderedPool::raise_cap(std::size_t bytes) noexcept {
  std::size_t cap = cap_.load(std::memory_order_relaxed);
  while (bytes > cap && !cap_.compare_exchange_weak(cap, bytes, std::memory_order_relaxed)) {
  }
}

bool StreamOrderedPool::reserve(std::size_t bytes) noexcept {
  const std::size_t cap = cap_bytes();
  std::uint64_t held = held_.load(std::memory_order_relaxed);
  do {
    if (held > cap || bytes > cap - held) return false;
  } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  return true;
}

void* StreamOrderedPool::upstream_allocate(std::size_t bytes) {
  void* p = nullptr;
  try {
    CallTimer timer(upstream_calls_);
    p = upstream_.allocate(bytes);
  } catch (...) {
    held_.fetch_sub(bytes, std::memory_order_relaxed);
    throw;
  }
  if (p == nullptr) held_.fetch_sub(bytes, std::memory_order_relaxed);
  return p;
}

StreamOrderedPool::Growth StreamOrderedPool::grow(Arena& home, std::size_t rounded, StreamKey key, void*& out) {
  std::size_t segment = options_.policy.segment_size(rounded);
  if (!reserve(segment)) {
    segment = rounded;  // near the cap: a segment of exactly the request
    if (!reserve(segment)) return Growth::kAtCap;
  }
  void* p = nullptr;
  try {
    p = upstream_allocate(segment);
  } catch (...) {
    if (segment == rounded) throw;  // else the exact size may still fit; its failure is the one to report
  }
  if (p == nullptr && segment != rounded) {
    if (!reserve(rounded)) return Growth::kAtCap;
    p = upstream_allocate(segment = rounded);
  }
  if (p == nullptr) return Growth::kUpstreamFull;
  out = add_new_segment(home, p, segment, rounded, key);
  return Growth::kGrown;
}

void* StreamOrderedPool::retry_after_giving_back(Arena& home, std::size_t bytes, std::size_t rounded,
                                                 StreamKey key) {
  // Every cached block goes back (waiting on events, never the device), then one retry.
  const std::size_t released = release_free_segments(SIZE_MAX, true);
  void* p = reserve(rounded) ? upstream_allocate(rounded) : nullptr;
  if (p == nullptr)
    fail(Status::OutOfMemory, "bytes is ", bytes, ": no memory for a block of ", rounded, " bytes (",
         upstream_.method(), " failed, also after ferry gave back ", released,
         " cached bytes and retried); ferry holds ", held_.load(), " bytes in its ", options_.name, ", ",
         in_use_now(), " of them in use");
  return add_new_segment(home, p, rounded, rounded, key);
}

void* StreamOrderedPool::add_new_segment(Arena& home, void* segment, std::size_t size, std::size_t rounded,
                                         StreamKey key) {
  try {
    std::lock_guard<std::mutex> lock(home.mutex);
    ArenaBlock* b =
        home.blocks.allocate_from_new_segment(reinterpret_cast<std::uintptr_t>(segment), size, rounded, key);
    note_allocated(home.counters, arenas_, peak_, b->size);
    return segment;
  } catch (...) {
    upstream_.deallocate(segment, size);
    held_.fetch_sub(size, std::memory_order_relaxed);
    throw;
  }
}

bool StreamOrderedPool::preallocate(std::size_t bytes) {
  if (!reserve(bytes)) return false;
  void* p = upstream_allocate(bytes);
  if (p == nullptr) return false;
  Arena& shared = *arenas_[0];
  std::lock_guard<std::mutex> lock(shared.mutex);
  shared.blocks.add_free_segment(reinterpret_cast<std::uintptr_t>(p), bytes);
  shared_segment_.store(true, std::memory_order_relaxed);
  return true;
}

std::size_t StreamOrderedPool::release_free_segments(std::size_t bytes_wanted, bool wait) {
  std::size_t released = 0;
  const std::size_t n = arenas_.size();
  const std::size_t home = thread_arena_slot() % n;
  for (std::size_t i = 0; i < n && released < bytes_wanted; ++i) {
    Arena& arena = *arenas_[(home + i) % n];
    std::vector<SegmentSpan> spans;
    {
      std::lock_guard<std::mutex> lock(arena.mutex);
      if (streams_) reclaim(arena, wait);
      spans = arena.blocks.take_free_segments(bytes_wanted - released);
    }
    for (const SegmentSpan& s : spans) {  // out of the bookkeeping already: given back outside the lock
      upstream_.deallocate(reinterpret_cast<void*>(s.base), s.size);
      released += s.size;
      held_.fetch_sub(s.size, std::memory_order_relaxed);
    }
  }
  return released;
}

bool StreamOrderedPool::wait_for_oldest_in_flight() {
  for (auto& arena : arenas_) {
    EventHandle event = nullptr;
    {
      std::lock_guard<std::mutex> lock(arena->mutex);
      event = arena->epochs.oldest_outstanding();
    }
    if (event != nullptr) {
      // Outside the lock: others keep allocating and freeing meanwhile. If
      // another thread polls it back to the EventPool first, waiting on it is
      // still safe (the pool destroys events only when the context goes).
      runtime_.event_synchronize(event);
      return true;
    }
  }
  return false;
}

StreamOrderedPool::Arena* StreamOrderedPool::find_locked(std::uintptr_t addr, std::unique_lock<std::mutex>& lock,
                                                         ArenaBlock*& block) {
  const std::size_t n = arenas_.size();
  const std::size_t home = thread_arena_slot() % n;  // most blocks are freed by the thread that allocated them
  for (std::size_t i = 0; i < n; ++i) {
    Arena& a = *arenas_[(home + i) % n];
    std::unique_lock<std::mutex> l(a.mutex);
    if (ArenaBlock* b = a.blocks.find_allocated(addr)) {
      lock = std::move(l);
      block = b;
      return &a;
    }
  }
  return nullptr;
}

void StreamOrderedPool::free(void* ptr) { release(ptr, kAnyStream); }

void StreamOrderedPool::free(void* ptr, StreamHandle stream) { release(ptr, key_of(stream)); }

void StreamOrderedPool::release(void* ptr, StreamKey key) {
  {
    std::unique_lock<std::mutex> lock;
    ArenaBlock* b = nullptr;
    Arena* arena = find_locked(reinterpret_cast<std::uintptr_t>(ptr), lock, b);
    FERRY_EXPECT(arena != nullptr, Status::NotFound, "ptr is ", ptr, ": not a block of this context's ",
                 options_.name, " (never allocated by it, or freed already)");
    std::uint64_t epoch = 0;
    if (key != kAnyStream) {
      epoch = arena->epochs.note_free(key);
      arena->epochs.record(key);  // now: the event covers the work up to the free and no more
    }
    const std::size_t size = b->size;
    arena->blocks.release(b, key, epoch);
    arena->counters.in_use.fetch_sub(size, std::memory_order_relaxed);
    // Where nothing allocates (frees on a caller's stream), events pile up: poll them now and then.
    if (key != kAnyStream && arena->epochs.outstanding_events(key) > 64) reclaim_stream(*arena, key, false);
  }
  // cached <= held: while all that the pool holds fits under the bound, no arena needs reading.
  if (held_.load(std::memory_order_relaxed) > options_.max_cached_bytes) enforce_max_cached();
}

std::uint64_t StreamOrderedPool::in_use_now() const noexcept {
  std::uint64_t sum = 0;
  for (const auto& a : arenas_) sum += a->counters.in_use.load(std::memory_order_relaxed);
  return sum;
}

void StreamOrderedPool::enforce_max_cached() {
  // Not one snapshot: never let a race underflow into "everything is cached".
  const std::uint64_t in_use = in_use_now(), held = held_.load();
  const std::uint64_t cached = held > in_use ? held - in_use : 0;
  if (cached > options_.max_cached_bytes) release_free_segments(cached - options_.max_cached_bytes, false);
}

std::size_t StreamOrderedPool::trim() { return release_free_segments(SIZE_MAX, false); }

bool StreamOrderedPool::owns(const void* ptr) const {
  const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
  for (const auto& a : arenas_) {
    std::lock_guard<std::mutex> lock(a->mutex);
    if (a->blocks.find_allocated(addr) != nullptr) return true;
  }
  return false;
}

bool StreamOrderedPool::contains(const void* ptr, std::size_t bytes) const {
  const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
  for (const auto& a : arenas_) {
    std::lock_guard<std::mutex> lock(a->mutex);
    if (a->blocks.segment_contains(addr, bytes)) return true;
  }
  return false;
}

std::size_t StreamOrderedPool::outstanding_events() const {
  std::size_t n = 0;
  for (const auto& a : arenas_) {
    std::lock_guard<std::mutex> lock(a->mutex);
    n += a->epochs.outstanding_events();
  }
  return n;
}

AllocatorStats StreamOrderedPool::stats() const {
  return sum_arena_stats(arenas_, held_.load(std::memory_order_relaxed), peak_.load(std::memory_order_relaxed),
                         upstream_calls_);
}

void StreamOrderedPool::reset_counters() noexcept { reset_arena_counters(arenas_, upstream_calls_); }

void StreamOrderedPool::fail_at_cap(std::size_t bytes, std::size_t rounded) const {
  const AllocatorStats s = stats();
  const std::string why = options_.wait_at_cap
                              ? std::string("; no block is waiting on GPU work, so waiting cannot help")
                              : std::string("; ") + options_.wait_option + " is 0, so ferry does not wait for blocks in flight";
  fail(Status::OutOfMemory, "bytes is ", bytes, " (a block of ", rounded, "): the ", options_.name,
       " is at its cap, ", options_.cap_option, " = ", cap_bytes(), ", with ", s.in_use_bytes,
       " bytes in use and ", s.cached_bytes, " cached in blocks too small or still in flight", why);
}

std::string StreamOrderedPool::check_invariants() const {
  std::ostringstream err;
  std::uint64_t reserved = 0;
  for (const auto& a : arenas_) {
    std::lock_guard<std::mutex> lock(a->mutex);
    err << a->blocks.check_invariants();
    reserved += a->blocks.reserved_bytes();
    if (a->counters.in_use.load() != a->blocks.allocated_bytes())
      err << "an arena counts " << a->counters.in_use.load() << " bytes in use, its blocks "
          << a->blocks.allocated_bytes() << "; ";
  }
  // Read last: a quiet pool only (tests), where no segment comes or goes meanwhile.
  if (reserved != held_.load()) err << "the arenas hold " << reserved << " bytes, the pool counts " << held_.load() << "; ";
  return err.str();
}

}  // namespace ferry::core
