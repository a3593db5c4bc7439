// Counters shared by ferry's allocators: gauges (bytes in use, held, peak)
// and counters (hits, misses, backend calls and their time). Atomics, so a
// stats snapshot never takes an allocator's lock.
#pragma once

#include <atomic>
#include <chrono>
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

// A snapshot of one allocator, as ferry_stats reports it.
struct AllocatorStats {
  std::uint64_t in_use_bytes = 0;
  std::uint64_t cached_bytes = 0;  // held from the system but not in use
  std::uint64_t peak_bytes = 0;    // highest in_use_bytes
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t backend_calls = 0;  // cudaMalloc / cudaHostAlloc / cudaHostRegister
  std::uint64_t backend_ns = 0;
};

// Which arena a thread prefers: threads spread over the arenas round-robin
// the first time they allocate, so 8 threads rarely share a lock.
unsigned thread_arena_slot() noexcept;

}  // namespace ferry::core
