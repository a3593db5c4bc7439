// Stager: the work of a batch (chunks: gather, copy, convert), the join of
// its streams, and its completion.
#include <algorithm>
#include <chrono>
#include <vector>

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

// The converter reads a view's samples 0 .. count-1 as global first ..
// first+count-1: the caller's view from sample `first` on.
SourceView Stager::view_from(SourceView view, std::int64_t first) {
  if (view.samples != nullptr) {
    view.samples += first;
    if (view.sample_geometry != nullptr) view.sample_geometry += first;
  } else {
    view.base += first * view.strides.n;
  }
  if (view.resident.device_indices != nullptr) view.resident.device_indices += first;
  return view;
}

// The chunk's end: a timing event where the chunk is timed, else a plain one.
// Recording a timing event cost about four times as much on an H100 (1.4 us
// against 0.35), a good part of one image's latency.
void Stager::take_done_event(ChunkWork& work, bool timed) {
  work.done = (timed ? memory_.timing_event_pool() : memory_.event_pool()).acquire();
}

// A timing event before and after a chunk's copy delays its kernel and the
// next copy: measured on an H200, a 1080p BGRA frame (8.3 MB, one chunk)
// ended +28 us after a memcpy of it with them and +20 without; back-to-back
// NV12 frames (3.1 MB) ran at 0.94-0.95 of the memcpy's rate with them,
// 0.98-0.99 without. So AUTO leaves out batches of one sample (a camera or
// render frame, one image), whose latency is the point, and times the rest,
// where a chunk's copy is long beside them.
bool Stager::timed_on_device(const Batch& b, bool has_copy) const noexcept {
  if (!runtime_.has_streams()) return false;
  if (has_copy && b.submitted.short_path) return false;  // three event records: much of a short batch's latency
  switch (parts_.options.device_timing) {
    case DeviceTiming::kOff:
      return false;
    case DeviceTiming::kOn:
      return true;
    case DeviceTiming::kAuto:
      break;
  }
  return b.submitted.plan.n > 1;
}

void Stager::run(Batch& b) {
  try {
    DeviceScope scope(runtime_);
    if (b.submitted.route == BatchRoute::kStaged) {
      run_staged(b);  // stager_gather.cpp: each chunk gathered, then run_chunk with its slot
    } else {
      for (ChunkWork& work : b.chunks_) run_chunk(b, work, nullptr);
    }
  } catch (...) {
    const Error e = error_of_current_exception();
    std::lock_guard<std::mutex> lock(b.mutex);
    b.fail_locked(e);
  }
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    b.advance_locked(BatchStage::kGathered);  // every chunk read from the source (or the batch failed)
  }
  b.changed.notify_all();
  join(b);
}

