// Stager: the chunks that skip the input buffer: a resident source's
// conversion alone (no copy), a copy alone (no conversion) where the output
// is the source's bytes, and a conversion that reads its source where it
// lies in ferry's pinned memory.
#include <chrono>

#include "core/stage/nvtx.h"
#include "core/stage/stager.h"

namespace ferry::core {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t ns_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

}  // namespace

// The source is in device memory already (a resident dataset): the
// conversion alone, on the chunk's stream, timed from its start (no copied
// event: each event recorded between the two is GPU time the gather pays).
void Stager::run_resident_chunk(Batch& b, ChunkWork& work) {
  const Chunk& c = work.chunk;
  const StreamHandle s = work.stream;
  NvtxRange range("ferry gather");
  const bool timed = timed_on_device(b, false);
  if (timed) work.start = memory_.timing_event_pool().acquire();
  take_done_event(work, timed);
  follow_entry(b, work, s);
  if (b.table_event_ != nullptr && work.stream_index != b.submitted.home_index)
    runtime_.stream_wait(s, b.table_event_);
  if (work.start != nullptr) runtime_.event_record(work.start, s);
  try {
    converter_.convert(b.submitted.plan, view_from(b.submitted.view, c.first), c.first, c.count, b.submitted.output, s, b.batch_table_);
  } catch (...) {
    runtime_.event_record(work.done, s);  // what was queued is waited for before the memory goes back
    work.queued = true;
    throw;
  }
  runtime_.event_record(work.done, s);
  work.queued = true;
}

// The output is the source's bytes packed (ConvertPlan::copies_bytes: a
// resident dataset's upload): the chunk goes straight to its place in the
// output, from the staging slot or the caller's pinned memory, with no input
// buffer and no kernel; the copy writes the output, so it follows the entry
// event as a conversion would.
void Stager::run_copy_chunk(Batch& b, ChunkWork& work, void* slot) {
  const Chunk& c = work.chunk;
  const StreamHandle s = work.stream;
  auto* dst = static_cast<std::uint8_t*>(b.submitted.output) +
              static_cast<std::uint64_t>(c.first) * b.submitted.layout.packed_bytes;
  bool copy_queued = false;
  try {
    NvtxRange range("ferry copy");
    const bool timed = timed_on_device(b, true);
    if (timed) {
      work.start = memory_.timing_event_pool().acquire();
      work.copied = memory_.timing_event_pool().acquire();
    }
    take_done_event(work, timed);
    follow_entry(b, work, s);
    if (work.start != nullptr) runtime_.event_record(work.start, s);
    const auto start = Clock::now();
    if (slot != nullptr) {
      runtime_.copy(dst, slot, static_cast<std::size_t>(c.bytes), s);
    } else {
      copy_chunk_direct(b, c, dst, s);
    }
    copy_queued = true;
    if (!runtime_.has_streams()) {
      counters_.h2d_ns.fetch_add(ns_since(start), std::memory_order_relaxed);
      counters_.timed_chunks.fetch_add(1, std::memory_order_relaxed);
    }
    if (work.copied != nullptr) runtime_.event_record(work.copied, s);
    if (slot != nullptr) {
      void* copied = slot;
      slot = nullptr;
      ring_->release_after_copy(copied, s);
    }
    runtime_.event_record(work.done, s);
    work.queued = true;
  } catch (...) {
    abandon_chunk(work, slot, copy_queued, s);
    throw;
  }
}

// A chunk Stager::reads_in_place chose (a short batch, or a resize that reads
// little of its source) is converted where it lies in ferry's pinned memory
// (its staging slot, or the caller's source): the kernel reads it over the
// bus through the host pointer (DeviceRuntime::kernels_read_pinned_memory).
// One CUDA call less than a copy and a kernel, and the kernel starts without
// waiting for a copy's end.
void Stager::run_in_place_chunk(Batch& b, ChunkWork& work, void* slot) {
  const Chunk& c = work.chunk;
  const StreamHandle s = work.stream;
  bool kernel_queued = false;
  try {
    NvtxRange range("ferry convert in place");
    take_done_event(work, false);
    follow_entry(b, work, s);
    if (b.table_event_ != nullptr && work.stream_index != b.submitted.home_index)
      runtime_.stream_wait(s, b.table_event_);
    StagedSamples staged;  // samples of different sizes: where each lies in the slot
    const auto* in = static_cast<const std::uint8_t*>(slot);
    const SourceView view = slot == nullptr ? view_from(b.submitted.view, c.first)
                            : b.submitted.plan.variable_sizes()
                                ? staged.view_of(b.submitted.plan, b.submitted.sample_layouts, b.submitted.sample_offsets,
                                                 c.first, c.count, in)
                                : staged_view(slot, b.submitted.layout);
    kernel_queued = true;  // from here on, a kernel may read the slot
    converter_.convert(b.submitted.plan, view, c.first, c.count, b.submitted.output, s, b.batch_table_);
    if (slot != nullptr) {
      void* read = slot;
      slot = nullptr;
      ring_->release_after_copy(read, s);  // after the kernel that reads it
    }
    runtime_.event_record(work.done, s);  // short batches are not timed on the device (run_chunk)
    work.queued = true;
  } catch (...) {
    abandon_chunk(work, slot, kernel_queued, s);
    throw;
  }
}

}  // namespace ferry::core
