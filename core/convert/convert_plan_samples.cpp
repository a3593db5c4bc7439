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

// The byte strides and extent of one h x w x c sample in `layout` (0 strides
// resolved to packed); names like "source.stride_h" or "source.sample_descs[3].stride_h".
std::uint64_t resolve_sample_strides(Layout layout, std::int64_t h, std::int64_t w, std::int64_t c,
                                     Strides4& strides, const std::string& prefix) {
  const std::string name_c = prefix + "stride_c", name_h = prefix + "stride_h", name_w = prefix + "stride_w";
  StridedDim dc{name_c.c_str(), c, strides.c}, dw{name_w.c_str(), w, strides.w}, dh{name_h.c_str(), h, strides.h};
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
    const std::string prefix = "source.sample_descs[" + std::to_string(i) + "].";
    FERRY_EXPECT(d.data != nullptr, Status::InvalidArgument, prefix, "data is NULL");
    check_positive(d.h, (prefix + "h").c_str());
    check_positive(d.w, (prefix + "w").c_str());
    SampleSource& out = plan.sample_sources[static_cast<std::size_t>(i)];
    out.h = d.h;
    out.w = d.w;
    out.strides = Strides4{0, d.stride_c, d.stride_h, d.stride_w};
    out.extent = resolve_sample_strides(layout, d.h, d.w, plan.c, out.strides, prefix);
    FERRY_EXPECT(d.bytes >= out.extent, Status::SourceTooSmall, prefix, "bytes is ", d.bytes, ": its ", d.h, "x",
                 d.w, "x", plan.c, " image and strides reach ", out.extent, " bytes");
    plan.sample_data[static_cast<std::size_t>(i)] = static_cast<const std::uint8_t*>(d.data);
    plan.h = std::max(plan.h, d.h);
    plan.w = std::max(plan.w, d.w);
    plan.source_sample_extent = std::max(plan.source_sample_extent, out.extent);
  }
  plan.source_extent = plan.source_sample_extent;
}

}  // namespace ferry::core::plan_checks
