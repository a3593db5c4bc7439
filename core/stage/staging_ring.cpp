#include "core/stage/staging_ring.h"

#include <algorithm>

#include "core/error.h"

namespace ferry::core {
namespace {

StreamOrderedPool::Options ring_options() {
  StreamOrderedPool::Options o;
  o.cap_bytes = 0;  // raised by each acquire to what the pipeline needs, up to max_bytes
  o.wait_at_cap = true;
  o.arenas = 1;           // one staging thread; the bound is over all of them
  o.policy = SizePolicy::pinned();
  o.name = "staging ring";
  o.cap_option = "max_staging_bytes";
  return o;
}

}  // namespace

StagingRing::StagingRing(PinnedPool& pinned, EventPool& events, std::uint64_t max_bytes, std::size_t slots_wanted)
    : upstream_(pinned),
      pool_(upstream_, events, ring_options()),
      max_bytes_(max_bytes),
      slots_wanted_(std::max<std::size_t>(slots_wanted, 1)) {}

void* StagingRing::acquire(std::size_t bytes) {
  for (;;) {
    std::uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      seen = releases_;
    }
    if (void* p = try_acquire(bytes)) return p;
    // At the bound with no copy in flight: other threads are filling every
    // buffer; wait until one comes back.
    std::unique_lock<std::mutex> lock(mutex_);
    released_.wait(lock, [&] { return releases_ != seen; });
  }
}

void* StagingRing::try_acquire(std::size_t bytes) {
  FERRY_EXPECT(bytes <= max_bytes_, Status::OutOfMemory, "a staged chunk of ", bytes,
               " bytes (one sample at least) exceeds options->max_staging_bytes (", max_bytes_,
               "): raise it, or give a pinned or registered source");
  // Room for slots_wanted buffers of this size; beyond it the pool waits for
  // the oldest copy rather than grow. A batch's first chunk is its largest
  // (the planner gives the extra samples to the first chunks).
  const std::uint64_t rounded = SizePolicy::pinned().round_request(bytes, "bytes");
  const auto want = static_cast<std::size_t>(std::max(rounded, std::min<std::uint64_t>(max_bytes_, rounded * slots_wanted_)));
  pool_.raise_cap(want);
  if (pool_.held_bytes() == 0) {
    // The first buffers in one segment, at once: the steady state allocates
    // nothing rather than a segment now and then as the pipeline deepens,
    // and the buffers tile it without the remainders of size classes.
    try {
      pool_.preallocate(want);
    } catch (...) {
      // Pinned memory ran short: the pool grows as it needs.
    }
  }
  return pool_.try_allocate(bytes);
}

void StagingRing::note_release() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++releases_;
  }
  released_.notify_all();
}

void StagingRing::release_after_copy(void* buffer, StreamHandle stream) {
  // If recording the event fails, the buffer stays handed out: the copy may
  // still be queued, so it is never overwritten; the pool frees it at the end.
  pool_.free(buffer, stream);
  note_release();
}

void StagingRing::release_unused(void* buffer) noexcept {
  try {
    pool_.free(buffer);
  } catch (...) {
    // Not a buffer of this ring: nothing to give back.
  }
  note_release();
}

}  // namespace ferry::core
