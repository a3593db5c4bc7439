// ConvertPlan's source.sample_descs (samples of different sizes): each
// sample's own size, strides and readable bytes, validated. Part of
// make_convert_plan.
#include <algorithm>
#include <string>

#include "core/convert/convert_plan_checks.h"
#include "core/convert/strided_layout.h"
#include "core/error.h"

namespace ferry::core::plan_checks {
namespace {

// "source.sample_descs[i]." + field, for a message: built only when a sample
// is refused (a batch of hundreds of valid samples builds none).
std::string sample_field(std::int64_t i, const char* field) {
  return "source.sample_descs[" + std::to_string(i) + "]." + field;
}

// The byte strides and extent of one h x w x c sample in `layout` (0 strides
// resolved to packed), the strides named nc, nh, nw in messages.
std::uint64_t resolve_named(Layout layout, std::int64_t h, std::int64_t w, std::int64_t c, Strides4& strides,
                            const char* nc, const char* nh, const char* nw) {
  StridedDim dc{nc, c, strides.c}, dw{nw, w, strides.w}, dh{nh, h, strides.h};
  StridedDim dims[3];
  if (layout == Layout::NHWC) {
    dims[0] = dc, dims[1] = dw, dims[2] = dh;
  } else {
    dims[0] = dw, dims[1] = dh, dims[2] = dc;
  }
  resolve_packed_strides(dims, 3, 1);
  for (const StridedDim& d : dims) {
    if (d.name == dc.name) strides.c = d.stride;
    if (d.name == dh.name) strides.h = d.stride;
    if (d.name == dw.name) strides.w = d.stride;
  }
  return checked_layout_extent(dims, 3, 1);
}

// The same for sample i: checked with short names first; a refused sample is
// checked again with its full names ("source.sample_descs[3].stride_h"),
// which then throws the message a caller needs.
std::uint64_t resolve_sample_strides(Layout layout, std::int64_t h, std::int64_t w, std::int64_t c,
                                     Strides4& strides, std::int64_t i) {
  const Strides4 given = strides;
  try {
    return resolve_named(layout, h, w, c, strides, "stride_c", "stride_h", "stride_w");
  } catch (const Error&) {
    strides = given;
    const std::string nc = sample_field(i, "stride_c"), nh = sample_field(i, "stride_h"),
                      nw = sample_field(i, "stride_w");
    return resolve_named(layout, h, w, c, strides, nc.c_str(), nh.c_str(), nw.c_str());
  }
}

void check_sample_size(std::int64_t v, std::int64_t i, const char* field) {
  if (v > 0 && v <= max_extent_px) return;
  check_positive(v, sample_field(i, field).c_str());  // throws, naming the sample and field
}

}  // namespace

// source.sample_descs: every sample its own pointer, size and strides. The
// batch-wide fields must stay unset, so no value is silently ignored.
void check_sample_descs(ConvertPlan& plan, const SourceDesc& s, Layout layout) {
  FERRY_EXPECT(s.data == nullptr && s.samples == nullptr && s.bytes == 0 && s.sample_bytes == 0 && s.h == 0 &&
                   s.w == 0 && s.stride_n == 0 && s.stride_c == 0 && s.stride_h == 0 && s.stride_w == 0,
               Status::InvalidArgument,
               "source.sample_descs is set with source.data, samples, bytes, sample_bytes, h, w or a stride: with "
               "sample_descs each sample gives its own; leave those 0");
  plan.source_has_samples = true;
  plan.sample_sources.resize(static_cast<std::size_t>(plan.n));
  plan.sample_data.resize(static_cast<std::size_t>(plan.n));
  for (std::int64_t i = 0; i < plan.n; ++i) {
    const SampleDesc& d = s.sample_descs[i];
    FERRY_EXPECT(d.data != nullptr, Status::InvalidArgument, "source.sample_descs[", i, "].data is NULL");
    check_sample_size(d.h, i, "h");
    check_sample_size(d.w, i, "w");
    SampleSource& out = plan.sample_sources[static_cast<std::size_t>(i)];
    out.h = d.h;
    out.w = d.w;
    out.strides = Strides4{0, d.stride_c, d.stride_h, d.stride_w};
    out.extent = resolve_sample_strides(layout, d.h, d.w, plan.c, out.strides, i);
    FERRY_EXPECT(d.bytes >= out.extent, Status::SourceTooSmall, "source.sample_descs[", i, "].bytes is ", d.bytes, ": its ", d.h, "x",
                 d.w, "x", plan.c, " image and strides reach ", out.extent, " bytes");
    plan.sample_data[static_cast<std::size_t>(i)] = static_cast<const std::uint8_t*>(d.data);
    plan.h = std::max(plan.h, d.h);
    plan.w = std::max(plan.w, d.w);
    plan.source_sample_extent = std::max(plan.source_sample_extent, out.extent);
  }
  plan.source_extent = plan.source_sample_extent;
}

}  // namespace ferry::core::plan_checks
