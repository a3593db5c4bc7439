// Stager's submit phase: validate, route, plan, allocate (prepare), then
// start the work (launch).
#include <algorithm>
#include <limits>

#include "core/checked_math.h"
#include "core/enum_field.h"
#include "core/error.h"
#include "core/stage/stager.h"

namespace ferry::core {
namespace {

// Gives a place in flight back unless dismissed (submit failed before launch).
class GatePlace {
 public:
  explicit GatePlace(InFlightGate& gate) : gate_(&gate) {}
  ~GatePlace() {
    if (gate_ != nullptr) gate_->leave();
  }
  void dismiss() noexcept { gate_ = nullptr; }

 private:
  InFlightGate* gate_;
};

}  // namespace

std::shared_ptr<Batch> Stager::prepare(const SourceDesc& source,
                                       const Transform& transform, const OutputDesc* output,
                                       const SubmitOptions& options) {
  checked_enum_field(options.source_policy, {SourcePolicy::Auto, SourcePolicy::Stage, SourcePolicy::Register},
                     "options->source_policy",
                     "FERRY_SOURCE_AUTO (0), FERRY_SOURCE_STAGE (1) or FERRY_SOURCE_REGISTER (2)");
  FERRY_EXPECT(options.priority >= 0, Status::InvalidArgument, "options->priority is ", options.priority,
               ": must be 0 (normal) or positive (high)");
  // has_handoff is the one switch: a stream without it would be ignored, or read as a request.
  FERRY_EXPECT(options.has_handoff || options.handoff_stream == nullptr, Status::InvalidArgument,
               "options->handoff_stream is ", options.handoff_stream,
               " but options->has_handoff_stream is 0: set has_handoff_stream to 1 to hand off to that stream, "
               "or handoff_stream to NULL for no hand-off");
  auto batch = std::make_shared<Batch>(link_);
  Batch& b = *batch;
  b.submitted.plan = make_convert_plan(source, transform, output);
  take_unreleased_slot();  // given back by the batch's first release (or abandon), or below if prepare fails
  struct SlotGuard {
    Stager& stager;
    bool keep = false;
    ~SlotGuard() {
      if (!keep) stager.give_unreleased_slot_back();
    }
  } slot{*this};
  b.submitted.view = source_view_of(b.submitted.plan, source);
  // Variable sizes: the view already reads the plan's own copy of the pointers.
  if (b.submitted.plan.source_has_samples && !b.submitted.plan.variable_sizes()) {
    const auto n = static_cast<std::size_t>(b.submitted.plan.n);
    b.submitted.sample_pointers.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      b.submitted.sample_pointers[i] = static_cast<const std::uint8_t*>(source.samples[i]);
      FERRY_EXPECT(b.submitted.sample_pointers[i] != nullptr, Status::InvalidArgument, "source.samples[", i,
                   "] is NULL (source.n is ", b.submitted.plan.n, ")");
    }
    b.submitted.view.samples = b.submitted.sample_pointers.data();
  }
  b.submitted.view.resident = options.resident;
  if (output != nullptr)
    FERRY_EXPECT(output->data != nullptr, Status::InvalidArgument,
                 "output->data is NULL: pass output = NULL to have ferry allocate the output");
  if (!b.submitted.plan.variable_sizes()) {
    b.submitted.layout = sample_layout_of(b.submitted.plan);
    b.submitted.input_bytes = checked_mul(static_cast<std::uint64_t>(b.submitted.plan.n), b.submitted.layout.packed_bytes, "source bytes");
  } else {
    const auto n = static_cast<std::size_t>(b.submitted.plan.n);
    b.submitted.sample_layouts.resize(n);
    b.submitted.sample_offsets.assign(n + 1, 0);
    for (std::size_t g = 0; g < n; ++g) {
      b.submitted.sample_layouts[g] = sample_layout_of(b.submitted.plan, static_cast<std::int64_t>(g));
      b.submitted.sample_offsets[g + 1] = b.submitted.sample_offsets[g] + b.submitted.sample_layouts[g].packed_bytes;
    }
    b.submitted.input_bytes = b.submitted.sample_offsets[n];
  }
  b.submitted.short_path = b.submitted.input_bytes <= kShortPathBytes;
  b.submitted.copies_bytes = b.submitted.plan.copies_bytes() && (output == nullptr || output->stride_n == 0 ||
                                                                 output->stride_n == b.submitted.plan.out_strides.n);
  b.submitted.priority = options.priority;
  b.submitted.on_complete = options.on_complete;
  b.submitted.has_handoff = options.has_handoff;
  b.submitted.handoff_stream = options.handoff_stream;
  if (b.submitted.has_handoff) b.consumers_.push_back(b.submitted.handoff_stream);  // it reads the output: the release waits for it