void Stager::run_chunk(Batch& b, ChunkWork& work, void* slot) {
  const Chunk& c = work.chunk;
  if (b.submitted.route == BatchRoute::kConvertOnHost) {
    NvtxRange range("ferry convert");
    const auto start = Clock::now();
    converter_.convert(b.submitted.plan, view_from(b.submitted.view, c.first), c.first, c.count, b.submitted.output,
                       nullptr);
    counters_.convert_ns.fetch_add(ns_since(start), std::memory_order_relaxed);
    counters_.timed_chunks.fetch_add(1, std::memory_order_relaxed);
    work.queued = true;
    return;
  }
  if (b.submitted.route == BatchRoute::kResident) {
    run_resident_chunk(b, work);
    return;
  }
  if (b.submitted.copies_bytes) {
    run_copy_chunk(b, work, slot);
    return;
  }
  if (b.submitted.read_in_place) {
    run_in_place_chunk(b, work, slot);
    return;
  }
  // A footprint's slot (rows, table) is copied behind the chunk's packed
  // samples in the input buffer, then its rows placed among them (place_rows).
  const bool footprint = b.footprint_.on();
  const std::uint64_t copy_at = footprint ? work.footprint.slot_at : 0;
  const std::int64_t tail_rows = tail_rows_read_in_place(b, slot);  // copy the head only, read the tail in place
  const std::uint64_t copy_bytes = footprint       ? work.footprint.slot_bytes
                                   : tail_rows > 0 ? head_source_bytes(b.submitted.plan, tail_rows)
                                                   : c.bytes;
  StreamInputs::Lease lease = [&] {
    try {
      return inputs_->lease(work.stream_index, static_cast<std::size_t>(copy_at + copy_bytes));
    } catch (...) {
      if (slot != nullptr) ring_->release_unused(slot);
      throw;
    }
  }();
  const StreamHandle s = lease.stream();
  bool copy_started = false;
  try {
    const bool timed = timed_on_device(b, true);
    if (timed) {
      work.start = memory_.timing_event_pool().acquire();
      work.copied = memory_.timing_event_pool().acquire();
    }
    take_done_event(work, timed);
    const bool timed_here = !runtime_.has_streams();
    if (work.start != nullptr) runtime_.event_record(work.start, s);
    auto start = Clock::now();
    {
      NvtxRange range("ferry copy");
      copy_started = true;
      if (slot != nullptr) {
        auto* buffer = static_cast<std::uint8_t*>(lease.buffer());
        runtime_.copy(buffer + copy_at, slot, static_cast<std::size_t>(copy_bytes), s);
      } else if (tail_rows > 0) {
        runtime_.copy(lease.buffer(), b.submitted.view.base, static_cast<std::size_t>(copy_bytes), s);
      } else {
        copy_chunk_direct(b, c, lease.buffer(), s);
      }
    }
    if (work.copied != nullptr) runtime_.event_record(work.copied, s);
    if (timed_here) counters_.h2d_ns.fetch_add(ns_since(start), std::memory_order_relaxed);
    if (slot != nullptr) {
      void* copied = slot;
      slot = nullptr;
      ring_->release_after_copy(copied, s);
    }
    if (footprint) place_rows(work.footprint, static_cast<std::uint8_t*>(lease.buffer()), s);
    follow_entry(b, work, s);  // the conversion writes: after what it must follow (allocate_output)
    if (b.table_event_ != nullptr && work.stream_index != b.submitted.home_index)
      runtime_.stream_wait(s, b.table_event_);  // the batch's table, copied on the home stream
    start = Clock::now();
    if (tail_rows > 0) {
      convert_with_tail_in_place(b, tail_rows, lease.buffer(), s);
    } else {
      NvtxRange range("ferry convert");
      StagedSamples staged;  // samples of different sizes: where each lies in the buffer
      const SourceView view = b.submitted.plan.variable_sizes()
                                  ? staged.view_of(b.submitted.plan, b.submitted.sample_layouts, b.submitted.sample_offsets,
                                                   c.first, c.count, static_cast<const std::uint8_t*>(lease.buffer()))
                                  : staged_view(lease.buffer(), b.submitted.layout);
      converter_.convert(b.submitted.plan, view, c.first, c.count, b.submitted.output, s, b.batch_table_);
    }
    runtime_.event_record(work.done, s);
    if (timed_here) {
      counters_.convert_ns.fetch_add(ns_since(start), std::memory_order_relaxed);
      counters_.timed_chunks.fetch_add(1, std::memory_order_relaxed);
    }
    work.queued = true;
  } catch (...) {
    abandon_chunk(work, slot, copy_started, s);
    throw;
  }
}

void Stager::follow_entry(Batch& b, const ChunkWork& work, StreamHandle s) {
  if (b.entry_event_ == nullptr) return;
  if (b.entry_pending_) {  // only the thread that runs the chunks reads or writes it
    runtime_.event_record(b.entry_event_, b.submitted.handoff_stream);
    b.entry_pending_ = false;
  }
  if (b.entry_on_handoff_ || work.stream_index != b.submitted.home_index) runtime_.stream_wait(s, b.entry_event_);
}

// Whatever was queued on s must be waited for before the batch's memory (and
// the source) is given back: the chunk's end marked on s, and its staging slot
// given back after its copy (or at once, if none was queued).
void Stager::abandon_chunk(ChunkWork& work, void* slot, bool copy_queued, StreamHandle s) noexcept {
  if (copy_queued && work.done != nullptr && !work.queued) {
    try {
      runtime_.event_record(work.done, s);
      work.queued = true;
    } catch (...) {
    }
  }
  if (slot == nullptr) return;
  try {
    if (copy_queued) {
      ring_->release_after_copy(slot, s);
    } else {
      ring_->release_unused(slot);
    }
  } catch (...) {
  }
}

