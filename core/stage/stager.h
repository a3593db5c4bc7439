// Stager: ferry's staging pipeline for one context (ferry_batch_*).
//
//   submit (caller's thread): validate (ConvertPlan), take a place in flight
//     (block or Status::Busy), classify the source, cut it into chunks,
//     allocate the output; then
//     - a pinned/registered source: queue every chunk's DMA and kernel right
//       here (no thread hand-off; cudaMemcpyAsync from pinned memory returns
//       at once);
//     - a pageable source: small batches are gathered right here (short
//       path), larger ones go to the staging thread, which gathers chunk
//       after chunk into the pinned ring with all staging threads and queues
//       each chunk's DMA and kernel as soon as it is staged;
//     - the CPU backend: small batches convert right here, larger ones on the
//       staging thread, straight from the caller's source.
//   Each chunk runs on a pool stream (round-robin; a resident gather's one
//   kernel always on its tier's first stream): copy into the stream's
//   input buffer, convert into the output. The streams of a batch are joined
//   on its home stream by events, where its done event is recorded and the
//   caller's hand-off stream waits.
//   completion thread: waits for each batch's done event (synchronizing on
//   it where a callback or a blocked submit waits on the thread, else polling
//   it, so as not to slow the caller's own synchronize: await_device_work),
//   adds the statistics, gives its place in flight back, runs the completion
//   hook (never under a ferry lock).
//
// Destruction (the context's): new submits are refused, batches in flight
// finish, those still alive are detached (their resources go back, see
// batch_hold.h), then the threads stop.
//
// One file per phase: stager_submit.cpp (validate, route, plan, allocate,
// launch), stager_run.cpp (chunk running; stager_run_shortcuts.cpp the chunks
// of a resident source and of a plain copy), stager_complete.cpp (completion),
// stager_observe.cpp (wait, query, stream_wait, release), stager.cpp
// (construction, threads, destruction); batch.cpp is the Batch's own life.
//
// Every public method is thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <thread>

#include "core/convert/converter.h"
#include "core/memory/memory_system.h"
#include "core/pipeline_counters.h"
#include "core/stage/batch.h"
#include "core/stage/batch_queue.h"
#include "core/device/device_scope.h"
#include "core/device/numa_placement.h"
#include "core/stage/in_flight_gate.h"
#include "core/stage/staging_ring.h"
#include "core/stage/stream_inputs.h"
#include "core/stage/tail_in_place.h"
#include "core/thread_pool.h"

namespace ferry::core {

class Stager {
 public:
  struct Parts {
    DeviceKind kind = DeviceKind::Cpu;  // CPU or CUDA
    int device_index = -1;                      // the CUDA device
    ContextOptions options{};
    MemorySystem* memory = nullptr;
    Converter* converter = nullptr;
    PipelineCounters* counters = nullptr;
    // Convert straight from the caller's source (the CPU backend's way). Tests
    // set it false on the CPU to run the staged pipeline on the host runtime.
    bool convert_on_host = true;
    // Where the staging and completion threads run (the GPU's NUMA node).
    NumaPlacement placement;
  };

  explicit Stager(Parts parts);
  ~Stager();
  Stager(const Stager&) = delete;
  Stager& operator=(const Stager&) = delete;

  // Validates, takes a place in flight, decides the route, allocates the
  // output. Throws ferry::Error (nothing is left held).
  std::shared_ptr<Batch> prepare(const SourceDesc& source,
                                 const Transform& transform, const OutputDesc* output,
                                 const SubmitOptions& options);
  // Starts the work (set batch->on_complete first, if at all). Never throws: a
  // failure from here on fails the batch, reported by wait, query and the hook.
  void launch(const std::shared_ptr<Batch>& batch) noexcept;
  // Gives back what prepare took, for a batch that is not launched after all
  // (no handle could be made). No callback runs.
  void abandon(const std::shared_ptr<Batch>& batch) noexcept;

  // The batch operations of the C API; each throws ferry::Error
  // (Status::InvalidHandle once the batch gave its resources back). The
  // caller keeps the stager alive for the call (the C ABI holds the context).
  void wait(Batch& batch);
  bool query(Batch& batch);  // true: complete; false: in flight; throws the batch's error
  void stream_wait(Batch& batch, StreamHandle stream);
  bool source_reusable(Batch& batch);
  void wait_source(Batch& batch);
  void release(Batch& batch);
  // Whether `batch` was prepared by this stager (a context's handles are
  // dropped with it).
  bool owns(const Batch& batch) const noexcept { return batch.link() == link_; }

  // Gives the batch's device resources back to the pools; called once, by
  // whoever a transition of the batch's hold names (batch_hold.h).
  void give_back(Batch& batch) noexcept;
  // The output block alone, with the streams that read it noted; once.
  void return_output_block(Batch& batch) noexcept;
  // A ferry-allocated output whose last owner let go (see output_block.h):
  // back to the device cache after `home_stream` and every consumer stream
  // (`consumers_waited_for_end`: OutputBlock::set_consumers).
  void return_output(void* data, StreamHandle home_stream, const std::vector<StreamHandle>& consumers,
                     bool consumers_waited_for_end) noexcept;

