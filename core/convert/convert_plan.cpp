#include "core/convert/convert_plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/checked_math.h"
#include "core/convert/convert_plan_checks.h"
#include "core/convert/half_bits.h"
#include "core/convert/strided_layout.h"
#include "core/enum_field.h"
#include "core/error.h"

namespace ferry::core {

namespace plan_checks {

std::uint32_t value_bits(DType dtype, float v, const char* name) {
  switch (dtype) {
    case DType::UInt8:
      FERRY_EXPECT(v >= 0.0f && v <= 255.0f && std::floor(v) == v, Status::InvalidArgument, name, " is ", v,
                   ": uint8 output needs an integer in 0..255");
      return static_cast<std::uint32_t>(v);
    case DType::Float32: return float_bits(v);
    case DType::Float16: return float_to_half_bits_soft(v);
    case DType::BFloat16: return float_to_bf16_bits_soft(v);
  }
  return 0;
}

void check_positive(std::int64_t v, const char* name) {
  FERRY_EXPECT(v > 0, Status::InvalidArgument, name, " is ", v, ": must be positive");
  FERRY_EXPECT(v <= max_extent_px, Status::InvalidArgument, name, " is ", v, ": larger than ", max_extent_px);
}

}  // namespace plan_checks

namespace {

using plan_checks::check_augment_fields;
using plan_checks::check_frames;
using plan_checks::check_positive;
using plan_checks::check_resize;
using plan_checks::check_sample_descs;
using plan_checks::max_extent_px;
using plan_checks::value_bits;

int element_size_of(DType dtype) {
  switch (dtype) {
    case DType::UInt8: return 1;
    case DType::Float32: return 4;
    case DType::Float16:
    case DType::BFloat16: return 2;
  }
  return 0;  // unreachable: dtype comes from checked_dtype
}

// The caller's enum fields, validated (core/enum_field.h).
DType checked_dtype(const DType& field) {
  return checked_enum_field(field, {DType::UInt8, DType::Float32, DType::Float16, DType::BFloat16},
                            "transform.out_dtype",
                            "FERRY_DTYPE_UINT8 (1), FERRY_DTYPE_FLOAT32 (2), FERRY_DTYPE_FLOAT16 (3) or "
                            "FERRY_DTYPE_BFLOAT16 (4)");
}

Layout checked_layout(const Layout& field, const char* name) {
  return checked_enum_field(field, {Layout::NHWC, Layout::NCHW}, name, "FERRY_LAYOUT_NHWC (1) or FERRY_LAYOUT_NCHW (2)");
}

void check_source(ConvertPlan& plan, const SourceDesc& s) {
  const Layout layout = checked_layout(s.layout, "source.layout");
  FERRY_EXPECT(s.n > 0, Status::InvalidArgument, "source.n is ", s.n, ": must be positive");
  plan.frame = checked_frame_decode(s);
  if (plan.is_frame()) {
    check_frames(plan, s);
    return;
  }
  const std::int64_t no_planes[3] = {0, 0, 0};
  FERRY_EXPECT(std::equal(s.plane_offset, s.plane_offset + 3, no_planes) &&
                   std::equal(s.plane_pitch, s.plane_pitch + 3, no_planes),
               Status::InvalidArgument,
               "source.plane_offset or plane_pitch is set with format FERRY_FORMAT_CHANNELS: planes are for frame "
               "formats; channels take the strides");
  if (s.sample_descs != nullptr) {
    FERRY_EXPECT(s.c > 0 && s.c <= 4, Status::InvalidArgument, "source.c is ", s.c, ": must be 1, 3 or 4");
    FERRY_EXPECT(s.c != 2, Status::Unsupported, "source.c is 2: only 1, 3 or 4 channels are supported");
    plan.n = s.n;
    plan.c = s.c;
    plan.source_layout = layout;
    check_sample_descs(plan, s, layout);
    return;
  }
  check_positive(s.h, "source.h");
  check_positive(s.w, "source.w");
  FERRY_EXPECT(s.c > 0 && s.c <= 4, Status::InvalidArgument, "source.c is ", s.c, ": must be 1, 3 or 4");
  FERRY_EXPECT(s.c != 2, Status::Unsupported, "source.c is 2: only 1, 3 or 4 channels are supported");
  FERRY_EXPECT((s.data == nullptr) != (s.samples == nullptr), Status::InvalidArgument,
               s.data == nullptr ? "source.data and source.samples are both NULL"
                                 : "source.data and source.samples are both set",
               ": give exactly one");
  plan.n = s.n;
  plan.h = s.h;
  plan.w = s.w;
  plan.c = s.c;
  plan.source_layout = layout;
  plan.source_has_samples = s.samples != nullptr;
  StridedDim c{"source.stride_c", s.c, s.stride_c}, w{"source.stride_w", s.w, s.stride_w},
      h{"source.stride_h", s.h, s.stride_h}, n{"source.stride_n", s.n, plan.source_has_samples ? 0 : s.stride_n};
  StridedDim dims[4];
  if (layout == Layout::NHWC) {
    dims[0] = c, dims[1] = w, dims[2] = h;
  } else {
    dims[0] = w, dims[1] = h, dims[2] = c;
  }
  dims[3] = n;
  resolve_packed_strides(dims, 4, 1);
  for (const StridedDim& d : dims) {
    if (d.name == n.name) plan.source_strides.n = d.stride;
    if (d.name == c.name) plan.source_strides.c = d.stride;
    if (d.name == h.name) plan.source_strides.h = d.stride;
    if (d.name == w.name) plan.source_strides.w = d.stride;
  }
  plan.source_sample_extent = checked_layout_extent(dims, 3, 1);
  if (plan.source_has_samples) {
    FERRY_EXPECT(s.sample_bytes >= plan.source_sample_extent, Status::SourceTooSmall, "source.sample_bytes is ",
                 s.sample_bytes, ": the strides reach ", plan.source_sample_extent, " bytes per sample");
    plan.source_extent = plan.source_sample_extent;
  } else {
    plan.source_extent = checked_layout_extent(dims, 4, 1);
    FERRY_EXPECT(s.bytes >= plan.source_extent, Status::SourceTooSmall, "source.bytes is ", s.bytes,
                 ": the shape and strides reach ", plan.source_extent, " bytes");
  }
}

void check_finite(float v, const char* name, int index) {
  FERRY_EXPECT(std::isfinite(v), Status::InvalidArgument, name, "[", index, "] is ", v, ": must be finite");
}

// Folds (x * scale - mean) / std into x * alpha + beta for channel k.
void fold(float scale, float mean, float stdev, float& alpha, float& beta, const char* std_name, int index) {
  FERRY_EXPECT(std::isfinite(stdev) && stdev != 0.0f, Status::InvalidArgument, std_name, "[", index, "] is ",
               stdev, ": std must be finite and non-zero");
  alpha = static_cast<float>(static_cast<double>(scale) / stdev);
  beta = static_cast<float>(-static_cast<double>(mean) / stdev);
  FERRY_EXPECT(std::isfinite(alpha) && std::isfinite(beta), Status::InvalidArgument, std_name, "[", index,
               "] is ", stdev, ": scale/std or mean/std overflows float");
}

void check_arithmetic(ConvertPlan& plan, const Transform& t) {
  const Transform defaults{};
  if (plan.dtype == DType::UInt8) {
    FERRY_EXPECT(t.scale == defaults.scale, Status::InvalidArgument, "transform.scale is ", t.scale,
                 ": uint8 output does no arithmetic; keep the default");
    for (int k = 0; k < plan.out_channels; ++k)
      FERRY_EXPECT(t.mean[k] == 0.0f && t.std[k] == 1.0f, Status::InvalidArgument, "transform.mean/std[", k,
                   "] is ", t.mean[k], "/", t.std[k], ": uint8 output does no arithmetic; keep 0/1");
    FERRY_EXPECT(t.per_sample_mean == nullptr && t.per_sample_std == nullptr, Status::InvalidArgument,
                 "transform.per_sample_mean/std is set: uint8 output does no arithmetic");
    return;
  }
  FERRY_EXPECT(std::isfinite(t.scale), Status::InvalidArgument, "transform.scale is ", t.scale,
               ": must be finite");
  for (int k = 0; k < plan.out_channels; ++k) {
    check_finite(t.mean[k], "transform.mean", k);
    fold(t.scale, t.mean[k], t.std[k], plan.alpha[k], plan.beta[k], "transform.std", k);
  }
  if (t.per_sample_mean == nullptr && t.per_sample_std == nullptr) return;
  const auto rows = static_cast<std::size_t>(plan.n);
  plan.sample_alpha.assign(rows * 4, 1.0f);
  plan.sample_beta.assign(rows * 4, 0.0f);
  for (std::size_t i = 0; i < rows; ++i) {
    for (int k = 0; k < plan.out_channels; ++k) {
      const std::size_t at = i * static_cast<std::size_t>(plan.out_channels) + static_cast<std::size_t>(k);
      const float mean = t.per_sample_mean ? t.per_sample_mean[at] : t.mean[k];
      const float stdev = t.per_sample_std ? t.per_sample_std[at] : t.std[k];
      check_finite(mean, "transform.per_sample_mean", static_cast<int>(at));
      fold(t.scale, mean, stdev, plan.sample_alpha[i * 4 + static_cast<std::size_t>(k)],
           plan.sample_beta[i * 4 + static_cast<std::size_t>(k)],
           t.per_sample_std ? "transform.per_sample_std" : "transform.std",
           t.per_sample_std ? static_cast<int>(at) : k);
    }
  }
}

// Checks one window against sample g's image; returns whether it reaches outside the image.
bool check_window(const ConvertPlan& plan, const Rect& r, const char* name, std::int64_t index, std::int64_t g) {
  const std::int64_t w = plan.w_of(g), h = plan.h_of(g);
  const std::int64_t lim = max_extent_px;
  FERRY_EXPECT(r.x >= -lim && r.x <= lim && r.y >= -lim && r.y <= lim, Status::InvalidArgument, name, "[",
               index, "] is {x ", r.x, ", y ", r.y, "}: coordinates beyond +-", lim);
  const bool outside = r.x < 0 || r.y < 0 || r.x + r.w > w || r.y + r.h > h;
  FERRY_EXPECT(!outside || plan.pad_outside, Status::OutOfRange, name, "[", index, "] is {x ", r.x, ", y ",
               r.y, ", w ", r.w, ", h ", r.h, "}: outside the ", w, "x", h,
               " image (set transform.pad_outside to pad)");
  return outside;
}

void check_geometry(ConvertPlan& plan, const Transform& t) {
  plan.pad_outside = t.pad_outside != 0;
  const Rect& c = t.crop;
  const bool batch_crop = !(c.w == 0 && c.h == 0);
  FERRY_EXPECT(batch_crop || (c.x == 0 && c.y == 0), Status::InvalidArgument, "transform.crop is {x ", c.x,
               ", y ", c.y, ", w 0, h 0}: a whole-image crop must have x = y = 0");
  if (t.per_sample_crop != nullptr) {
    const Rect& f = t.per_sample_crop[0];
    check_positive(f.w, "transform.per_sample_crop[0].w");
    check_positive(f.h, "transform.per_sample_crop[0].h");
    FERRY_EXPECT(!batch_crop || (c.w == f.w && c.h == f.h), Status::InvalidArgument, "transform.crop is {w ",
                 c.w, ", h ", c.h, "}: differs from per_sample_crop's size ", f.w, "x", f.h);
    plan.out_w = f.w;
    plan.out_h = f.h;
    plan.sample_crop.assign(t.per_sample_crop, t.per_sample_crop + plan.n);
    for (std::int64_t i = 0; i < plan.n; ++i) {
      const Rect& r = plan.sample_crop[static_cast<std::size_t>(i)];
      FERRY_EXPECT(r.w == f.w && r.h == f.h, Status::InvalidArgument, "transform.per_sample_crop[", i,
                   "] is ", r.w, "x", r.h, ": every window must have the size of entry 0, ", f.w, "x", f.h);
      plan.any_outside |= check_window(plan, r, "transform.per_sample_crop", i, i);
    }
  } else if (batch_crop) {
    check_positive(c.w, "transform.crop.w");
    check_positive(c.h, "transform.crop.h");
    plan.crop = c;
    plan.out_w = c.w;
    plan.out_h = c.h;
    for (std::int64_t g = 0; g < (plan.variable_sizes() ? plan.n : 1); ++g)
      plan.any_outside |= check_window(plan, c, "transform.crop", 0, g);
  } else {
    for (std::int64_t g = 1; g < (plan.variable_sizes() ? plan.n : 1); ++g)
      FERRY_EXPECT(plan.w_of(g) == plan.w_of(0) && plan.h_of(g) == plan.h_of(0), Status::InvalidArgument,
                   "source.sample_descs[", g, "] is ", plan.h_of(g), "x", plan.w_of(g), " (h x w) but sample 0 is ",
                   plan.h_of(0), "x", plan.w_of(0),
                   ": samples of different sizes need per_sample_crop windows of one size, or a resize");
    plan.crop = Rect{0, 0, plan.w, plan.h};
    plan.out_w = plan.w;
    plan.out_h = plan.h;
  }
}

void check_mirror(ConvertPlan& plan, const Transform& t) {
  FERRY_EXPECT(t.mirror >= 0 && t.mirror <= 3, Status::InvalidArgument, "transform.mirror is ", t.mirror,
               ": the mirror bits are none 0, X 1, Y 2");
  plan.mirror = t.mirror;
  if (t.per_sample_mirror != nullptr) {
    plan.sample_mirror.assign(t.per_sample_mirror, t.per_sample_mirror + plan.n);
    for (std::int64_t i = 0; i < plan.n; ++i)
      FERRY_EXPECT(plan.sample_mirror[static_cast<std::size_t>(i)] <= 3, Status::InvalidArgument,
                   "transform.per_sample_mirror[", i, "] is ", int{plan.sample_mirror[static_cast<std::size_t>(i)]},
                   ": the mirror bits are none 0, X 1, Y 2");
  }
}

void check_transform(ConvertPlan& plan, const Transform& t) {
  plan.dtype = checked_dtype(t.out_dtype);
  plan.element_size = element_size_of(plan.dtype);
  plan.out_layout = checked_layout(t.out_layout, "transform.out_layout");
  FERRY_EXPECT(t.out_channels >= 0 && t.out_channels <= 4, Status::InvalidArgument, "transform.out_channels is ",
               t.out_channels, ": must be 0 (the input's) or 1..4");
  plan.out_channels = t.out_channels == 0 ? static_cast<int>(plan.c) : t.out_channels;
  for (int k = 0; k < plan.out_channels; ++k) {
    const int m = t.out_channels == 0 ? k : t.channel_map[k];
    FERRY_EXPECT(m >= 0 && m < plan.c, Status::OutOfRange, "transform.channel_map[", k, "] is ", m,
                 ": the source has ", plan.c, " channels");
    plan.channel_map[k] = m;
  }
  plan.out_channels_total = t.pad_channels_to_4 ? 4 : plan.out_channels;
  plan.pad_bits = value_bits(plan.dtype, t.pad_value, "transform.pad_value");
  plan.fill_bits = t.pad_outside ? value_bits(plan.dtype, t.fill_value, "transform.fill_value") : 0;

  const bool any_per_sample = t.per_sample_mean || t.per_sample_std || t.per_sample_crop || t.per_sample_mirror ||
                              t.per_sample_window;
  FERRY_EXPECT(t.per_sample_count == plan.n || (!any_per_sample && t.per_sample_count == 0),
               Status::InvalidArgument, "transform.per_sample_count is ", t.per_sample_count,
               any_per_sample ? ": the per_sample_* arrays must have n = " : ": set no per_sample_* array, so 0 or n = ",
               plan.n, any_per_sample ? " entries" : "");
  check_arithmetic(plan, t);
  const bool resize = t.resize_w != 0 || t.resize_h != 0;
  FERRY_EXPECT(resize || (t.window.w == 0 && t.window.h == 0 && t.window.x == 0 && t.window.y == 0 &&
                          t.per_sample_window == nullptr),
               Status::InvalidArgument,
               "transform.window or per_sample_window is set without resize_w and resize_h: a fractional window "
               "is resampled, so it needs an output size");
  if (resize) {
    check_resize(plan, t);
  } else {
    check_geometry(plan, t);
  }
  check_mirror(plan, t);
  check_augment_fields(plan, t);
}

void check_output(ConvertPlan& plan, const OutputDesc* out) {
  const OutputDesc o = out ? *out : OutputDesc{};
  const std::int64_t e = plan.element_size;
  StridedDim c{"output.stride_c", plan.out_channels_total, o.stride_c}, w{"output.stride_w", plan.out_w, o.stride_w},
      h{"output.stride_h", plan.out_h, o.stride_h}, n{"output.stride_n", plan.n, o.stride_n};
  StridedDim dims[4];
  if (plan.out_layout == Layout::NHWC) {
    dims[0] = c, dims[1] = w, dims[2] = h;
  } else {
    dims[0] = w, dims[1] = h, dims[2] = c;
  }
  dims[3] = n;
  resolve_packed_strides(dims, 4, e);
  plan.out_extent = checked_layout_extent(dims, 4, e);
  for (const StridedDim& d : dims) {
    if (d.name == n.name) plan.out_strides.n = d.stride;
    if (d.name == c.name) plan.out_strides.c = d.stride;
    if (d.name == h.name) plan.out_strides.h = d.stride;
    if (d.name == w.name) plan.out_strides.w = d.stride;
  }
  if (out != nullptr)
    FERRY_EXPECT(o.bytes >= plan.out_extent, Status::OutputTooSmall, "output.bytes is ", o.bytes,
                 ": the output shape and strides reach ", plan.out_extent, " bytes");
}

}  // namespace

ConvertPlan make_convert_plan(const SourceDesc& source, const Transform& transform,
                              const OutputDesc* output) {
  ConvertPlan plan;
  check_source(plan, source);
  check_transform(plan, transform);
  check_output(plan, output);
  if (!plan.pending_draws.empty()) {  // only a valid call reports what it drew
    transform.augment.report(transform.augment.report_user, plan.pending_draws.data(), plan.n);
    std::vector<AugmentDraw>().swap(plan.pending_draws);
  }
  return plan;
}

TensorDesc tensor_desc_of(const ConvertPlan& plan, void* data, DeviceKind kind, int device_index) {
  TensorDesc info;
  info.data = data;
  info.device_kind = kind;
  info.device_index = device_index;
  info.dtype = plan.dtype;
  info.layout = plan.out_layout;
  info.ndim = 4;
  const Strides4& s = plan.out_strides;
  const std::int64_t c = plan.out_channels_total;
  if (plan.out_layout == Layout::NCHW) {
    const std::int64_t shape[4] = {plan.n, c, plan.out_h, plan.out_w}, strides[4] = {s.n, s.c, s.h, s.w};
    std::memcpy(info.shape, shape, sizeof shape);
    std::memcpy(info.strides, strides, sizeof strides);
  } else {
    const std::int64_t shape[4] = {plan.n, plan.out_h, plan.out_w, c}, strides[4] = {s.n, s.h, s.w, s.c};
    std::memcpy(info.shape, shape, sizeof shape);
    std::memcpy(info.strides, strides, sizeof strides);
  }
  info.bytes = static_cast<std::size_t>(plan.out_extent);
  return info;
}

SourceView source_view_of(const ConvertPlan& plan, const SourceDesc& source) {
  SourceView v;
  v.base = static_cast<const std::uint8_t*>(source.data);
  v.samples = reinterpret_cast<const std::uint8_t* const*>(source.samples);
  v.strides = plan.source_strides;
  if (plan.variable_sizes()) {
    v.samples = plan.sample_data.data();
    v.sample_geometry = plan.sample_sources.data();
  }
  return v;
}

}  // namespace ferry::core
