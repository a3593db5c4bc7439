// Stager: a batch's completion (statistics, place in flight, callback) and
// the return of its device resources.
#include <chrono>
#include <thread>

#include "core/stage/stager.h"

namespace ferry::core {

// The completion thread's wait for a batch's device work.
//  - Where someone waits on the completion thread itself: cudaEventSynchronize,
//    so that it is told as soon as the GPU is done. That is a batch with a
//    completion callback (how its caller learns of the end), and any batch
//    while every place in flight is taken (a submit may be blocked on the
//    place this batch gives back: back-to-back frames, pipelines).
//  - Otherwise: cudaEventQuery, then a sleep of kQuietPoll (about 70 us with
//    Linux's timer slack), looking again each time whether someone now waits.
//    The caller learns of the end on its own (its stream, ferry_batch_wait or
//    ferry_batch_query, which look at the done event themselves), and a
//    second thread synchronizing on the same GPU work delays the caller's own
//    synchronize. Measured on an H200 (a 1080p frame's copy and ferry's
//    kernel on one stream, the caller synchronizing on its stream, medians of
//    8 runs of 300 frames): +12.7 us over a memcpy of the frame alone, +15.3
//    with a second thread in cudaEventSynchronize on the batch's end, +14.1
//    with it on a blocking-sync event, +13.6 with it polling every 20 us.
//    ferry_bench_frame's frame row, old and new alternated on one host:
//    +17.8 to +20.2 us over the memcpy before, +13.0 to +15.6 after; its one
//    image (submit -> wait) +10.8 to +14.2 before, +9.6 to +11.8 after
//    (bench/RESULTS.md, 2026-12-01). Polling whether or not the gate was full
//    cost the pageable pipeline 2 % (its submits waited for places given back
//    up to 70 us late).
void Stager::await_device_work(const Batch& b) {
  constexpr auto kQuietPoll = std::chrono::microseconds(20);
  const bool has_callback = static_cast<bool>(b.submitted.on_complete);  // fixed at submit
  auto awaited = [&] { return has_callback || gate_.full(); };
  auto await = [&](EventHandle done) {
    while (!awaited()) {
      if (runtime_.event_query(done)) return;
      std::this_thread::sleep_for(kQuietPoll);
    }
    runtime_.event_synchronize(done);
  };
  if (b.done_event_ != nullptr) {
    await(b.done_event_);
  } else {
    for (const ChunkWork& w : b.chunks_)
      if (w.queued && w.done != nullptr) await(w.done);
  }
}

void Stager::finish(const std::shared_ptr<Batch>& batch) {
  Batch& b = *batch;
  std::optional<Error> device_error;
  try {
    await_device_work(b);
  } catch (const Error& e) {
    device_error = e;
  } catch (...) {
    device_error = Error(Status::Internal, "waiting for the batch's device work failed");
  }
  bool failed = false;
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    if (device_error) b.fail_locked(*device_error);
    failed = b.error_.has_value();
  }
  if (!failed && runtime_.has_streams()) {
    try {
      std::uint64_t h2d = 0, convert = 0, timed = 0;
      for (const ChunkWork& w : b.chunks_) {
        if (w.start == nullptr || w.done == nullptr) continue;  // not timed (Stager::timed_on_device)
        ++timed;
        // No copied event: nothing was copied (a resident gather), the whole chunk converts.
        const EventHandle converting = w.copied != nullptr ? w.copied : w.start;
        if (w.copied != nullptr) h2d += static_cast<std::uint64_t>(runtime_.elapsed_ms(w.start, w.copied) * 1e6);
        convert += static_cast<std::uint64_t>(runtime_.elapsed_ms(converting, w.done) * 1e6);
      }
      counters_.h2d_ns.fetch_add(h2d, std::memory_order_relaxed);
      counters_.convert_ns.fetch_add(convert, std::memory_order_relaxed);
      counters_.timed_chunks.fetch_add(timed, std::memory_order_relaxed);
    } catch (...) {
      // Statistics only.
    }
  }
  observe_completion(b, failed);
  Status status = Status::Ok;
  bool give = false;  // released before it finished: finishing gives the resources back
  {
    std::unique_lock<std::mutex> lock(b.mutex);
    give = b.finish_locked(lock);
    status = b.error_ ? b.error_->status() : Status::Ok;
  }
  // Never under a ferry lock: the callback may call ferry (query, submit).
  // Before the waiters wake: a binding's callback takes its runtime's lock
  // (Python's GIL, to drop the source it held), which a waiter blocked in
  // ferry_batch_wait does not hold; once woken, that waiter would contend
  // with the callback for it.
  if (b.submitted.on_complete && b.submitted.launched) {
    try {
      b.submitted.on_complete(status);
    } catch (...) {
      // A hook must not throw; one that does is not allowed to kill ferry's thread.
    }
  }
  b.changed.notify_all();
  if (give) give_back(b);
}

