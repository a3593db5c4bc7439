// Batch: one submitted batch, from submit to release. It holds what was
// decided at submit (Submitted: plan, route, streams, output; fixed from
// launch on), its work (chunks, events, error: private, the Stager's), and
// its lifecycle, which it owns and which moves only by its transitions:
//   the stage  Running -> Gathered -> Enqueued (all device work queued, done
//              event recorded) -> Finished (completed or failed), forward only;
//   the hold   who holds the device resources (output block, events: the
//              context's pools') and who gives them back, exactly once
//              (batch_hold.h): release, finish, detach (the context is
//              destroyed) or the last reference going;
//   the first observer of completion (wait, query or the completion thread)
//              gives the place in flight back, counts the outcome and unpins
//              the source, once.
// A batch that gave its resources back answers Status::InvalidHandle. Handle
// validity is the C ABI's (c_api/handle_table.h), not the batch's.
//
// Every public method is thread-safe (see core/stage/stager.h for the
// operations; this file is the data, its lock and its transitions).
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
#include "core/stage/batch_hold.h"
#include "core/stage/chunk_planner.h"
#include "core/stage/output_block.h"
#include "core/stage/sample_layout.h"
#include "core/stage/source_footprint.h"
#include "core/stage/submit_options.h"

namespace ferry::core {

class Stager;
class Batch;

// The link from batches to their stager, which outlives the stager: the
// stager's destructor detaches every batch still alive (they hold its pools'
// resources), and a batch let go of after that finds `stager` null.
struct StagerLink {
  std::mutex mutex;  // taken before any batch's own mutex
  Stager* stager = nullptr;
  std::unordered_set<Batch*> live;
};

enum class BatchRoute {
  kConvertOnHost,  // CPU backend: converted straight from the caller's source
  kDirect,         // pinned or registered source: copied by DMA, no host copy
  kStaged,         // pageable source: gathered into the pinned ring, then copied
  kResident,       // source already in device memory (a resident dataset's gather): converted, no copy
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
  // Once queued. A timed chunk has start and copied (none where nothing is
  // copied: a resident gather), and its done is a timing event too; an
  // untimed one has done alone, a plain event (Stager::take_done_event).
  EventHandle start = nullptr, copied = nullptr, done = nullptr;
  bool queued = false;  // its copy and kernel are queued (done recorded)
  ChunkFootprint footprint;  // a batch that stages its footprint: the chunk's part, in its slot
};

// What prepare decided for a batch, and launch started it with: written
// before launch (prepare, the C ABI's completion hook, launch's `launched`),
// read without the lock afterwards, never changed again.
struct Submitted {
  bool launched = false;  // set by launch: abandoned batches neither count nor call their hook
  ConvertPlan plan;
  SampleLayout layout;  // one size: every sample's (unset for samples of different sizes)
  // Samples of different sizes: sample g's layout, and where its packed bytes
  // lie in the batch's staged stream (n + 1 offsets). Empty for one size.
  std::vector<SampleLayout> sample_layouts;
  std::vector<std::uint64_t> sample_offsets;
  SourceView view;  // the caller's source
  std::vector<const std::uint8_t*> sample_pointers;  // a copy of the caller's array
  BatchRoute route = BatchRoute::kConvertOnHost;
  void* output = nullptr;
  bool owns_output = false;
  TensorDesc info{};
  std::size_t home_index = 0;
  StreamHandle home_stream = nullptr;  // output allocated and done recorded here
  bool has_handoff = false;
  StreamHandle handoff_stream = nullptr;
  int priority = 0;
  std::function<void(Status)> on_complete;  // SubmitOptions::on_complete
  std::uint64_t input_bytes = 0;
  bool short_path = false;
  bool in_ferry_pinned = false;      // a direct source wholly in ferry's pinned memory (Stager::classify)
  bool read_in_place = false;        // Stager::reads_in_place
  bool copies_bytes = false;  // plan.copies_bytes(): each chunk is copied into its place in the output
};

class Batch : public std::enable_shared_from_this<Batch> {
 public:
  explicit Batch(std::shared_ptr<StagerLink> link);
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  Submitted submitted;
  std::mutex mutex;
  std::condition_variable changed;  // the stage moved, or an event user left