  const bool block = parts_.options.submit_nonblocking == 0 && !on_completion_thread();
  if (!gate_.enter(block))
    fail(Status::Busy, "ctx has ", gate_.max_in_flight(),
         " batches in flight (options->max_batches_in_flight): ",
         on_completion_thread() ? "a submit from a completion callback never waits for a place"
                                 : "the context was created with submit_nonblocking");
  GatePlace place(gate_);
  DeviceScope scope(runtime_);
  if (options.resident_source != nullptr) {
    b.resident_source_ = options.resident_source;
    b.submitted.route = parts_.convert_on_host ? BatchRoute::kConvertOnHost : BatchRoute::kResident;
  } else {
    b.submitted.in_ferry_pinned = classify(b, options.source_policy);
  }
  b.submitted.read_in_place = reads_in_place(b);
  try {
    plan_streams(b, options.chunk_bytes);
    allocate_output(b, output);
    upload_batch_table(b);
  } catch (...) {
    free_batch_table(b);
    unpin_source(b);
    throw;
  }
  b.submitted.info = tensor_desc_of(b.submitted.plan, b.submitted.output, parts_.kind, parts_.kind == DeviceKind::Cuda ? parts_.device_index : -1);
  place.dismiss();  // the batch's first observer of completion gives it back
  slot.keep = true;
  return batch;
}

// Whether the kernel reads the batch where it lies in ferry's pinned memory,
// over the bus, with no copy before it (run_in_place_chunk):
//  - a short batch (its staging slot, or a source in ferry's pinned memory):
//    its latency is the copy's and the kernel's added up;
//  - one image or frame in ferry's pinned memory, resized by taps that touch
//    at most kInPlaceMaxShare of it (ConvertPlan::resize_source_share). A
//    detector's letterbox of a 1080p frame to 640 (two thirds of the rows)
//    read in place took 108-113 us, 9-19 us less than a pinned memcpy of the
//    frame, against 25 us more with the copy, and ran back to back at
//    1.14-1.19 of the memcpy's rate (H200). The same letterbox of an NV12
//    frame, whose taps of weight 0 are not read (ConvertPlan::decodes_at_taps:
//    luma rows 3r + 1 and their chroma rows, 0.44 of the frame), took 6-10 us
//    less than its memcpy (17-19 us more with the copy) and ran back to back
//    at 1.39-1.46 of its rate. Not:
//    - batches: 256 RandomResizedCrops read in place (the source's tiles
//      brought to shared memory over the bus) ran at 0.68 of the bus limit,
//      against 0.97-1.02 copied;
//    - frames whose taps read most of them: that NV12 letterbox loading both
//      taps of each axis (two thirds of the luma rows, every chroma row) ran
//      back to back at 0.73 of the memcpy's rate (0.95 copied) and 4 us
//      slower;
//    - a kernel that reads every byte (a 1080p BGRA frame, no resize): 0.89
//      of the memcpy's rate, no faster.
bool Stager::reads_in_place(const Batch& b) const noexcept {
  constexpr double kInPlaceMaxShare = 0.7;
  const Submitted& s = b.submitted;
  if (!runtime_.kernels_read_pinned_memory() || s.copies_bytes) return false;
  if (s.route == BatchRoute::kStaged) return s.short_path;
  if (s.route != BatchRoute::kDirect || !s.in_ferry_pinned) return false;
  return s.short_path || (s.plan.n == 1 && s.plan.resize && s.plan.resize_source_share() <= kInPlaceMaxShare);
}

void Stager::take_unreleased_slot() {
  const auto limit = static_cast<std::uint64_t>(parts_.options.max_unreleased_batches);
  if (unreleased_.fetch_add(1, std::memory_order_relaxed) >= limit) {
    unreleased_.fetch_sub(1, std::memory_order_relaxed);
    fail(Status::OutOfMemory, "ctx holds ", limit,
         " batches that were submitted and not released (options->max_unreleased_batches): each holds its "
         "output and bookkeeping until ferry_batch_release; release the batches you are done with");
  }
}

void Stager::give_unreleased_slot_back() noexcept { unreleased_.fetch_sub(1, std::memory_order_relaxed); }

