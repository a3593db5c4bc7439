// Where each resized output pixel reads: per sample and axis, the window's
// origin and scale, the resized length and the output offset that the
// resize mode gives (include/ferry/transform.h defines each), worked out once
// per batch on the host. Plain values, shared by the CPU converter, the CUDA
// kernels (inside their per-sample table) and the tests.
#pragma once

#include <cstdint>

#include "core/convert/descriptors.h"

namespace ferry::core {

struct ResizeAxis {
  float origin = 0.0f;      // x0: the window's first edge, in source pixels
  float scale = 1.0f;       // sx = float(ww / R): source pixels per resized pixel
  std::int32_t offset = 0;  // D: output index o (after mirror) shows resized index o + D
  std::int32_t length = 1;  // R: the resized image's length; indices outside [0, R) are letterbox
  std::int32_t lo = 0, hi = 0;  // the source indices the taps may read
};

struct ResizeAxes {
  ResizeAxis x, y;
};

// SHORTER_SIDE's resized length of the window's longer side before it is
// floored: resize_shorter * longer / shorter, in double (the shorter side's is
// resize_shorter; a square window's w is the shorter). A very narrow window
// makes it huge: the plan checks it against its size limit first.
double shorter_side_longer_length(const RectF& window, std::int64_t resize_shorter);

// The axes of one sample: its window (inside its image_w x image_h image) fitted to
// the transform's resize_w x resize_h by its mode. The caller has validated the
// window and the resize fields.
ResizeAxes resize_axes_of(const RectF& window, const Transform& transform);

}  // namespace ferry::core
