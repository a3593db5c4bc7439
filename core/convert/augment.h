// Random augmentation (include/ferry/augment.h defines it): the description
// as core takes it, one sample's drawn parameters, and the draw itself.
// Parameters are drawn on the host when a plan is built, for every backend
// alike (the drawn boxes must reach the caller before submit returns, and
// the GPU's per-sample table is uploaded with the batch anyway); the draw is
// a pure function of (seed, step, index), so any backend or a later run gets
// the same parameters.
#pragma once

#include <cstdint>

#include "core/convert/descriptors.h"

namespace ferry::core {

// What one sample drew.
struct AugmentDraw {
  Rect crop;                 // source pixels; may reach outside (zeros) for Random and Center
  int flip = 0;              // kMirrorX | kMirrorY
  bool grayscale = false;
  float factor[4] = {1, 1, 1, 0};  // brightness, contrast, saturation, hue
  int order[4] = {0, 1, 2, 3};     // the operations in the order they run
  int ops = 0;                     // how many of order[] run (those whose range is on)
  bool erased = false;
  Rect erase;                // output pixels
};

// Sample `position` of a call (drawn as index first_index + position) of an
// image_w x image_h image, to an out_w x out_h output. Throws ferry::Error
// (OUT_OF_RANGE naming the position) where a RANDOM crop does not fit the
// padded image, INVALID_ARGUMENT where the index reaches 2^39.
AugmentDraw draw_augment(const Augment& a, std::int64_t position, std::int64_t image_w, std::int64_t image_h,
                         std::int64_t out_w, std::int64_t out_h);

// Validates every field; the message names it ("augment.scale[1] is 1.5 ...").
void check_augment(const Augment& a);

}  // namespace ferry::core