bool Stager::classify(Batch& b, SourcePolicy policy) {
  if (parts_.convert_on_host) {
    b.submitted.route = BatchRoute::kConvertOnHost;
    return false;
  }
  b.submitted.route = BatchRoute::kStaged;
  // Only sources a DMA copy can read as rows go directly; the rest is packed on the host.
  const ConvertPlan& plan = b.submitted.plan;
  const bool rows = std::all_of(b.submitted.sample_layouts.begin(), b.submitted.sample_layouts.end(),
                                [](const SampleLayout& l) { return l.is_rows(); }) &&
                    (plan.variable_sizes() || b.submitted.layout.is_rows());
  if (policy == SourcePolicy::Stage || !rows) return false;
  std::vector<std::pair<const void*, std::size_t>> ranges;
  const std::size_t extent = static_cast<std::size_t>(plan.source_extent);
  if (plan.variable_sizes()) {
    for (std::size_t g = 0; g < plan.sample_data.size(); ++g)
      ranges.emplace_back(plan.sample_data[g], static_cast<std::size_t>(plan.sample_sources[g].extent));
  } else if (plan.source_has_samples) {
    for (const std::uint8_t* p : b.submitted.sample_pointers) ranges.emplace_back(p, extent);
  } else {
    ranges.emplace_back(b.submitted.view.base, extent);
  }
  HostRegistry& registry = memory_.registry();
  bool ferry_pinned = true;
  for (const auto& [ptr, bytes] : ranges) {
    if (memory_.is_ferry_pinned(ptr, bytes)) continue;
    ferry_pinned = false;
    if (registry.pin_if_registered(ptr, bytes) ||
        (policy == SourcePolicy::Register && registry.lookup_or_register(ptr, bytes, true))) {
      b.pinned_ranges_.emplace_back(ptr, bytes);
      continue;
    }
    const HostMemoryKind first = runtime_.pointer_kind(ptr);
    const HostMemoryKind last = runtime_.pointer_kind(static_cast<const std::uint8_t*>(ptr) + bytes - 1);
    if (first != HostMemoryKind::kPageable && first == last) continue;
    unpin_source(b);  // one pageable range: the whole batch is staged
    return false;
  }
  b.submitted.route = BatchRoute::kDirect;
  return ferry_pinned;
}

void Stager::plan_streams(Batch& b, std::uint64_t chunk_option) {
  std::uint64_t chunk_bytes = choose_chunk_bytes(chunk_option, parts_.options.chunk_bytes,
                                                 b.submitted.route == BatchRoute::kDirect, parts_.kind == DeviceKind::Cuda);
  // Staged chunks are double-buffered at least: the ring holds two of them.
  if (b.submitted.route == BatchRoute::kStaged) chunk_bytes = std::min(chunk_bytes, ring_->max_bytes() / 2);
  // A resident source is converted in one piece: nothing to overlap with.
  if (b.submitted.route == BatchRoute::kResident) chunk_bytes = std::numeric_limits<std::uint64_t>::max();
  const std::vector<Chunk> chunks = b.submitted.plan.variable_sizes()
                                        ? plan_chunks_by_offsets(b.submitted.sample_offsets, chunk_bytes)
                                        : plan_chunks(b.submitted.plan.n, b.submitted.layout.packed_bytes, chunk_bytes);
  const bool high = b.submitted.priority > 0;
  // A resident gather (one kernel) always goes on its tier's first stream, not
  // the next in turn: on an H200 the CIFAR batch-256 gather's kernel took
  // 5.3-5.7 us where every gather ran on one stream, 5.6-6.5 (mostly 6.3-6.5)
  // where each took the next of four, in the same processes. Round-robin buys
  // a gather nothing: its one kernel has no copy to overlap.
  const bool resident = b.submitted.route == BatchRoute::kResident;
  const std::size_t ticket = resident ? 0 : streams_.take(high, chunks.size());
  b.chunks_.resize(chunks.size());
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    ChunkWork& w = b.chunks_[k];
    w.chunk = chunks[k];
    w.stream_index = streams_.index(high, ticket + k);
    w.stream = streams_.at(w.stream_index);
  }
  b.submitted.home_index = b.chunks_.front().stream_index;
  b.submitted.home_stream = b.chunks_.front().stream;
}

