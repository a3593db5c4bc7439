// StreamPool: a fixed set of non-blocking streams for one device, created
// with the context and handed out round-robin (the model is RMM's
// cuda_stream_pool). The pool owns the streams: a stream from acquire() stays
// valid for the context's life and must not be destroyed by the borrower.
//
// On the CPU backend the pool is degenerate: `count` entries, all the null
// handle (work there is complete when a call returns).
//
// Thread-safe: acquire() is one atomic increment.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "core/memory/memory_backend.h"

namespace ferry::core {

class StreamPool {
 public:
  // count: 1..64 (the context options validate it). high_priority: the
  // device's greatest priority for every stream of the pool.
  StreamPool(MemoryBackend& backend, int count, bool high_priority);
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // The next stream, round-robin.
  StreamHandle acquire() noexcept {
    const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    return streams_[i % streams_.size()];
  }
  StreamHandle at(std::size_t index) const { return streams_.at(index); }
  std::size_t size() const noexcept { return streams_.size(); }
  bool high_priority() const noexcept { return high_priority_; }
  bool contains(StreamHandle stream) const noexcept {
    return std::find(streams_.begin(), streams_.end(), stream) != streams_.end();
  }
  const std::vector<StreamHandle>& streams() const noexcept { return streams_; }

 private:
  MemoryBackend& backend_;
  std::vector<StreamHandle> streams_;
  bool high_priority_;
  std::atomic<std::size_t> next_{0};
};

}  // namespace ferry::core
