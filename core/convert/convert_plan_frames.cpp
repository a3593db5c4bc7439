// ConvertPlan's camera and video frames (source.format): each frame's planes
// and extent, validated, held as samples of different sizes so that every
// source kind and the stager's per-sample copies take them as they are. Part
// of make_convert_plan.
#include <algorithm>
#include <string>

#include "core/checked_math.h"
#include "core/convert/convert_plan_checks.h"
#include "core/error.h"

namespace ferry::core::plan_checks {
namespace {

// The decoded image's packed R, G, B strides: what c, h, w of the plan describe.
Strides4 rgb_strides(std::int64_t w) { return Strides4{0, 1, 3 * w, 3}; }

void add_frame(ConvertPlan& plan, std::size_t g, const std::uint8_t* data, std::int64_t h, std::int64_t w,
               const FramePlanes& planes) {
  SampleSource& out = plan.sample_sources[g];
  out.h = h, out.w = w;
  out.strides = rgb_strides(w);
  out.extent = planes.extent;
  out.planes = planes;
  plan.sample_data[g] = data;
  plan.h = std::max(plan.h, h);
  plan.w = std::max(plan.w, w);
  plan.source_sample_extent = std::max(plan.source_sample_extent, planes.extent);
}

}  // namespace

void check_frames(ConvertPlan& plan, const SourceDesc& s) {
  FERRY_EXPECT(s.c == 0 || s.c == 3, Status::InvalidArgument, "source.c is ", s.c,
               ": a frame format decodes to 3 channels (R, G, B); give 0 or 3");
  FERRY_EXPECT(s.layout == Layout::NHWC, Status::InvalidArgument, "source.layout is ", static_cast<int>(s.layout),
               ": a frame format has its own layout; keep FERRY_LAYOUT_NHWC (the default)");
  FERRY_EXPECT(s.stride_c == 0 && s.stride_w == 0 && s.stride_h == 0, Status::InvalidArgument,
               "source.stride_c/h/w is ", s.stride_c, "/", s.stride_h, "/", s.stride_w,
               ": a frame's rows are given by source.plane_pitch; leave the strides 0");
  plan.n = s.n;
  plan.c = 3;
  plan.source_layout = Layout::NHWC;
  plan.source_has_samples = true;
  const auto n = static_cast<std::size_t>(s.n);
  plan.sample_sources.resize(n);
  plan.sample_data.resize(n);
  const std::int64_t none[3] = {0, 0, 0};
  if (s.sample_descs != nullptr) {
    FERRY_EXPECT(s.data == nullptr && s.samples == nullptr && s.bytes == 0 && s.sample_bytes == 0 && s.h == 0 &&
                     s.w == 0 && s.stride_n == 0 && std::equal(s.plane_offset, s.plane_offset + 3, none) &&
                     std::equal(s.plane_pitch, s.plane_pitch + 3, none),
                 Status::InvalidArgument,
                 "source.sample_descs is set with source.data, samples, bytes, sample_bytes, h, w, stride_n or a "
                 "plane field: with sample_descs each frame gives its own (stride_h: its plane 0 pitch, the planes "
                 "following one another); leave those 0");
    for (std::size_t g = 0; g < n; ++g) {
      const SampleDesc& d = s.sample_descs[g];
      const std::string where = "source.sample_descs[" + std::to_string(g) + "]";
      FERRY_EXPECT(d.data != nullptr, Status::InvalidArgument, where, ".data is NULL");
      check_positive(d.h, (where + ".h").c_str());
      check_positive(d.w, (where + ".w").c_str());
      FERRY_EXPECT(d.stride_c == 0 && d.stride_w == 0, Status::InvalidArgument, where, ".stride_c/stride_w is ",
                   d.stride_c, "/", d.stride_w, ": a frame takes only stride_h (its plane 0 pitch)");
      const std::int64_t pitch[3] = {d.stride_h, 0, 0};
      const FramePlanes planes = frame_planes_of(plan.frame.format, d.h, d.w, none, pitch, where.c_str());
      FERRY_EXPECT(d.bytes >= planes.extent, Status::SourceTooSmall, where, ".bytes is ", d.bytes, ": its ", d.w,
                   "x", d.h, " frame's planes reach ", planes.extent, " bytes");
      add_frame(plan, g, static_cast<const std::uint8_t*>(d.data), d.h, d.w, planes);
    }
    plan.source_extent = plan.source_sample_extent;
    return;
  }
  check_positive(s.h, "source.h");
  check_positive(s.w, "source.w");
  FERRY_EXPECT((s.data == nullptr) != (s.samples == nullptr), Status::InvalidArgument,
               s.data == nullptr ? "source.data and source.samples are both NULL"
                                 : "source.data and source.samples are both set",
               ": give exactly one");
  const FramePlanes planes = frame_planes_of(plan.frame.format, s.h, s.w, s.plane_offset, s.plane_pitch, "source");
  if (s.samples != nullptr) {
    FERRY_EXPECT(s.stride_n == 0, Status::InvalidArgument, "source.stride_n is ", s.stride_n,
                 ": with source.samples each frame has its own pointer; leave it 0");
    FERRY_EXPECT(s.sample_bytes >= planes.extent, Status::SourceTooSmall, "source.sample_bytes is ", s.sample_bytes,
                 ": the ", s.w, "x", s.h, " frame's planes reach ", planes.extent, " bytes");
    for (std::size_t g = 0; g < n; ++g) {
      FERRY_EXPECT(s.samples[g] != nullptr, Status::InvalidArgument, "source.samples[", g, "] is NULL (source.n is ",
                   s.n, ")");
      add_frame(plan, g, static_cast<const std::uint8_t*>(s.samples[g]), s.h, s.w, planes);
    }
    plan.source_extent = planes.extent;
    return;
  }
  const std::int64_t stride_n = s.stride_n != 0 ? s.stride_n : static_cast<std::int64_t>(planes.extent);
  FERRY_EXPECT(s.n == 1 || stride_n >= static_cast<std::int64_t>(planes.extent), Status::InvalidArgument,
               "source.stride_n is ", s.stride_n, ": frames would overlap; each spans ", planes.extent, " bytes");
  plan.source_extent = checked_add(checked_mul(static_cast<std::uint64_t>(s.n - 1), static_cast<std::uint64_t>(stride_n),
                                               "source extent"),
                                   planes.extent, "source extent");
  FERRY_EXPECT(s.bytes >= plan.source_extent, Status::SourceTooSmall, "source.bytes is ", s.bytes, ": ", s.n, " ",
               s.w, "x", s.h, " frames reach ", plan.source_extent, " bytes");
  plan.source_strides.n = stride_n;
  const auto* data = static_cast<const std::uint8_t*>(s.data);
  for (std::size_t g = 0; g < n; ++g)
    add_frame(plan, g, data + static_cast<std::int64_t>(g) * stride_n, s.h, s.w, planes);
}

}  // namespace ferry::core::plan_checks
