// Counters shared by ferry's allocators: gauges (bytes in use, held, peak)
// and counters (hits, misses, backend calls and their time). Atomics, so a
// stats snapshot never takes an allocator's lock.
//
// The hot path (a cache hit and its free) touches only counters of its own
// arena (ArenaCounters, one cache line per arena, used by about one thread):
// counters every thread increments on one cache line cost 8 threads more
// than the allocation itself. Snapshots sum the arenas.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace ferry::core {

// Raises `peak` to `value` if it is higher.
inline void raise_peak(std::atomic<std::uint64_t>& peak, std::uint64_t value) noexcept {
  std::uint64_t seen = peak.load(std::memory_order_relaxed);
  while (value > seen && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// Count and total wall time of one kind of backend call (cudaMalloc, ...).
struct CallCounter {
  std::atomic<std::uint64_t> calls{0};
  std::atomic<std::uint64_t> ns{0};
  void reset() noexcept {
    calls.store(0, std::memory_order_relaxed);
    ns.store(0, std::memory_order_relaxed);
  }
};

// Times a scope into a CallCounter.
class CallTimer {
 public:
  explicit CallTimer(CallCounter& counter) noexcept
      : counter_(counter), start_(std::chrono::steady_clock::now()) {}
  ~CallTimer() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - start_).count();
    counter_.calls.fetch_add(1, std::memory_order_relaxed);
    counter_.ns.fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
  }
  CallTimer(const CallTimer&) = delete;
  CallTimer& operator=(const CallTimer&) = delete;

 private:
  CallCounter& counter_;
  std::chrono::steady_clock::time_point start_;
};

// Device memory held by resident datasets (core/dataset/): shared, because a
// dataset's memory may go back after its context (a gather's batch holds it).
struct ResidentGauge {
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> datasets{0};
};

// The counters of one arena. in_use and high change under the arena's lock;
// hits and misses are counted in the calling thread's home arena. Readers
// (snapshots) take no lock.
struct ArenaCounters {
  std::atomic<std::uint64_t> in_use{0};
  std::atomic<std::uint64_t> high{0};  // the arena's own highest in_use: see note_allocated
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
};

// Bookkeeping of an allocation of `bytes` in arena `mine` (its lock held):
// raises `peak` to the sum over `arenas` whenever `mine` reaches a new high of
// its own. Exact when one thread allocates (one arena); with several threads
// it is the highest sum seen at such moments, which may miss a short-lived
// peak but never overstates one. In steady state it reads no other arena.
template <typename Arenas>
void note_allocated(ArenaCounters& mine, const Arenas& arenas, std::atomic<std::uint64_t>& peak,
                    std::uint64_t bytes) noexcept {
  const std::uint64_t now = mine.in_use.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (now <= mine.high.load(std::memory_order_relaxed)) return;
  mine.high.store(now, std::memory_order_relaxed);
  std::uint64_t sum = 0;
  for (const auto& a : arenas) sum += a->counters.in_use.load(std::memory_order_relaxed);
  raise_peak(peak, sum);
}

// Room for one arena's lock and counters without sharing a cache line with
// its neighbour's (128: adjacent-line prefetch pulls pairs of 64-byte lines).
constexpr std::size_t kArenaAlign = 128;

// A snapshot of one allocator, as Stats reports it.
struct AllocatorStats {
  std::uint64_t in_use_bytes = 0;
  std::uint64_t cached_bytes = 0;  // held from the system but not in use
  std::uint64_t peak_bytes = 0;    // highest in_use_bytes
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t backend_calls = 0;  // cudaMalloc / cudaHostAlloc / cudaHostRegister
  std::uint64_t backend_ns = 0;
};

// An allocator's statistics from its arenas' counters: `held` is what it holds
// from the system (in use + cached), `peak` its highest in-use bytes.
template <typename Arenas>
AllocatorStats sum_arena_stats(const Arenas& arenas, std::uint64_t held, std::uint64_t peak,
                               const CallCounter& backend) {
  AllocatorStats s;
  for (const auto& a : arenas) {
    s.in_use_bytes += a->counters.in_use.load(std::memory_order_relaxed);
    s.hits += a->counters.hits.load(std::memory_order_relaxed);
    s.misses += a->counters.misses.load(std::memory_order_relaxed);
  }
  s.cached_bytes = held > s.in_use_bytes ? held - s.in_use_bytes : 0;
  s.peak_bytes = peak;
  s.backend_calls = backend.calls.load(std::memory_order_relaxed);
  s.backend_ns = backend.ns.load(std::memory_order_relaxed);
  return s;
}

// Sets the arenas' hit and miss counters and the backend call counter to zero
// (the byte gauges stay).
template <typename Arenas>
void reset_arena_counters(Arenas& arenas, CallCounter& backend) noexcept {
  for (auto& a : arenas) {
    a->counters.hits.store(0, std::memory_order_relaxed);
    a->counters.misses.store(0, std::memory_order_relaxed);
  }
  backend.reset();
}

// Which arena a thread prefers (its home): the lowest slot no live thread
// holds, taken at the thread's first allocation and given back at its exit,
// so up to `arenas` live threads never share one.
unsigned thread_arena_slot() noexcept;

}  // namespace ferry::core
