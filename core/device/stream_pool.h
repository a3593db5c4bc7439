// StreamPool: a fixed set of non-blocking streams for one device, created
// with the context and handed out round-robin (the model is RMM's
// cuda_stream_pool). The pool owns the streams: a stream from acquire() stays
// valid for the context's life and must not be destroyed by the borrower.
//
// Two tiers: `count` normal streams, and the streams that work of priority
// > 0 runs on: the same ones when the pool was created at the greatest
// priority, else `high_priority_extra` more streams at that priority.
//
// On the CPU backend the pool is degenerate: `count` entries, all the null
// handle (work there is complete when a call returns), and no extra tier.
//
// Thread-safe: acquire() and take() are one atomic increment.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "core/device/device_runtime.h"

namespace ferry::core {

class StreamPool {
 public:
  // count: 1..64 (the context options validate it). high_priority: the
  // device's greatest priority for every stream of the pool.
  StreamPool(DeviceRuntime& backend, int count, bool high_priority, int high_priority_extra = 0);
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // The next stream, round-robin.
  StreamHandle acquire() noexcept {
    const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    return streams_[i % normal_];
  }
  // Round-robin places for n consecutive pieces of work on one tier: piece k
  // of the n runs on streams()[index(high, ticket + k)], ticket = take(high, n).
  // Without an extra tier, high work shares the normal streams.
  std::size_t take(bool high, std::size_t n) noexcept {
    return (high && extra_ > 0 ? next_high_ : next_).fetch_add(n, std::memory_order_relaxed);
  }
  std::size_t index(bool high, std::size_t ticket) const noexcept {
    return high && extra_ > 0 ? normal_ + ticket % extra_ : ticket % normal_;
  }
  StreamHandle at(std::size_t index) const { return streams_.at(index); }
  std::size_t size() const noexcept { return normal_; }  // the normal tier
  bool high_priority() const noexcept { return high_priority_; }
  bool contains(StreamHandle stream) const noexcept {
    return std::find(streams_.begin(), streams_.end(), stream) != streams_.end();
  }
  // Every stream: the normal tier, then the extra high-priority one.
  const std::vector<StreamHandle>& streams() const noexcept { return streams_; }

 private:
  DeviceRuntime& backend_;
  std::vector<StreamHandle> streams_;
  bool high_priority_;
  std::size_t normal_ = 0, extra_ = 0;
  std::atomic<std::size_t> next_{0}, next_high_{0};
};

}  // namespace ferry::core
