// ConvertPlan's resize fields (transform.resize_w/h, interpolation, mode,
// letterbox, windows): validated, and each sample's axes worked out
// (core/convert/resize_geometry.h). Part of make_convert_plan. Also the
// share of the source a resize reads (ConvertPlan::resize_source_share).
#include <algorithm>
#include <cmath>

#include "core/convert/convert_plan_checks.h"
#include "core/convert/resize_taps.h"
#include "core/enum_field.h"
#include "core/error.h"

namespace ferry::core::plan_checks {
namespace {

Interpolation checked_interpolation(const Interpolation& field) {
  return checked_enum_field(field,
                            {Interpolation::Nearest, Interpolation::Linear, Interpolation::Cubic, Interpolation::Area,
                             Interpolation::LinearAntialias},
                            "transform.interpolation",
                            "FERRY_INTERP_NEAREST (1), FERRY_INTERP_LINEAR (2), FERRY_INTERP_CUBIC (3), "
                            "FERRY_INTERP_AREA (4) or FERRY_INTERP_LINEAR_ANTIALIAS (5)");
}

ResizeMode checked_resize_mode(const ResizeMode& field) {
  return checked_enum_field(field, {ResizeMode::Stretch, ResizeMode::Letterbox, ResizeMode::ShorterSide},
                            "transform.resize_mode",
                            "FERRY_RESIZE_STRETCH (1), FERRY_RESIZE_LETTERBOX (2) or FERRY_RESIZE_SHORTER_SIDE (3)");
}

LetterboxAlign checked_align(const LetterboxAlign& field) {
  return checked_enum_field(field, {LetterboxAlign::Center, LetterboxAlign::TopLeft}, "transform.letterbox_align",
                            "FERRY_ALIGN_CENTER (0) or FERRY_ALIGN_TOP_LEFT (1)");
}

// A resize window: finite, of positive size, inside its image.
void check_resize_window(const ConvertPlan& plan, const RectF& r, const char* name, std::int64_t index,
                         std::int64_t g) {
  const std::int64_t w = plan.w_of(g), h = plan.h_of(g);
  FERRY_EXPECT(std::isfinite(r.x) && std::isfinite(r.y) && std::isfinite(r.w) && std::isfinite(r.h),
               Status::InvalidArgument, name, "[", index, "] is {x ", r.x, ", y ", r.y, ", w ", r.w, ", h ", r.h,
               "}: must be finite");
  FERRY_EXPECT(r.w > 0 && r.h > 0, Status::InvalidArgument, name, "[", index, "] is {w ", r.w, ", h ", r.h,
               "}: a window needs a positive area");
  const bool inside = r.x >= 0 && r.y >= 0 && static_cast<double>(r.x) + r.w <= static_cast<double>(w) &&
                      static_cast<double>(r.y) + r.h <= static_cast<double>(h);
  FERRY_EXPECT(inside, Status::OutOfRange, name, "[", index, "] is {x ", r.x, ", y ", r.y, ", w ", r.w, ", h ",
               r.h, "}: a resized window must lie inside the ", w, "x", h, " image");
}

}  // namespace

void check_resize(ConvertPlan& plan, const Transform& t) {
  check_positive(t.resize_w, "transform.resize_w");
  check_positive(t.resize_h, "transform.resize_h");
  Transform fitted = t;
  fitted.interpolation = checked_interpolation(t.interpolation);
  fitted.resize_mode = checked_resize_mode(t.resize_mode);
  fitted.letterbox_align = checked_align(t.letterbox_align);
  if (fitted.resize_mode == ResizeMode::ShorterSide) check_positive(t.resize_shorter, "transform.resize_shorter");
  FERRY_EXPECT(!t.pad_outside, Status::Unsupported,
               "transform.pad_outside is 1: a resized window lies inside its image; pad with resize_mode "
               "FERRY_RESIZE_LETTERBOX instead");
  plan.resize = true;
  plan.interpolation = fitted.interpolation;
  plan.out_w = t.resize_w;
  plan.out_h = t.resize_h;
  for (int k = 0; k < plan.out_channels; ++k) {
    FERRY_EXPECT(std::isfinite(t.letterbox_value[k]), Status::InvalidArgument, "transform.letterbox_value[", k,
                 "] is ", t.letterbox_value[k], ": must be finite");
    plan.letterbox_bits[k] = value_bits(plan.dtype, t.letterbox_value[k], "transform.letterbox_value");
  }
  const RectF& bw = t.window;
  const bool batch_window = !(bw.w == 0 && bw.h == 0 && bw.x == 0 && bw.y == 0);
  const Rect& c = t.crop;
  const bool batch_crop = !(c.w == 0 && c.h == 0);
  FERRY_EXPECT(batch_crop || (c.x == 0 && c.y == 0), Status::InvalidArgument, "transform.crop is {x ", c.x,
               ", y ", c.y, ", w 0, h 0}: a whole-image crop must have x = y = 0");
  plan.sample_resize.resize(static_cast<std::size_t>(plan.n));
  // A larger downscale would make AREA's and LINEAR_ANTIALIAS's taps per pixel grow without a useful bound.
  constexpr float max_downscale = 256.0f;
  const bool wide_taps =
      fitted.interpolation == Interpolation::Area || fitted.interpolation == Interpolation::LinearAntialias;
  // Samples of one size with no window of their own all get sample 0's axes:
  // worked out once, not per sample (about 70 ns a sample, half of a
  // 256-sample augmented gather's plan on the host).
  const bool one_window = !plan.variable_sizes() && t.per_sample_window == nullptr && t.per_sample_crop == nullptr;
  for (std::int64_t i = 0; i < plan.n; ++i) {
    if (one_window && i > 0) {
      plan.sample_resize[static_cast<std::size_t>(i)] = plan.sample_resize[0];
      continue;
    }
    const std::int64_t image_w = plan.w_of(i), image_h = plan.h_of(i);
    RectF win{0.0f, 0.0f, static_cast<float>(image_w), static_cast<float>(image_h)};
    const char* name = "transform.window";
    std::int64_t index = 0;
    if (t.per_sample_window != nullptr) {
      win = t.per_sample_window[i];
      name = "transform.per_sample_window";
      index = i;
    } else if (batch_window) {
      win = bw;
    } else if (t.per_sample_crop != nullptr || batch_crop) {
      const Rect r = t.per_sample_crop != nullptr ? t.per_sample_crop[i] : c;
      name = t.per_sample_crop != nullptr ? "transform.per_sample_crop" : "transform.crop";
      index = t.per_sample_crop != nullptr ? i : 0;
      FERRY_EXPECT(r.x >= 0 && r.y >= 0 && r.w > 0 && r.h > 0 && r.x <= image_w && r.y <= image_h &&
                       r.w <= image_w - r.x && r.h <= image_h - r.y,
                   r.w > 0 && r.h > 0 ? Status::OutOfRange : Status::InvalidArgument, name, "[", index, "] is {x ",
                   r.x, ", y ", r.y, ", w ", r.w, ", h ", r.h, "}: a resized window must lie inside the ", image_w,
                   "x", image_h, " image, with a positive area");
      win = RectF{static_cast<float>(r.x), static_cast<float>(r.y), static_cast<float>(r.w), static_cast<float>(r.h)};
    }
    check_resize_window(plan, win, name, index, i);
    if (fitted.resize_mode == ResizeMode::ShorterSide) {
      const double longer = shorter_side_longer_length(win, t.resize_shorter);
      FERRY_EXPECT(longer < static_cast<double>(max_extent_px + 1), Status::InvalidArgument, name, "[", index,
                   "] is ", win.w, "x", win.h, ": with its shorter side resized to transform.resize_shorter ",
                   t.resize_shorter, " its longer side would be ", longer, " pixels, larger than ", max_extent_px);
    }
    ResizeAxes& axes = plan.sample_resize[static_cast<std::size_t>(i)];
    axes = resize_axes_of(win, fitted);
    if (wide_taps)
      FERRY_EXPECT(axes.x.scale <= max_downscale && axes.y.scale <= max_downscale, Status::Unsupported, name, "[",
                   index, "] is ", win.w, "x", win.h, ": resized to ", axes.x.length, "x", axes.y.length,
                   " it shrinks by more than ", max_downscale,
                   " on an axis, too much for AREA and LINEAR_ANTIALIAS in one pass; resize in two steps");
  }
}

}  // namespace ferry::core::plan_checks

