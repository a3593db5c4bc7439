#include "core/memory/device_cache.h"

#include <algorithm>

#include "core/error.h"

namespace ferry::core {

DeviceCache::DeviceCache(DeviceRuntime& backend, EventPool& events, Options options)
    : backend_(backend), events_(events), options_(std::move(options)), streams_(backend.has_streams()) {
  const unsigned n = std::max(1u, options_.arenas);
  arenas_.reserve(n);
  for (unsigned i = 0; i < n; ++i) arenas_.push_back(std::make_unique<Arena>(options_.policy, events_));
}

DeviceCache::~DeviceCache() {
  for (auto& arena : arenas_) {
    std::lock_guard<std::mutex> lock(arena->mutex);
    for (const SegmentSpan& s : arena->blocks.take_all_segments()) {
      if (options_.orphans != nullptr && options_.orphans->adopt(s.base, s.size)) continue;
      backend_.device_free(reinterpret_cast<void*>(s.base));
    }
  }
}

StreamKey DeviceCache::key_of(StreamHandle stream) const noexcept {
  return streams_ ? reinterpret_cast<StreamKey>(stream) : kAnyStream;
}

bool DeviceCache::is_long_lived(StreamHandle stream) const noexcept {
  // nullptr and cudaStreamLegacy (1) are the legacy default stream, valid for
  // the process's life. cudaStreamPerThread (2) is not: it names a different
  // stream on each thread, so a later record from another thread would miss.
  if (stream == nullptr || stream == reinterpret_cast<StreamHandle>(1)) return true;
  const auto& s = options_.long_lived_streams;
  return std::find(s.begin(), s.end(), stream) != s.end();
}

void* DeviceCache::backend_malloc(std::size_t bytes) {
  CallTimer timer(malloc_calls_);
  return backend_.device_malloc(bytes);
}

void DeviceCache::reclaim(Arena& arena, bool wait) {
  for (StreamKey s : arena.blocks.streams_with_free_blocks()) {
    if (is_long_lived(reinterpret_cast<StreamHandle>(s))) arena.epochs.record(s);  // the lazy event
    const std::uint64_t safe = wait ? arena.epochs.wait(s) : arena.epochs.poll(s);
    arena.blocks.promote(s, safe);
    if (!arena.blocks.has_free_blocks_on(s)) arena.epochs.forget_if_idle(s);
  }
}

ArenaBlock* DeviceCache::try_cached(Arena& arena, std::size_t rounded, StreamKey key, bool reclaim_first) {
  if (reclaim_first) reclaim(arena, false);
  ArenaBlock* b = arena.blocks.allocate(rounded, key);
  if (b != nullptr) note_allocated(arena.counters, arenas_, peak_, b->size);
  return b;
}

void* DeviceCache::allocate(std::size_t bytes, StreamHandle stream) {
  const std::size_t rounded = options_.policy.round_request(bytes, "bytes");
  const StreamKey key = key_of(stream);
  Arena& home = *arenas_[thread_arena_slot() % arenas_.size()];
  // First what is reusable now; then what completed work makes reusable.
  for (int pass = 0; pass < (streams_ ? 2 : 1); ++pass) {
    std::lock_guard<std::mutex> lock(home.mutex);
    if (ArenaBlock* b = try_cached(home, rounded, key, pass == 1)) {
      home.counters.hits.fetch_add(1, std::memory_order_relaxed);  // own arena: an uncontended line
      return reinterpret_cast<void*>(b->addr);
    }
  }
  return grow(home, bytes, rounded, key);
}

void* DeviceCache::grow(Arena& home, std::size_t bytes, std::size_t rounded, StreamKey key) {
  std::size_t segment = options_.policy.segment_size(rounded);
  void* p = backend_malloc(segment);
  if (p == nullptr && segment != rounded) p = backend_malloc(segment = rounded);
  std::size_t released = 0;
  if (p == nullptr) {
    // The device is full: blocks other threads' arenas cache come first ...
    for (auto& a : arenas_) {
      if (a.get() == &home) continue;
      std::lock_guard<std::mutex> lock(a->mutex);
      if (ArenaBlock* b = try_cached(*a, rounded, key, streams_)) {
        home.counters.hits.fetch_add(1, std::memory_order_relaxed);
        return reinterpret_cast<void*>(b->addr);
      }
    }
    // ... then every cached block goes back (waiting on events, not the device), and one retry.
    for (auto& a : arenas_) released += release_free_segments(*a, SIZE_MAX, true);
    p = backend_malloc(segment = rounded);
  }
  home.counters.misses.fetch_add(1, std::memory_order_relaxed);
  if (p == nullptr)
    fail(Status::OutOfMemory, "bytes is ", bytes, ": no memory for a block of ", rounded, " bytes (",
         backend_.device_method(), " failed, also after ferry gave back ", released,
         " cached bytes and retried); ferry holds ", reserved_.load(), " bytes in its device cache, ", in_use_now(),
         " of them in use");
  try {
    std::lock_guard<std::mutex> lock(home.mutex);
    ArenaBlock* b = home.blocks.allocate_from_new_segment(reinterpret_cast<std::uintptr_t>(p), segment, rounded, key);
    reserved_.fetch_add(segment, std::memory_order_relaxed);
    note_allocated(home.counters, arenas_, peak_, b->size);
    return p;
  } catch (...) {
    backend_.device_free(p);
    throw;
  }
}

void DeviceCache::free(void* ptr, StreamHandle stream) {
  const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
  const StreamKey key = key_of(stream);
  const std::size_t n = arenas_.size();
  const std::size_t home = thread_arena_slot() % n;
  bool found = false;
  for (std::size_t i = 0; i < n && !found; ++i) {
    Arena& arena = *arenas_[(home + i) % n];
    std::lock_guard<std::mutex> lock(arena.mutex);
    ArenaBlock* b = arena.blocks.find_allocated(addr);
    if (b == nullptr) continue;
    std::uint64_t epoch = 0;
    if (key != kAnyStream) {
      epoch = arena.epochs.note_free(key);
      if (!is_long_lived(stream)) arena.epochs.record(key);  // the caller may destroy its stream
    }
    const std::size_t size = b->size;
    arena.blocks.release(b, key, epoch);
    arena.counters.in_use.fetch_sub(size, std::memory_order_relaxed);
    found = true;
  }
  FERRY_EXPECT(found, Status::NotFound, "ptr is ", ptr,
               ": not a block of this context's device allocator (never allocated by it, or freed already)");
  // cached <= reserved: while all that ferry holds fits under the cap, no arena needs reading.
  if (reserved_.load(std::memory_order_relaxed) > options_.max_cached_bytes &&
      cached_now() > options_.max_cached_bytes)
    enforce_cap();
}

std::size_t DeviceCache::release_free_segments(Arena& arena, std::size_t bytes_wanted, bool wait) {
  std::vector<SegmentSpan> spans;
  {
    std::lock_guard<std::mutex> lock(arena.mutex);
    if (streams_) reclaim(arena, wait);
    spans = arena.blocks.take_free_segments(bytes_wanted);
  }
  std::size_t released = 0;
  for (const SegmentSpan& s : spans) {  // out of the bookkeeping already: free outside the lock
    backend_.device_free(reinterpret_cast<void*>(s.base));
    released += s.size;
  }
  reserved_.fetch_sub(released, std::memory_order_relaxed);
  return released;
}

std::uint64_t DeviceCache::in_use_now() const noexcept {
  std::uint64_t sum = 0;
  for (const auto& a : arenas_) sum += a->counters.in_use.load(std::memory_order_relaxed);
  return sum;
}

std::uint64_t DeviceCache::cached_now() const noexcept {
  // Not one snapshot: never let a race underflow into "everything is cached".
  const std::uint64_t in_use = in_use_now(), reserved = reserved_.load();
  return reserved > in_use ? reserved - in_use : 0;
}

void DeviceCache::enforce_cap() {
  const std::size_t n = arenas_.size();
  const std::size_t home = thread_arena_slot() % n;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t cached = cached_now();
    if (cached <= options_.max_cached_bytes) return;
    release_free_segments(*arenas_[(home + i) % n], cached - options_.max_cached_bytes, false);
  }
}

std::size_t DeviceCache::trim() {
  std::size_t released = 0;
  for (auto& a : arenas_) released += release_free_segments(*a, SIZE_MAX, false);
  return released;
}

bool DeviceCache::owns(const void* ptr) const {
  const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
  for (const auto& a : arenas_) {
    std::lock_guard<std::mutex> lock(a->mutex);
    if (a->blocks.find_allocated(addr) != nullptr) return true;
  }
  return false;
}

AllocatorStats DeviceCache::stats() const {
  return sum_arena_stats(arenas_, reserved_.load(std::memory_order_relaxed), peak_.load(std::memory_order_relaxed),
                         malloc_calls_);
}

void DeviceCache::reset_counters() noexcept { reset_arena_counters(arenas_, malloc_calls_); }

std::string DeviceCache::check_invariants() const {
  std::string all;
  for (const auto& a : arenas_) {
    std::lock_guard<std::mutex> lock(a->mutex);
    all += a->blocks.check_invariants();
  }
  return all;
}

}  // namespace ferry::core
