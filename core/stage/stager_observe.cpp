// Stager's observation of a batch, the batch operations of the C API: wait,
// query, stream_wait, source reusable, wait_source, release.
#include <algorithm>

#include "core/stage/batch.h"
#include "core/stage/stager.h"

namespace ferry::core {

// Runs `synchronize` (waits on the batch's events) with the batch's lock let
// go, counted as an event user so its events are not given back meanwhile; an
// error from the device is rethrown once the lock is held again.
template <typename Synchronize>
void Stager::synchronize_unlocked(Batch& b, std::unique_lock<std::mutex>& lock, Synchronize synchronize) {
  b.begin_event_use_locked();
  lock.unlock();
  std::optional<Error> failure;
  try {
    DeviceScope scope(runtime_);
    synchronize();
  } catch (const Error& e) {
    failure = e;
  }
  lock.lock();
  b.end_event_use_locked();
  if (failure) throw Error(*failure);
}

void Stager::wait(Batch& b) {
  std::unique_lock<std::mutex> lock(b.mutex);
  b.expect_held_locked();
  b.wait_locked(lock, BatchStage::kEnqueued);
  if (b.submitted.route == BatchRoute::kConvertOnHost && !b.error_) {
    // Converted on the host: the work is done once queued (Enqueued); no need
    // to wait for the completion thread's bookkeeping.
    lock.unlock();
    observe_completion(b, false);
    return;
  }
  if (b.stage_locked() == BatchStage::kEnqueued && !b.error_ && b.done_event_ != nullptr && runtime_.has_streams()) {
    // Straight on the done event: the caller wakes when the GPU is done, not
    // when the completion thread has got round to it.
    const EventHandle done = b.done_event_;
    synchronize_unlocked(b, lock, [&] { runtime_.event_synchronize(done); });
    if (!b.error_) {
      lock.unlock();
      observe_completion(b, false);
      return;
    }
  }
  b.wait_locked(lock, BatchStage::kFinished);
  b.throw_if_failed_locked();
}

bool Stager::query(Batch& b) {
  std::lock_guard<std::mutex> lock(b.mutex);
  b.expect_held_locked();
  if (b.reached_locked(BatchStage::kFinished)) {
    b.throw_if_failed_locked();
    return true;
  }
  if (!b.reached_locked(BatchStage::kEnqueued) || b.error_) return false;
  if (b.submitted.route == BatchRoute::kConvertOnHost) {
    observe_completion(b, false);
    return true;
  }
  if (b.done_event_ == nullptr) return false;
  DeviceScope scope(runtime_);
  if (!runtime_.event_query(b.done_event_)) return false;
  observe_completion(b, false);
  return true;
}

void Stager::stream_wait(Batch& b, StreamHandle stream) {
  if (b.submitted.route == BatchRoute::kConvertOnHost || !runtime_.has_streams()) {
    wait(b);  // no device streams: wait on the host
    return;
  }
  std::unique_lock<std::mutex> lock(b.mutex);
  b.expect_held_locked();
  // The done event exists once every chunk is queued (for a staged batch, once
  // it is gathered): until then this waits on the host.
  b.wait_locked(lock, BatchStage::kEnqueued);
  if (b.error_) {
    b.wait_locked(lock, BatchStage::kFinished);
    b.throw_if_failed_locked();
  }
  b.expect_held_locked();  // released (and finished) while this waited: its done event went back
  DeviceScope scope(runtime_);
  runtime_.stream_wait(stream, b.done_event_);
  if (std::find(b.consumers_.begin(), b.consumers_.end(), stream) == b.consumers_.end())
    b.consumers_.push_back(stream);
}

bool Stager::source_reusable(Batch& b) {
  std::lock_guard<std::mutex> lock(b.mutex);
  b.expect_held_locked();
  if (b.reached_locked(BatchStage::kFinished)) return true;
  switch (b.submitted.route) {
    case BatchRoute::kConvertOnHost:
      return b.reached_locked(BatchStage::kEnqueued) && !b.error_;  // converted: nothing reads the source any more
    case BatchRoute::kStaged:
      return b.reached_locked(BatchStage::kGathered);
    case BatchRoute::kResident:
      return true;  // ferry's own memory: the caller's source was never read
    case BatchRoute::kDirect:
      break;
  }
  if (!b.reached_locked(BatchStage::kEnqueued) || b.error_) return false;
  DeviceScope scope(runtime_);
  for (const ChunkWork& w : b.chunks_)
    if (w.queued && !runtime_.event_query(w.copied != nullptr ? w.copied : w.done)) return false;
  return true;
}

void Stager::wait_source(Batch& b) {
  std::unique_lock<std::mutex> lock(b.mutex);
  b.expect_held_locked();
  if (b.submitted.route == BatchRoute::kStaged) {
    b.wait_locked(lock, BatchStage::kGathered);
    if (!b.error_) return;
  } else if (b.submitted.route == BatchRoute::kConvertOnHost) {
    b.wait_locked(lock, BatchStage::kEnqueued);
    if (!b.error_) return;
  } else if (b.submitted.route == BatchRoute::kResident) {
    return;  // no caller's source was read
  } else if (b.submitted.route == BatchRoute::kDirect) {
    b.wait_locked(lock, BatchStage::kEnqueued);
    if (!b.error_ && b.stage_locked() == BatchStage::kEnqueued) {
      synchronize_unlocked(b, lock, [&] {
        for (const ChunkWork& w : b.chunks_)
          if (w.queued) runtime_.event_synchronize(w.copied != nullptr ? w.copied : w.done);
      });
      return;
    }
  }
  b.wait_locked(lock, BatchStage::kFinished);
  b.throw_if_failed_locked();
}

void Stager::release(Batch& b) {
  BatchHold::ReleaseStep step{};
  {
    std::unique_lock<std::mutex> lock(b.mutex);
    step = b.release_locked(lock);
  }
  if (step.first) give_unreleased_slot_back();
  if (step.give_back) {
    give_back(b);  // finished already
  } else if (b.completion_observed()) {
    // wait or query saw the GPU finish: the output goes back to the cache
    // now, not when the completion thread gets round to the batch, so that
    // a loop of submit, wait and release reuses it in the next submit. The
    // rest goes back when the batch finishes.
    return_output_block(b);
  }
}

}  // namespace ferry::core