  const std::shared_ptr<StagerLink>& link() const noexcept { return link_; }
  std::uint64_t unreleased_batches() const noexcept { return unreleased_.load(std::memory_order_relaxed); }
  // Whether the calling thread is a stager's completion thread (runs callbacks).
  static bool on_completion_thread() noexcept;
  int staging_threads() const noexcept { return staging_pool_.size(); }
  // Gives the staging ring's idle pinned buffers back to the pinned pool (ferry_memory_trim).
  std::size_t trim_staging() { return ring_ ? ring_->trim() : 0; }
  const NumaPlacement& placement() const noexcept { return parts_.placement; }

 private:
  // The route (Submitted::route); true for a direct source wholly in ferry's pinned memory.
  bool classify(Batch& batch, SourcePolicy policy);
  void plan_streams(Batch& batch, std::uint64_t chunk_bytes);
  void allocate_output(Batch& batch, const OutputDesc* output);
  // Whether the submitting thread runs the batch itself (launch): pinned,
  // registered and resident sources, and short batches.
  bool runs_in_submit(const Batch& batch) const noexcept;
  // The batch's per-sample table, uploaded once at submit and freed with the
  // batch's other resources (Batch::batch_table_).
  void upload_batch_table(Batch& batch);
  void free_batch_table(Batch& batch) noexcept;
  void run(Batch& batch);  // every chunk, then the join; errors fail the batch
  // A chunk's copy and conversion (or conversion alone); `slot`: a staged
  // chunk's gathered staging buffer (run_staged), which it takes over.
  void run_chunk(Batch& batch, ChunkWork& work, void* slot);
  void run_staged(Batch& batch);  // stager_gather.cpp
  // A staged batch's source footprint (source_footprint.h), where it stages
  // only that: Batch::footprint_.
  void take_footprint(Batch& batch);  // stager_footprint.cpp
  // Queues the placing of a footprint-staged chunk's rows, its slot copied
  // to `buffer` + chunk.slot_at, among its packed samples at `buffer`.
  void place_rows(const ChunkFootprint& chunk, std::uint8_t* buffer, StreamHandle stream);
  void run_resident_chunk(Batch& batch, ChunkWork& work);
  void run_copy_chunk(Batch& batch, ChunkWork& work, void* slot);
  void run_in_place_chunk(Batch& batch, ChunkWork& work, void* slot);
  bool reads_in_place(const Batch& batch) const noexcept;
  // An image's last rows read in place while the rest is copied (tail_in_place.h,
  // stager_tail.cpp): how many rows (0: none); their kernel runs on tail_stream_.
  std::int64_t tail_rows_read_in_place(const Batch& batch, const void* slot) const;
  void convert_with_tail_in_place(Batch& batch, std::int64_t tail_rows, const void* head, StreamHandle stream);
  void take_done_event(ChunkWork& work, bool timed);
  // Whether the chunk is timed with CUDA events (ContextOptions::device_timing):
  // has_copy false for a chunk that only converts (a resident gather).
  bool timed_on_device(const Batch& batch, bool has_copy) const noexcept;
  void abandon_chunk(ChunkWork& work, void* slot, bool copy_queued, StreamHandle stream) noexcept;
  // Makes the chunk's stream follow the batch's entry event where it must
  // (allocate_output), recording the event first if it is still pending.
  void follow_entry(Batch& batch, const ChunkWork& work, StreamHandle stream);
  // The converter reads a view's samples 0 .. count-1 as global first ..
  // first+count-1: the caller's view from sample `first` on.
  static SourceView view_from(SourceView view, std::int64_t first);
  void copy_chunk_direct(Batch& batch, const Chunk& chunk, void* dst, StreamHandle stream);
  void join(Batch& batch);  // after run: done event, hand-off, to the completion thread
  void staging_loop();
  void completion_loop();
  void finish(const std::shared_ptr<Batch>& batch);
  void await_device_work(const Batch& batch);  // the completion thread's wait (stager_complete.cpp)
  void unpin_source(Batch& batch) noexcept;
  void count_outcome(Batch& batch, bool failed) noexcept;
  void take_unreleased_slot();  // Status::OutOfMemory at the bound
  void give_unreleased_slot_back() noexcept;
  // The first to see the batch complete (wait, query or the completion
  // thread) gives its place in flight back, counts its outcome and unpins its
  // source's registrations, so ferry_memory_unregister_host works as soon as
  // wait returns, not only once the completion thread has got round to it.
  void observe_completion(Batch& batch, bool failed) noexcept;

  template <typename Synchronize>
  void synchronize_unlocked(Batch& batch, std::unique_lock<std::mutex>& lock, Synchronize synchronize);

  Parts parts_;
  MemorySystem& memory_;
  Converter& converter_;
  PipelineCounters& counters_;
  DeviceRuntime& runtime_;  // the context's, through memory_
  StreamPool& streams_;      // memory_'s
  std::shared_ptr<StagerLink> link_;
  std::shared_ptr<OutputHome> output_home_;
  InFlightGate gate_;
  std::atomic<std::uint64_t> unreleased_{0};  // batches holding an unreleased slot
  ThreadPool staging_pool_;
  std::unique_ptr<StagingRing> ring_;
  std::unique_ptr<StreamInputs> inputs_;
  StreamHandle tail_stream_ = nullptr;  // the tails' kernels (stager_tail.cpp); none on the CPU
  BatchQueue to_stage_, to_complete_;
  std::thread staging_thread_, completion_thread_;
};

}  // namespace ferry::core
