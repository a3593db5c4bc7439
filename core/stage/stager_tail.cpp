// Stager: a chunk whose image's last rows are read in place while the rest is
// copied (tail_in_place.h).
#include "core/stage/nvtx.h"
#include "core/stage/stager.h"

namespace ferry::core {

// The tail's rows where the batch is one image pinned by ferry, copied
// directly and untimed, on a GPU whose kernels read pinned memory (the tail's
// stream exists: Stager's constructor). Timed chunks keep one copy: their
// `copied` event tells the caller the source may be reused
// (Stager::source_reusable), which a tail still read after it would break.
std::int64_t Stager::tail_rows_read_in_place(const Batch& b, const void* slot) const {
  const Submitted& s = b.submitted;
  if (tail_stream_ == nullptr || slot != nullptr || s.route != BatchRoute::kDirect || b.chunks_.size() != 1 ||
      b.footprint_.on() || b.batch_table_ != nullptr || timed_on_device(b, true))
    return 0;
  return s.in_ferry_pinned ? tail_rows_in_place(s.plan, s.layout) : 0;
}

// The head's kernel on the chunk's stream, after its copy; the tail's on
// tail_stream_ from the same point (the copy's end, after what the conversion
// must follow: follow_entry ran on `stream`), reading the caller's pinned
// rows; the chunk's stream then waits for the tail, so its done event marks
// both. The tail's kernel goes first: its blocks wait on the bus and should
// hold their places before the head's fill the GPU.
void Stager::convert_with_tail_in_place(Batch& b, std::int64_t tail_rows, const void* head, StreamHandle stream) {
  NvtxRange range("ferry convert, tail in place");
  const RowSplit split = split_rows(b.submitted.plan, tail_rows);
  auto* out = static_cast<std::uint8_t*>(b.submitted.output);
  EventPool& events = memory_.event_pool();
  b.tail_events_[0] = events.acquire();
  b.tail_events_[1] = events.acquire();
  runtime_.event_record(b.tail_events_[0], stream);
  runtime_.stream_wait(tail_stream_, b.tail_events_[0]);
  SourceView in_place = b.submitted.view;
  in_place.base += split.tail_source_offset;
  converter_.convert(split.tail, in_place, 0, 1, out + split.tail_output_offset, tail_stream_, nullptr);
  // Should this record fail, the tail's kernel is not ordered before the
  // batch's end; only a device error that fails every later call too (the
  // context's end) makes it fail.
  runtime_.event_record(b.tail_events_[1], tail_stream_);
  try {
    converter_.convert(split.head, staged_view(head, b.submitted.layout), 0, 1, out + split.head_output_offset,
                       stream, nullptr);
  } catch (...) {
    runtime_.stream_wait(stream, b.tail_events_[1]);  // the batch's end still follows the tail
    throw;
  }
  runtime_.stream_wait(stream, b.tail_events_[1]);
}

}  // namespace ferry::core
