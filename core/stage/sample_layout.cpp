#include "core/stage/sample_layout.h"

#include <algorithm>

#include "core/stage/staging_copy.h"

namespace ferry::core {
namespace {

// The three dimensions of one sample in memory order, outermost first:
// NHWC is (h, w, c), NCHW is (c, h, w).
struct Dims3 {
  std::int64_t size[3];
  std::int64_t stride[3];
};

Dims3 dims_of(const SampleShape& p) {
  const Strides4& s = p.strides;
  if (p.layout == Layout::NHWC) return Dims3{{p.h, p.w, p.c}, {s.h, s.w, s.c}};
  return Dims3{{p.c, p.h, p.w}, {s.c, s.h, s.w}};
}

// Whether dimension d is laid out right after the dimensions inside it (a
// dimension of size 1 always is: its stride is never used).
bool packed_at(const Dims3& d, int i, std::int64_t inner_bytes) {
  return d.size[i] == 1 || d.stride[i] == inner_bytes;
}

}  // namespace

SampleShape shape_of(const ConvertPlan& plan) {
  return SampleShape{plan.h, plan.w, plan.c, plan.source_layout, plan.source_strides};
}

SampleShape shape_of(const ConvertPlan& plan, std::int64_t g) {
  if (!plan.variable_sizes()) return shape_of(plan);
  const SampleSource& s = plan.sample_sources[static_cast<std::size_t>(g)];
  return SampleShape{s.h, s.w, plan.c, plan.source_layout, s.strides};
}

SampleLayout sample_layout_of(const SampleShape& shape) {
  SampleLayout out;
  const Dims3 d = dims_of(shape);
  out.packed_bytes = static_cast<std::uint64_t>(shape.h * shape.w * shape.c);
  const std::int64_t row = d.size[2];
  const std::int64_t plane = d.size[1] * d.size[2];
  if (shape.layout == Layout::NHWC) {
    out.packed_strides = Strides4{static_cast<std::int64_t>(out.packed_bytes), 1, plane, shape.c};
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

SampleLayout sample_layout_of(const ConvertPlan& plan, std::int64_t g) {
  if (!plan.is_frame()) return sample_layout_of(shape_of(plan, g));
  SampleLayout out;
  out.planes = plan.sample_sources[static_cast<std::size_t>(g)].planes;
  out.packed_planes = out.planes;
  std::int64_t at = 0;
  for (int k = 0; k < out.planes.count; ++k) {
    PlaneRows& p = out.packed_planes.plane[k];
    p.offset = at, p.pitch = p.row_bytes;
    at += p.rows * p.row_bytes;
  }
  out.packed_planes.extent = static_cast<std::uint64_t>(at);
  out.packed_bytes = static_cast<std::uint64_t>(at);
  out.packed_strides = Strides4{at, 0, 0, 0};
  // Planes that follow one another at one pitch from the frame's start are one 2-D copy.
  const PlaneRows& first = out.planes.plane[0];
  std::int64_t rows = first.rows;
  bool one_copy = first.offset == 0;
  for (int k = 1; k < out.planes.count && one_copy; ++k) {
    const PlaneRows& p = out.planes.plane[k];
    one_copy = p.pitch == first.pitch && p.row_bytes == first.row_bytes && p.offset == rows * first.pitch;
    rows += p.rows;
  }
  if (!one_copy) return out;
  if (first.pitch == first.row_bytes) {
    out.rows = 1, out.row_bytes = at, out.pitch = at;
  } else {
    out.rows = rows, out.row_bytes = first.row_bytes, out.pitch = first.pitch;
  }
  return out;
}

bool is_dense_batch(const ConvertPlan& plan, const SampleLayout& layout) noexcept {
  return !plan.source_has_samples && layout.is_packed() &&
         (plan.n == 1 || plan.source_strides.n == static_cast<std::int64_t>(layout.packed_bytes));
}

void pack_sample(std::uint8_t* dst, const std::uint8_t* src, const SampleShape& shape,
                 const SampleLayout& layout) noexcept {
  if (!layout.is_rows() && layout.planes.count > 0) {  // a frame's planes, each to its packed place
    for (int k = 0; k < layout.planes.count; ++k) {
      const PlaneRows& from = layout.planes.plane[k];
      const PlaneRows& to = layout.packed_planes.plane[k];
      for (std::int64_t r = 0; r < from.rows; ++r)
        staging_copy(dst + to.offset + r * to.pitch, src + from.offset + r * from.pitch,
                     static_cast<std::size_t>(from.row_bytes));
    }
    return;
  }
  if (layout.is_rows()) {
    for (std::int64_t r = 0; r < layout.rows; ++r)
      staging_copy(dst + r * layout.row_bytes, src + r * layout.pitch, static_cast<std::size_t>(layout.row_bytes));
    return;
  }
  const Dims3 d = dims_of(shape);
  for (std::int64_t i = 0; i < d.size[0]; ++i) {
    for (std::int64_t j = 0; j < d.size[1]; ++j) {
      const std::uint8_t* s = src + i * d.stride[0] + j * d.stride[1];
      if (d.stride[2] == 1) {
        staging_copy(dst, s, static_cast<std::size_t>(d.size[2]));
        dst += d.size[2];
      } else {
        for (std::int64_t k = 0; k < d.size[2]; ++k) *dst++ = s[k * d.stride[2]];
      }
    }
  }
}

void pack_sample_range(std::uint8_t* dst, const std::uint8_t* src, const SampleLayout& layout, std::uint64_t from,
                       std::uint64_t to) noexcept {
  const auto row_bytes = static_cast<std::uint64_t>(layout.row_bytes);
  std::uint64_t row = from / row_bytes, at = from % row_bytes;
  for (std::uint64_t b = from; b < to; at = 0, ++row) {
    const std::uint64_t n = std::min(row_bytes - at, to - b);
    staging_copy(dst + b, src + static_cast<std::int64_t>(row) * layout.pitch + static_cast<std::int64_t>(at),
                 static_cast<std::size_t>(n));
    b += n;
  }
}

SourceView StagedSamples::view_of(const ConvertPlan& plan, const std::vector<SampleLayout>& layouts,
                                  const std::vector<std::uint64_t>& offsets, std::int64_t first, std::int64_t count,
                                  const std::uint8_t* staged) {
  const auto n = static_cast<std::size_t>(count);
  pointers_.resize(n);
  geometry_.resize(n);
  const std::uint64_t origin = offsets[static_cast<std::size_t>(first)];
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t g = static_cast<std::size_t>(first) + i;
    pointers_[i] = staged + (offsets[g] - origin);
    const SampleSource& own = plan.sample_sources[g];
    geometry_[i] = SampleSource{own.h, own.w, layouts[g].packed_strides, layouts[g].packed_bytes,
                                layouts[g].packed_planes};
  }
  SourceView v;
  v.samples = pointers_.data();
  v.sample_geometry = geometry_.data();
  v.strides = layouts[static_cast<std::size_t>(first)].packed_strides;
  return v;
}

}  // namespace ferry::core
