#include "core/convert/convert_cpu_copy.h"

#include <algorithm>
#include <cstring>

namespace ferry::core {

bool copy_samples_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                         std::uint8_t* output, ThreadPool& pool) {
  const Strides4& s = source.strides;
  const bool nhwc = plan.source_layout == Layout::NHWC;
  const std::int64_t h = plan.h, w = plan.w, c = plan.c;
  // NHWC: a row is w * c bytes; NCHW: a row of one channel's plane is w bytes, c planes a sample.
  const bool rows_contiguous = nhwc ? (w == 1 || s.w == c) && (c == 1 || s.c == 1) : (w == 1 || s.w == 1);
  if (!rows_contiguous) return false;
  const std::int64_t row = nhwc ? w * c : w, planes = nhwc ? 1 : c;
  const bool packed = (h == 1 || s.h == row) && (planes == 1 || s.c == h * w);
  const std::int64_t sample_bytes = h * w * c;
  const std::int64_t grain = std::max<std::int64_t>(1, (std::int64_t{256} << 10) / sample_bytes);
  pool.parallel_for(
      0, count,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          const std::uint8_t* from = source.samples ? source.samples[i] : source.base + i * s.n;
          std::uint8_t* to = output + (first + i) * plan.out_strides.n;
          if (packed) {
            std::memcpy(to, from, static_cast<std::size_t>(sample_bytes));
            continue;
          }
          for (std::int64_t k = 0; k < planes; ++k)
            for (std::int64_t y = 0; y < h; ++y)
              std::memcpy(to + (k * h + y) * row, from + k * s.c + y * s.h, static_cast<std::size_t>(row));
        }
      },
      grain);
  return true;
}

}  // namespace ferry::core
