// The bands of a frame whose tail is read in place (tail_in_place.h).
#include "core/stage/tail_in_place.h"

namespace ferry::core {
namespace {

constexpr std::uint64_t kTailShareDivisor = 96;  // the tail: 1/96 of the image's and the output's bytes
constexpr std::int64_t kMaxTailShare = 8;         // at most 1/8 of the rows

// Output row r of the image comes from source row r (mirror Y: h - 1 - r),
// and each row's output depends on its source row alone.
bool converts_row_for_row(const ConvertPlan& p) noexcept {
  return p.n == 1 && !p.variable_sizes() && !p.source_has_samples && !p.is_frame() && !p.resize &&
         !p.has_per_sample() && p.source_layout == Layout::NHWC && p.crop.x == 0 && p.crop.y == 0 &&
         p.out_h == p.h && p.out_w == p.w && !p.pad_outside && !p.any_outside && !p.contrast_mean &&
         !p.window_draws.on && !p.copies_bytes();
}

}  // namespace

std::int64_t tail_rows_in_place(const ConvertPlan& plan, const SampleLayout& layout) noexcept {
  if (!converts_row_for_row(plan) || !layout.is_packed() || plan.source_strides.h <= 0) return 0;
  const auto row_bytes = static_cast<std::uint64_t>(plan.source_strides.h);
  const std::uint64_t tail_bytes = (layout.packed_bytes + plan.out_extent) / kTailShareDivisor;
  if (tail_bytes < kMinTailBytes) return 0;
  const auto rows = static_cast<std::int64_t>((tail_bytes + row_bytes - 1) / row_bytes);
  return rows <= plan.h / kMaxTailShare ? rows : 0;
}

RowSplit split_rows(const ConvertPlan& plan, std::int64_t tail_rows) {
  const std::int64_t head_rows = plan.h - tail_rows;
  const bool flip = (plan.mirror & kMirrorY) != 0;
  const auto band = [&](std::int64_t rows, std::int64_t first_output_row) {
    ConvertPlan p = plan;
    p.h = p.out_h = rows;
    p.source_extent = p.source_sample_extent = static_cast<std::uint64_t>(rows * plan.source_strides.h);
    p.out_extent = plan.out_extent - static_cast<std::uint64_t>(first_output_row * plan.out_strides.h);
    return p;
  };
  RowSplit split;
  const std::int64_t head_first = flip ? tail_rows : 0, tail_first = flip ? 0 : head_rows;
  split.head = band(head_rows, head_first);
  split.tail = band(tail_rows, tail_first);
  split.tail_source_offset = head_source_bytes(plan, tail_rows);
  split.head_output_offset = static_cast<std::uint64_t>(head_first * plan.out_strides.h);
  split.tail_output_offset = static_cast<std::uint64_t>(tail_first * plan.out_strides.h);
  return split;
}

}  // namespace ferry::core
