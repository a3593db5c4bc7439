// StagingRing: the bounded pinned memory that pageable sources are gathered
// into before their DMA. A client of the context's PinnedPool, through a
// StreamOrderedPool of its own whose segments are pinned-pool blocks (a pool
// over a pool, as RMM stacks resources): the ring has no events of its own.
//
// - A buffer given back after its copy is freed on the copy's stream: the
//   pool records an event there and reuses the buffer only once it completed.
// - Bound: the ring never holds more than max_bytes. It grows to the buffers
//   that keep the copies busy (slots_wanted of the largest request) and no
//   further: beyond that an acquire waits for the oldest copy in flight (an
//   event synchronize, never a device sync), so the steady state takes no new
//   memory. With every byte being filled by other threads, it waits for one
//   of them to give a buffer back.
// - Why a pool of its own and not blocks straight from the PinnedPool: the
//   bound and the wait for the oldest copy are the pool's cap and wait-at-cap;
//   the context's pool is capped at pinned_cache_bytes, not max_staging_bytes.
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "core/memory/pinned_pool.h"
#include "core/memory/stream_ordered_pool.h"

namespace ferry::core {

class StagingRing {
 public:
  // max_bytes: the hard bound. slots_wanted: how many buffers keep the copies
  // busy (the streams plus two).
  StagingRing(PinnedPool& pinned, EventPool& events, std::uint64_t max_bytes, std::size_t slots_wanted = 6);
  // Waits for the copies still reading buffers, then gives them back.
  ~StagingRing() = default;
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  // A pinned buffer of at least `bytes`. Throws Status::OutOfMemory when
  // bytes exceeds max_bytes (the message names options->max_staging_bytes),
  // or what the pinned pool throws.
  void* acquire(std::size_t bytes);
  // Like acquire, but nullptr where acquire would wait for a buffer that a
  // gather still fills (one a copy reads is still waited for): the staging
  // thread takes a buffer for the next chunk while it holds this chunk's, and
  // must never wait on itself.
  void* try_acquire(std::size_t bytes);
  // Gives the buffer back after a copy from it was queued on `stream`.
  void release_after_copy(void* buffer, StreamHandle stream);
  // Gives the buffer back unused (an error before its copy was queued).
  void release_unused(void* buffer) noexcept;

  // Gives the buffers no copy reads any more back to the pinned pool (polled,
  // never waited for); the next acquire takes them again. Returns the bytes.
  std::size_t trim() { return pool_.trim(); }

  std::uint64_t max_bytes() const noexcept { return max_bytes_; }
  std::uint64_t held_bytes() const noexcept { return pool_.held_bytes(); }

 private:
  void note_release();

  PinnedPoolBlocks upstream_;
  StreamOrderedPool pool_;
  const std::uint64_t max_bytes_;
  const std::size_t slots_wanted_;
  std::mutex mutex_;
  std::condition_variable released_;
  std::uint64_t releases_ = 0;  // guarded by mutex_: a waiter sees every release after its try
};

}  // namespace ferry::core