void Stager::allocate_output(Batch& b, const OutputDesc* output) {
  if (output != nullptr) {
    b.submitted.output = output->data;
  } else {
    DeviceCache& cache = memory_.device_cache();
    b.submitted.output = cache.allocate(static_cast<std::size_t>(b.submitted.plan.out_extent), b.submitted.home_stream);
    try {
      b.output_block_ = std::make_shared<OutputBlock>(output_home_, b.submitted.output, b.submitted.home_stream);
    } catch (...) {
      cache.free(b.submitted.output, b.submitted.home_stream);
      b.submitted.output = nullptr;
      throw;
    }
    b.submitted.owns_output = true;
  }
  if (!runtime_.has_streams() || b.submitted.route == BatchRoute::kConvertOnHost) return;
  // What every chunk's conversion must follow, recorded once here. The copies
  // never wait for it: they write ferry's own input buffers, so the bus stays
  // busy while the hand-off stream still runs the caller's earlier work.
  //  - a caller's destination with a hand-off: the work queued on the hand-off
  //    stream so far (it may still read the destination being overwritten);
  //  - a ferry-allocated output: its allocation on the home stream, for the
  //    chunks on other streams. Nothing else can read a block ferry just
  //    allocated, so the hand-off stream's work is not waited for, unless it
  //    wrote the indices of a gather on the device (SubmitOptions::resident).
  b.entry_on_handoff_ = b.submitted.has_handoff &&
                       (!b.submitted.owns_output || b.submitted.view.resident.device_indices != nullptr);
  if (!b.entry_on_handoff_ && (!b.submitted.owns_output || b.chunks_.size() == 1)) return;  // nothing to follow
  b.entry_event_ = memory_.event_pool().acquire();
  // On the hand-off stream, where the submitting thread runs the batch: the
  // first chunk records it (follow_entry), after its copy is queued and still
  // before submit returns, so it follows the same work of the caller's and
  // the copy starts one CUDA call sooner. Not on the home stream: recorded
  // after a chunk's copy there, it would hold the other chunks behind it.
  if (b.entry_on_handoff_ && runs_in_submit(b)) {
    b.entry_pending_ = true;
    return;
  }
  runtime_.event_record(b.entry_event_, b.entry_on_handoff_ ? b.submitted.handoff_stream : b.submitted.home_stream);
}

bool Stager::runs_in_submit(const Batch& b) const noexcept {
  return b.submitted.route == BatchRoute::kDirect || b.submitted.route == BatchRoute::kResident ||
         b.submitted.short_path;
}

void Stager::upload_batch_table(Batch& b) {
  // Once per batch, not per chunk: one host table, one copy.
  if (!runtime_.has_streams() || b.submitted.route == BatchRoute::kConvertOnHost) return;
  // A resident gather whose windows the kernel draws (ConvertPlan::WindowDraws)
  // needs no table: the gather kernel takes it, or the table path builds its own.
  if (b.submitted.route == BatchRoute::kResident && b.submitted.view.resident.base != nullptr &&
      b.submitted.plan.window_draws.on)
    return;
  b.batch_table_ = converter_.upload_batch_table(b.submitted.plan, b.submitted.home_stream);
  if (b.batch_table_ == nullptr || b.chunks_.size() == 1) return;
  b.table_event_ = memory_.event_pool().acquire();
  runtime_.event_record(b.table_event_, b.submitted.home_stream);
}

void Stager::free_batch_table(Batch& b) noexcept {
  if (b.table_event_ != nullptr) memory_.event_pool().release(b.table_event_);
  b.table_event_ = nullptr;
  if (b.batch_table_ == nullptr) return;
  try {
    // Every kernel that read it has completed (the batch finished) or none
    // was queued: the home stream's order is enough.
    memory_.device_cache().free(b.batch_table_, b.submitted.home_stream);
  } catch (...) {
    // The cache frees its segments when the context goes.
  }
  b.batch_table_ = nullptr;
}

void Stager::launch(const std::shared_ptr<Batch>& batch) noexcept {
  Batch& b = *batch;
  b.submitted.launched = true;
  counters_.batches_submitted.fetch_add(1, std::memory_order_relaxed);
  // input_bytes counts the batches' source bytes (a staged footprint sends fewer over the bus);
  // a resident gather moves nothing.
  if (b.resident_source_ == nullptr)
    counters_.input_bytes.fetch_add(b.submitted.input_bytes, std::memory_order_relaxed);
  if (runs_in_submit(b)) {
    run(b);  // no hand-off: queuing DMA from pinned memory, or a small copy, is faster here
    return;
  }
  try {
    to_stage_.push(batch, b.submitted.priority);
  } catch (...) {
    run(b);  // no memory for the queue: do the work here rather than lose it
    return;
  }
  if (b.submitted.has_handoff && runtime_.has_streams()) {
    // A hand-off stream must wait for the batch from the moment submit
    // returns: CUDA's cudaStreamWaitEvent only sees records made before it,
    // so the host waits here until the staging thread has queued every chunk
    // and the stream's wait on the done event (the DMA and kernels still run
    // asynchronously).
    std::unique_lock<std::mutex> lock(b.mutex);
    b.wait_locked(lock, BatchStage::kEnqueued);
  }
}

}  // namespace ferry::core
