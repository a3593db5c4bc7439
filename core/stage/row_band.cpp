#include "core/stage/row_band.h"

namespace ferry::core {

std::vector<Chunk> row_bands_of(const ConvertPlan& plan, const SampleLayout& layout) {
  const bool plain = plan.n == 1 && plan.source_layout == Layout::NHWC && !plan.any_outside &&
                     plan.sample_crop.empty() && plan.sample_mirror.empty() &&
                     (layout.is_packed() || layout.rows == plan.h);
  if (!plain) return {};
  return plan_row_bands(plan.out_h, static_cast<std::uint64_t>(plan.w * plan.c), layout.packed_bytes);
}

ConvertPlan band_plan(const ConvertPlan& plan, const Chunk& band, void* output, void*& band_output) {
  ConvertPlan p = plan;
  const std::int64_t rows = band.rows_end - band.rows_begin;
  p.crop.y += band.rows_begin;
  p.crop.h = rows;
  p.out_h = rows;
  // Window row r lands on output row r, or out_h - 1 - r mirrored.
  const std::int64_t first_out_row = (plan.mirror & kMirrorY) ? plan.out_h - band.rows_end : band.rows_begin;
  band_output = static_cast<std::uint8_t*>(output) + first_out_row * plan.out_strides.h;
  return p;
}

}  // namespace ferry::core