void Stager::abandon(const std::shared_ptr<Batch>& batch) noexcept {
  {
    std::unique_lock<std::mutex> lock(batch->mutex);
    batch->fail_locked(Error(Status::OutOfMemory, "the batch could not be given a handle"));
    if (batch->release_locked(lock).first) give_unreleased_slot_back();
    batch->advance_locked(BatchStage::kEnqueued);
  }
  finish(batch);  // nothing was queued: completes at once, gives the place and the memory back
}

void Stager::observe_completion(Batch& b, bool failed) noexcept {
  if (!b.first_to_observe_completion()) return;
  unpin_source(b);
  b.resident_source_.reset();  // the kernel that read it has completed (or none was queued)
  if (b.submitted.launched) count_outcome(b, failed);
  gate_.leave();  // every prepared batch holds a place in flight
}

void Stager::count_outcome(Batch& b, bool failed) noexcept {
  (failed ? counters_.batches_failed : counters_.batches_completed).fetch_add(1, std::memory_order_relaxed);
  if (!failed) {
    const ConvertPlan& p = b.submitted.plan;
    counters_.output_bytes.fetch_add(
        static_cast<std::uint64_t>(p.n * p.out_channels_total * p.out_h * p.out_w * p.element_size),
        std::memory_order_relaxed);
  }
}

// Once: by prepare when it fails or stages the source after all, else by the
// first observer of completion; it empties the list.
void Stager::unpin_source(Batch& b) noexcept {
  for (const auto& [ptr, bytes] : b.pinned_ranges_) {
    try {
      memory_.registry().unpin(ptr, bytes);
    } catch (...) {
    }
  }
  b.pinned_ranges_.clear();
}

void Stager::return_output_block(Batch& b) noexcept {
  std::unique_lock<std::mutex> lock(b.mutex);  // tensor references read the block under it
  std::shared_ptr<OutputBlock> block = std::move(b.output_block_);
  if (block == nullptr) return;  // never had one, or given back already
  // Every consumer waited on the done event (the hand-off in join, stream_wait
  // after it): unless the batch failed, or never got one.
  const bool waited_for_end = b.done_event_ != nullptr && !b.error_;
  try {
    block->set_consumers(b.consumers_, waited_for_end);
  } catch (...) {
    // No memory to note them: their order is lost, the block still goes back.
  }
  lock.unlock();
  block.reset();  // the block goes back now, unless a tensor reference holds it
}

void Stager::give_back(Batch& b) noexcept {
  return_output_block(b);
  EventPool& events = memory_.event_pool();
  if (b.done_event_ != nullptr && b.owns_done_event_) events.release(b.done_event_);
  if (b.entry_event_ != nullptr) events.release(b.entry_event_);
  for (EventHandle& e : b.tail_events_) {
    if (e != nullptr) events.release(e);
    e = nullptr;
  }
  free_batch_table(b);
  b.done_event_ = b.entry_event_ = nullptr;
  for (ChunkWork& w : b.chunks_) {
    memory_.timing_event_pool().release(w.start);
    memory_.timing_event_pool().release(w.copied);
    (w.start != nullptr ? memory_.timing_event_pool() : memory_.event_pool()).release(w.done);  // take_done_event
    w.start = w.copied = w.done = nullptr;
  }
}

void Stager::return_output(void* data, StreamHandle home_stream, const std::vector<StreamHandle>& consumers,
                           bool consumers_waited_for_end) noexcept {
  try {
    DeviceScope scope(runtime_);
    // One consumer that waited for the batch's end (a hand-off stream): its
    // order covers the home stream's too, so the block goes back in that
    // stream's order alone (reusable elsewhere once the cache's event there
    // has passed). No ferry stream waits for a caller's: a pipeline stream
    // made to wait for the hand-off stream held the next batch's copy behind
    // everything queued there (from Python, batch k+1's copy began only after
    // batch k's end: 0.91 of the bus limit instead of 0.99).
    std::size_t readers = 0;
    StreamHandle reader = nullptr;
    for (StreamHandle consumer : consumers)
      if (consumer != home_stream) ++readers, reader = consumer;
    if (readers == 1 && consumers_waited_for_end) {
      memory_.device_cache().free(data, reader);
      return;
    }
    // Otherwise streams made to wait for the output may still read it: the
    // block goes back in their order too, not only the home stream's.
    for (StreamHandle consumer : consumers) {
      if (consumer == home_stream) continue;
      EventLease used(memory_.event_pool());
      runtime_.event_record(used.get(), consumer);
      runtime_.stream_wait(home_stream, used.get());
    }
    memory_.device_cache().free(data, home_stream);
  } catch (...) {
    // The cache frees its segments when the context goes.
  }
}

}  // namespace ferry::core
