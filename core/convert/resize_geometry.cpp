#include "core/convert/resize_geometry.h"

#include <algorithm>
#include <cmath>

namespace ferry::core {
namespace {

// One axis: window [start, start + size) resized to `length`, shown from `offset`.
ResizeAxis axis_of(float start, float size, std::int64_t length, std::int64_t offset) {
  ResizeAxis a;
  a.origin = start;
  a.scale = static_cast<float>(static_cast<double>(size) / static_cast<double>(length));
  a.length = static_cast<std::int32_t>(length);
  a.offset = static_cast<std::int32_t>(offset);
  a.lo = static_cast<std::int32_t>(std::floor(start));
  a.hi = static_cast<std::int32_t>(std::ceil(static_cast<double>(start) + size)) - 1;
  return a;
}

// D for a resized image smaller than the output: the bars split (CENTER) or all after it.
std::int64_t bar_offset(std::int64_t out, std::int64_t resized, LetterboxAlign align) {
  return align == LetterboxAlign::TopLeft ? 0 : -((out - resized) / 2);
}

// D for SHORTER_SIDE: CenterCrop's (R - out) / 2 rounded half to even, or the bars.
std::int64_t center_crop_offset(std::int64_t out, std::int64_t resized, LetterboxAlign align) {
  if (resized < out) return bar_offset(out, resized, align);
  return static_cast<std::int64_t>(std::nearbyint(static_cast<double>(resized - out) / 2.0));
}

}  // namespace

double shorter_side_longer_length(const RectF& window, std::int64_t resize_shorter) {
  const double shorter = std::min(window.w, window.h), s = static_cast<double>(resize_shorter);
  return s * (window.w <= window.h ? window.h : window.w) / shorter;
}

ResizeAxes resize_axes_of(const RectF& window, const Transform& t) {
  const std::int64_t out_w = t.resize_w, out_h = t.resize_h;
  std::int64_t rw = out_w, rh = out_h, dx = 0, dy = 0;
  switch (t.resize_mode) {
    case ResizeMode::Stretch: break;
    case ResizeMode::Letterbox: {
      const double s = std::min(static_cast<double>(out_w) / window.w, static_cast<double>(out_h) / window.h);
      rw = std::clamp<std::int64_t>(std::llround(window.w * s), 1, out_w);
      rh = std::clamp<std::int64_t>(std::llround(window.h * s), 1, out_h);
      dx = bar_offset(out_w, rw, t.letterbox_align);
      dy = bar_offset(out_h, rh, t.letterbox_align);
      break;
    }
    case ResizeMode::ShorterSide: {
      // torchvision's Resize(size): the shorter side becomes size, the longer
      // int(size * longer / shorter).
      const auto longer =
          std::max<std::int64_t>(1, static_cast<std::int64_t>(shorter_side_longer_length(window, t.resize_shorter)));
      if (window.w <= window.h) {
        rw = t.resize_shorter;
        rh = longer;
      } else {
        rh = t.resize_shorter;
        rw = longer;
      }
      dx = center_crop_offset(out_w, rw, t.letterbox_align);
      dy = center_crop_offset(out_h, rh, t.letterbox_align);
      break;
    }
  }
  return ResizeAxes{axis_of(window.x, window.w, rw, dx), axis_of(window.y, window.h, rh, dy)};
}

}  // namespace ferry::core