namespace ferry::core {

double ConvertPlan::resize_source_share() const noexcept {
  if (!resize || sample_resize.empty()) return 1.0;
  int taps = 0;
  switch (interpolation) {
    case Interpolation::Nearest: taps = 1; break;
    case Interpolation::Linear: taps = 2; break;
    case Interpolation::Cubic: taps = 4; break;
    default: return 1.0;  // area and antialiased filters read every pixel of the window
  }
  const bool frames = is_frame();
  if (frames && !decodes_at_taps()) return 1.0;  // decoded whole into RGB before the resize
  double touched = 0, whole = 0;
  for (std::size_t g = 0; g < sample_resize.size(); ++g) {
    const ResizeAxes& a = sample_resize[g];
    const double image_h = variable_sizes() ? static_cast<double>(sample_sources[g].h) : static_cast<double>(h);
    const double image_w = variable_sizes() ? static_cast<double>(sample_sources[g].w) : static_cast<double>(w);
    const double window_rows = a.y.hi - a.y.lo + 1, window_cols = a.x.hi - a.x.lo + 1;
    const double shown_rows = static_cast<double>(std::min<std::int64_t>(out_h, a.y.length));
    if (!frames) {
      touched += std::min(window_rows, shown_rows * taps) * window_cols;
      whole += image_h * image_w;
      continue;
    }
    // A 4:2:0 frame decoded at each tap reads its taps of weight other than
    // 0 only (value_from_frame): one luma row a shown row where the axis's
    // taps are single. Chroma rows (row / 2) are as wide in bytes as luma rows.
    const int row_taps = resize::linear_taps_are_single(a.y) ? 1 : taps;
    const double luma_rows = std::min(window_rows, shown_rows * row_taps);
    const double chroma_rows = std::min(std::ceil(window_rows / 2), luma_rows);
    touched += (luma_rows + chroma_rows) * window_cols;
    whole += (image_h + std::ceil(image_h / 2)) * image_w;
  }
  return whole > 0 ? std::min(1.0, touched / whole) : 1.0;
}

}  // namespace ferry::core