void Stager::copy_chunk_direct(Batch& b, const Chunk& c, void* dst_void, StreamHandle s) {
  const SampleLayout& L = b.submitted.layout;
  auto* dst = static_cast<std::uint8_t*>(dst_void);
  if (b.submitted.plan.variable_sizes()) {
    // A copy per sample, each at its own size and pitch; packed samples that
    // follow one another in the caller's memory (a decoder's pinned arena)
    // go as one copy: each copy costs the host and the copy engine microseconds.
    const std::uint64_t origin = b.submitted.sample_offsets[static_cast<std::size_t>(c.first)];
    const std::uint8_t* run_from = nullptr;  // the packed run being gathered
    std::uint8_t* run_to = nullptr;
    std::size_t run_bytes = 0;
    auto flush = [&] {
      if (run_bytes != 0) runtime_.copy(run_to, run_from, run_bytes, s);
      run_bytes = 0;
    };
    for (std::int64_t i = 0; i < c.count; ++i) {
      const auto g = static_cast<std::size_t>(c.first + i);
      const SampleLayout& G = b.submitted.sample_layouts[g];
      std::uint8_t* to = dst + (b.submitted.sample_offsets[g] - origin);
      const std::uint8_t* from = b.submitted.plan.sample_data[g];
      if (G.is_packed()) {
        if (run_bytes != 0 && from == run_from + run_bytes) {
          run_bytes += static_cast<std::size_t>(G.packed_bytes);  // `to` follows the run too: offsets are packed
          continue;
        }
        flush();
        run_from = from, run_to = to, run_bytes = static_cast<std::size_t>(G.packed_bytes);
      } else {
        flush();
        const auto row = static_cast<std::size_t>(G.row_bytes);
        runtime_.copy_2d(to, row, from, static_cast<std::size_t>(G.pitch), row, static_cast<std::size_t>(G.rows), s);
      }
    }
    flush();
    return;
  }
  const auto packed = static_cast<std::size_t>(L.packed_bytes);
  const auto row = static_cast<std::size_t>(L.row_bytes);
  const auto pitch = static_cast<std::size_t>(L.pitch);
  const auto rows = static_cast<std::size_t>(L.rows);
  const auto count = static_cast<std::size_t>(c.count);
  if (!b.submitted.plan.source_has_samples) {
    const std::int64_t stride_n = b.submitted.plan.source_strides.n;
    const std::uint8_t* src = b.submitted.view.base + c.first * stride_n;
    if (L.is_packed()) {
      if (count == 1 || stride_n == static_cast<std::int64_t>(packed)) {
        runtime_.copy(dst, src, static_cast<std::size_t>(c.bytes), s);
      } else {
        runtime_.copy_2d(dst, packed, src, static_cast<std::size_t>(stride_n), packed, count, s);
      }
    } else if (count == 1 || stride_n == static_cast<std::int64_t>(rows * pitch)) {
      runtime_.copy_2d(dst, row, src, pitch, row, count * rows, s);  // the whole chunk as one 2-D copy
    } else {
      for (std::size_t i = 0; i < count; ++i)
        runtime_.copy_2d(dst + i * packed, row, src + i * static_cast<std::size_t>(stride_n), pitch, row, rows, s);
    }
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* src = b.submitted.view.samples[c.first + static_cast<std::int64_t>(i)];
    if (L.is_packed()) {
      runtime_.copy(dst + i * packed, src, packed, s);
    } else {
      runtime_.copy_2d(dst + i * packed, row, src, pitch, row, rows, s);
    }
  }
}

void Stager::join(Batch& b) {
  if (b.submitted.route != BatchRoute::kConvertOnHost) {
    // The done event marks the end of every queued chunk on the home stream.
    // If it cannot be made, completion waits for each chunk's own end instead.
    EventHandle done = nullptr;
    try {
      DeviceScope scope(runtime_);
      const ChunkWork& only = b.chunks_.front();
      if (b.chunks_.size() == 1 && only.queued && only.stream_index == b.submitted.home_index) {
        done = only.done;  // one chunk on the home stream: its end is the batch's end
      } else {
        for (const ChunkWork& w : b.chunks_)
          if (w.queued && w.stream_index != b.submitted.home_index) runtime_.stream_wait(b.submitted.home_stream, w.done);
        EventLease event(memory_.event_pool());
        runtime_.event_record(event.get(), b.submitted.home_stream);
        done = event.release();
        b.owns_done_event_ = true;
      }
    } catch (...) {
      const Error e = error_of_current_exception();
      std::lock_guard<std::mutex> lock(b.mutex);
      b.fail_locked(e);
    }
    try {
      if (done != nullptr && b.submitted.has_handoff) {
        DeviceScope scope(runtime_);
        runtime_.stream_wait(b.submitted.handoff_stream, done);
      }
    } catch (...) {
      const Error e = error_of_current_exception();
      std::lock_guard<std::mutex> lock(b.mutex);
      b.fail_locked(e);
    }
    std::lock_guard<std::mutex> lock(b.mutex);
    b.done_event_ = done;
  }
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    b.advance_locked(BatchStage::kEnqueued);
  }
  b.changed.notify_all();
  // The completion thread holds a reference from here on; the caller's may go.
  std::shared_ptr<Batch> self = b.shared_from_this();
  try {
    to_complete_.push(self, 0);
  } catch (...) {
    finish(self);  // no memory for the queue: complete it here
  }
}

}  // namespace ferry::core
