#include "core/stage/sample_layout.h"

#include <cstring>

namespace ferry::core {
namespace {

// The three dimensions of one sample in memory order, outermost first:
// NHWC is (h, w, c), NCHW is (c, h, w).
struct Dims3 {
  std::int64_t size[3];
  std::int64_t stride[3];
};

Dims3 dims_of(const ConvertPlan& p) {
  const Strides4& s = p.source_strides;
  if (p.source_layout == Layout::NHWC) return Dims3{{p.h, p.w, p.c}, {s.h, s.w, s.c}};
  return Dims3{{p.c, p.h, p.w}, {s.c, s.h, s.w}};
}

// Whether dimension d is laid out right after the dimensions inside it (a
// dimension of size 1 always is: its stride is never used).
bool packed_at(const Dims3& d, int i, std::int64_t inner_bytes) {
  return d.size[i] == 1 || d.stride[i] == inner_bytes;
}

}  // namespace

SampleLayout sample_layout_of(const ConvertPlan& plan) {
  SampleLayout out;
  const Dims3 d = dims_of(plan);
  out.packed_bytes = static_cast<std::uint64_t>(plan.h * plan.w * plan.c);
  const std::int64_t row = d.size[2];
  const std::int64_t plane = d.size[1] * d.size[2];
  if (plan.source_layout == Layout::NHWC) {
    out.packed_strides = Strides4{static_cast<std::int64_t>(out.packed_bytes), 1, plane, plan.c};
  } else {
    out.packed_strides = Strides4{static_cast<std::int64_t>(out.packed_bytes), plane, row, 1};
  }
  if (!packed_at(d, 2, 1)) return out;  // elements of a row are not adjacent: no rows
  if (packed_at(d, 1, row)) {
    if (packed_at(d, 0, plane)) {
      out.rows = 1, out.row_bytes = static_cast<std::int64_t>(out.packed_bytes), out.pitch = out.row_bytes;
    } else {
      out.rows = d.size[0], out.row_bytes = plane, out.pitch = d.stride[0];
    }
  } else if (d.size[0] == 1) {
    out.rows = d.size[1], out.row_bytes = row, out.pitch = d.stride[1];
  }
  return out;
}

bool is_dense_batch(const ConvertPlan& plan, const SampleLayout& layout) noexcept {
  return !plan.source_has_samples && layout.is_packed() &&
         (plan.n == 1 || plan.source_strides.n == static_cast<std::int64_t>(layout.packed_bytes));
}

void pack_sample(std::uint8_t* dst, const std::uint8_t* src, const ConvertPlan& plan,
                 const SampleLayout& layout) noexcept {
  if (layout.is_rows()) {
    for (std::int64_t r = 0; r < layout.rows; ++r)
      std::memcpy(dst + r * layout.row_bytes, src + r * layout.pitch, static_cast<std::size_t>(layout.row_bytes));
    return;
  }
  const Dims3 d = dims_of(plan);
  for (std::int64_t i = 0; i < d.size[0]; ++i) {
    for (std::int64_t j = 0; j < d.size[1]; ++j) {
      const std::uint8_t* s = src + i * d.stride[0] + j * d.stride[1];
      if (d.stride[2] == 1) {
        std::memcpy(dst, s, static_cast<std::size_t>(d.size[2]));
        dst += d.size[2];
      } else {
        for (std::int64_t k = 0; k < d.size[2]; ++k) *dst++ = s[k * d.stride[2]];
      }
    }
  }
}

}  // namespace ferry::core