  const std::shared_ptr<StagerLink>& link() const noexcept { return link_; }
  // Records the first error (later ones are consequences). Locked by the caller.
  void fail_locked(const Error& e) {
    if (!error_) error_ = e;
  }
  // Throws the batch's own error (its status and message), if it has one.
  void throw_if_failed_locked() const {
    if (error_) throw Error(*error_);
  }
  std::size_t chunk_count() const noexcept { return chunks_.size(); }
  // What the batch staged of its source (off where whole samples): read once Gathered.
  const SourceFootprint& footprint() const noexcept { return footprint_; }
  // The output block for a tensor reference (null for a caller's own output);
  // Status::InvalidHandle once the resources were given back, or the output
  // alone (a release after wait gives it back at once, Stager::release).
  std::shared_ptr<OutputBlock> output_block_locked() const;

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

  // The hold's transitions (batch_hold.h), under mutex. Where one returns true
  // (release: give_back) its caller gives the resources back (Stager::give_back),
  // once the threads waiting on the batch's events outside the lock are out.
  BatchHold::ReleaseStep release_locked(std::unique_lock<std::mutex>& lock) {
    const BatchHold::ReleaseStep step = hold_.release(reached_locked(BatchStage::kFinished));
    if (step.give_back) wait_for_event_users(lock);
    return step;
  }
  // Enqueued -> Finished, by the completion thread.
  bool finish_locked(std::unique_lock<std::mutex>& lock) {
    advance_locked(BatchStage::kFinished);
    return give_back_if(hold_.finish(), lock);
  }
  bool detach_locked(std::unique_lock<std::mutex>& lock) { return give_back_if(hold_.detach(), lock); }
  BatchHold::State hold_locked() const noexcept { return hold_.state(); }
  // Status::InvalidHandle once the resources were given back.
  void expect_held_locked() const;

  // A thread waits on the batch's events with the lock let go: its resources
  // (the events) are not given back until it is out.
  void begin_event_use_locked() noexcept { ++event_users_; }
  void end_event_use_locked() noexcept {
    if (--event_users_ == 0) changed.notify_all();
  }

  // True for the first caller only, of wait, query and the completion thread:
  // it gives the place in flight back, counts the outcome, unpins the source.
  bool first_to_observe_completion() noexcept { return !completion_observed_.exchange(true); }
  bool completion_observed() const noexcept { return completion_observed_.load(); }

 private:
  // The work: written by the stager (prepare, the chunks' run, the join,
  // stream_wait) and read by it; under mutex once the batch is running,
  // except the chunks, which only the running thread writes before Enqueued.
  friend class Stager;
  std::vector<ChunkWork> chunks_;
  // A staged batch's source footprint (Stager::take_footprint), worked out
  // by the thread that runs its chunks; off where whole samples are staged.
  SourceFootprint footprint_;
  std::vector<std::pair<const void*, std::size_t>> pinned_ranges_;  // registry entries to unpin
  // The ferry-allocated output, shared with tensor references (reset when
  // the resources are given back).
  std::shared_ptr<OutputBlock> output_block_;
  EventHandle entry_event_ = nullptr;  // conversions wait for it (see Stager::allocate_output)
  // The per-sample table of the whole batch on the device, uploaded once on
  // the home stream (Stager::upload_batch_table); chunks on other streams
  // wait for table_event_ before converting.
  void* batch_table_ = nullptr;
  EventHandle table_event_ = nullptr;
  // A tail read in place (Stager::convert_with_tail_in_place): the head's copy
  // done, which the tail's stream waits for; the tail's kernel done.
  EventHandle tail_events_[2] = {nullptr, nullptr};
  bool entry_on_handoff_ = false;      // recorded on the hand-off stream: every chunk waits, else only off-home ones
  bool entry_pending_ = false;         // entry_event_ not recorded yet: the first chunk records it (follow_entry)
  std::optional<Error> error_;
  EventHandle done_event_ = nullptr;
  bool owns_done_event_ = false;  // from the event pool; else it is the single chunk's own end event
  std::vector<StreamHandle> consumers_;  // streams made to wait for the output
  // A resident source's owner (SubmitOptions::resident_source), held until
  // the first observer of the batch's completion lets it go (once, like the
  // source's unpinning: Stager::observe_completion).
  std::shared_ptr<const void> resident_source_;

  bool give_back_if(bool give_back, std::unique_lock<std::mutex>& lock) {
    if (give_back) wait_for_event_users(lock);
    return give_back;
  }
  void wait_for_event_users(std::unique_lock<std::mutex>& lock) {
    changed.wait(lock, [&] { return event_users_ == 0; });
  }

  std::shared_ptr<StagerLink> link_;
  BatchStage stage_ = BatchStage::kRunning;  // under mutex
  BatchHold hold_;                           // under mutex
  int event_users_ = 0;                      // under mutex
  std::atomic<bool> completion_observed_{false};
};

}  // namespace ferry::core
