// Batch: one submitted batch, from submit to release. It holds what the
// pipeline decided at submit (plan, chunks, streams, output) and its state,
// which moves Running -> Enqueued (all device work queued, done event
// recorded) -> Finished (completed or failed, slot in flight given back).
//
// The device resources a batch holds (output block, events) belong to the
// context's pools. They are given back exactly once: at release if the batch
// has finished, else when it finishes after a release, else when the last
// reference goes, else when the context is destroyed (detach). A batch whose
// context is gone answers Status::InvalidHandle.
//
// Every public method is thread-safe (see core/stage/stager.h for the
// operations; this file is the data and its lock).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_set>
#include <vector>

#include "core/convert/convert_plan.h"
#include "core/error.h"
#include "core/device/device_runtime.h"
#include "core/stage/chunk_planner.h"
#include "core/stage/output_block.h"
#include "core/stage/sample_layout.h"
#include "core/stage/submit_options.h"

namespace ferry::core {

class Stager;
class Batch;

// The link from batches to their stager, which outlives the stager: a batch
// held by a thread after its context was destroyed finds `stager` null.
struct StagerLink {
  std::mutex mutex;  // taken before any batch's own mutex
  Stager* stager = nullptr;
  std::unordered_set<Batch*> live;
};

enum class BatchRoute {
  kConvertOnHost,  // CPU backend: converted straight from the caller's source
  kDirect,         // pinned or registered source: copied by DMA, no host copy
  kStaged,         // pageable source: gathered into the pinned ring, then copied
};

// How far a batch's work has come; it only ever moves forward.
//   kRunning   submitted: chunks are being gathered and queued
//   kGathered  every chunk has been read from the source (staged into pinned
//              memory, or its DMA queued), or the batch failed on the way
//   kEnqueued  every chunk's copy and kernel is queued (the done event exists),
//              or the batch failed before
//   kFinished  the completion thread has seen the batch complete: final
enum class BatchStage { kRunning, kGathered, kEnqueued, kFinished };

struct ChunkWork {
  Chunk chunk;
  std::size_t stream_index = 0;
  StreamHandle stream = nullptr;
  EventHandle start = nullptr, copied = nullptr, done = nullptr;  // timing events, once queued
  bool queued = false;  // its copy and kernel are queued (done recorded)
};

class Batch : public std::enable_shared_from_this<Batch> {
 public:
  explicit Batch(std::shared_ptr<StagerLink> link);
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // --- fixed at submit (read without the lock afterwards) ---
  bool launched = false;  // set by launch: abandoned batches neither count nor call their hook
  ConvertPlan plan;
  SampleLayout layout;
  SourceView view;  // the caller's source
  std::vector<const std::uint8_t*> sample_pointers;  // a copy of the caller's array
  BatchRoute route = BatchRoute::kConvertOnHost;
  std::vector<std::pair<const void*, std::size_t>> pinned_ranges;  // registry entries to unpin
  std::vector<ChunkWork> chunks;
  void* output = nullptr;
  bool owns_output = false;
  // The ferry-allocated output, shared with tensor references (under mutex
  // once the batch is running; reset when its resources are given back).
  std::shared_ptr<OutputBlock> output_block;
  TensorDesc info{};
  std::size_t home_index = 0;
  StreamHandle home_stream = nullptr;       // output allocated and done recorded here
  EventHandle entry_event = nullptr;        // conversions wait for it (see Stager::allocate_output)
  bool entry_on_handoff = false;            // recorded on the hand-off stream: every chunk waits, else only off-home ones
  bool has_handoff = false;
  StreamHandle handoff_stream = nullptr;
  int priority = 0;
  std::function<void(Status)> on_complete;  // SubmitOptions::on_complete
  std::uint64_t input_bytes = 0;
  bool short_path = false;
  // Its place in flight: given back once, by whoever first sees the batch
  // complete (wait, query, or the completion thread), so a submit right after
  // wait returns never finds the place still taken.
  std::atomic<bool> holds_place{false};
  // Counted in the statistics once, by whoever first sees the outcome, so the
  // counters agree with what wait/query told the caller.
  std::atomic<bool> outcome_counted{false};
  // It counts against max_unreleased_batches until released (or abandoned).
  std::atomic<bool> holds_unreleased_slot{false};
  // pinned_ranges are unpinned once, by whoever first sees the batch complete.
  std::atomic<bool> source_unpinned{false};

  // --- state, under mutex ---
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<Error> error;
  bool released = false;        // the handle was released
  bool detached = false;        // the context is gone
  bool resources_freed = false;
  int event_users = 0;          // threads waiting on this batch's events outside the lock
  EventHandle done_event = nullptr;
  bool owns_done_event = false;  // from the event pool; else it is the single chunk's own end event
  std::vector<StreamHandle> consumers;  // streams made to wait for the output

  const std::shared_ptr<StagerLink>& link() const noexcept { return link_; }
  // Records the first error (later ones are consequences). Locked by the caller.
  void fail_locked(const Error& e) {
    if (!error) error = e;
  }

  // The stage, under mutex. advance_locked moves forward only, never back, and
  // wakes whoever waits; wait_locked sleeps on `changed` until `s` is reached.
  BatchStage stage_locked() const noexcept { return stage_; }
  bool reached_locked(BatchStage s) const noexcept { return stage_ >= s; }
  void advance_locked(BatchStage s) noexcept {
    if (stage_ >= s) return;
    stage_ = s;
    changed.notify_all();
  }
  void wait_locked(std::unique_lock<std::mutex>& lock, BatchStage s) {
    changed.wait(lock, [&] { return stage_ >= s; });
  }

 private:
  std::shared_ptr<StagerLink> link_;
  BatchStage stage_ = BatchStage::kRunning;  // under mutex
};

}  // namespace ferry::core
