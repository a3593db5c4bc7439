// One large image or frame, pinned by ferry, converted in two bands of rows:
// the copy engine brings the head (every row but the last few) into device
// memory and a kernel converts it there, while a second kernel, on another
// stream, converts the tail (the last rows) where it lies in pinned memory,
// reading it over the bus (DeviceRuntime::kernels_read_pinned_memory).
//
// Why: a frame's latency is its copy, then its kernel. The tail's rows leave
// the copy, so it ends sooner by their bus time, and the tail's kernel reads
// them over the bus while the head's kernel runs; both start together once
// the head is copied. Measured on an H200 (ferry_bench_frame, a 1080p BGRA
// frame to RGB f16 NCHW, mirror Y, into the engine's buffer; three rounds
// alternated in one process each): +15.3 / +17.6 / +17.1 us over a pinned
// memcpy of the frame with one copy and one kernel, +13.1 / +12.8 / +11.9
// with the tail; back to back 0.99-1.00 and 0.97-0.98 of the memcpy's rate.
// Tails of 8 to 96 rows all gained, 24 to 64 the most (bench/RESULTS.md,
// 2026-12-01, twelfth session).
//
// The tail is 1/96 of the image's bytes and the output's added up (29 rows
// of that frame, among the tails of 24 to 64 rows that measured best): read
// over the bus in about the time the head's kernel takes to move the rest
// through device memory. Under kMinTailBytes (about a microsecond of bus
// time) a second kernel is not worth it.
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"
#include "core/stage/sample_layout.h"

namespace ferry::core {

// The two bands of one image, each a plan of its own over its rows, whose
// output rows go to their places in the one output (mirror Y: the tail's rows
// first). Offsets in bytes: in the source from its start, in the output from
// the image's start.
struct RowSplit {
  ConvertPlan head, tail;
  std::uint64_t tail_source_offset = 0;  // where the tail's rows start: the head's bytes (head_source_bytes)
  std::uint64_t head_output_offset = 0, tail_output_offset = 0;
};

constexpr std::uint64_t kMinTailBytes = 64 * 1024;

// How many of the image's last rows to read in place: 0 where the plan is not
// one packed image converted row for row (a window, a resize, per-sample
// parameters, a frame format, an NCHW source, more than one sample), or the
// tail would be under kMinTailBytes.
std::int64_t tail_rows_in_place(const ConvertPlan& plan, const SampleLayout& layout) noexcept;

// The bytes of the head's rows (the copy): every row but the last tail_rows.
inline std::uint64_t head_source_bytes(const ConvertPlan& plan, std::int64_t tail_rows) noexcept {
  return static_cast<std::uint64_t>((plan.h - tail_rows) * plan.source_strides.h);
}

// The plans of the head (rows 0 .. h - tail_rows - 1) and the tail (the
// rest). 0 < tail_rows < plan.h, for a plan tail_rows_in_place accepts.
RowSplit split_rows(const ConvertPlan& plan, std::int64_t tail_rows);

}  // namespace ferry::core
