// The draws of augmentation that a window kernel can make itself: a RANDOM
// crop's origin (torchvision's RandomCrop, with padding), a CENTER crop's
// origin, and the flips. Host and device code alike (core/convert/augment.cpp
// draws with these on every backend; the resident gather kernel draws with
// them on the GPU), so both give the same parameters by construction: integer
// Philox words, exact doubles, one IEEE multiply and a floor.
#pragma once

#include <math.h>

#include <cstdint>

#include "core/convert/philox.h"

namespace ferry::core::augment {

// The Philox blocks each kind of parameter starts at: one option's draws
// never move another's (a run that turns on erasing keeps its crops).
enum : std::uint32_t { kCropDraws = 0, kFlipDraws = 64, kJitterDraws = 72, kGrayDraws = 80, kEraseDraws = 88 };

// Words of one sample's parameter stream, from block `first` on.
class Draws {
 public:
  FERRY_PHILOX_FN Draws(const philox::Stream& stream, std::uint32_t first) : stream_(stream), draw_(first) {}

  FERRY_PHILOX_FN std::uint32_t word() {
    if (used_ == 4) {
      block_ = stream_.block(draw_++);
      used_ = 0;
    }
    return block_.v[used_++];
  }
  FERRY_PHILOX_FN double unit() {  // [0, 1), 53 bits
    const std::uint32_t hi = word();
    return philox::unit_double(hi, word());
  }
  FERRY_PHILOX_FN double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  // An integer in [0, n), n >= 1.
  FERRY_PHILOX_FN std::int64_t below(std::int64_t n) {
    const auto k = static_cast<std::int64_t>(floor(unit() * static_cast<double>(n)));
    return k < n - 1 ? k : n - 1;
  }
  FERRY_PHILOX_FN bool chance(float probability) { return unit() < static_cast<double>(probability); }
  FERRY_PHILOX_FN void skip(int words) {
    for (int i = 0; i < words; ++i) (void)word();
  }

 private:
  philox::Stream stream_;
  std::uint32_t draw_;
  philox::Block block_{};
  int used_ = 4;
};

// torchvision's CenterCrop origin on one axis: the image padded with 0 (the
// left or top getting the smaller half) where it is smaller than the crop,
// else round((image - crop) / 2) with ties to even, as Python's round().
FERRY_PHILOX_FN std::int64_t center_origin(std::int64_t image, std::int64_t crop) {
  if (crop > image) return -((crop - image) / 2);
  const std::int64_t d = image - crop, half = d / 2;
  return (d & 1) != 0 && (half & 1) != 0 ? half + 1 : half;
}

// An integer in [0, n) (n >= 1) and a chance, from the two words of a unit
// double, as Draws::below and Draws::chance make them.
FERRY_PHILOX_FN std::int64_t below(std::uint32_t hi, std::uint32_t lo, std::int64_t n) {
  const auto k = static_cast<std::int64_t>(floor(philox::unit_double(hi, lo) * static_cast<double>(n)));
  return k < n - 1 ? k : n - 1;
}
FERRY_PHILOX_FN bool chance(std::uint32_t hi, std::uint32_t lo, float probability) {
  return philox::unit_double(hi, lo) < static_cast<double>(probability);
}

// torchvision's RandomCrop origin in the image padded by `padding` on every
// side, as image coordinates (negative inside the left or top padding): the
// top from the crop block's words 0 and 1, the left from 2 and 3. The caller
// checks that the crop fits the padded image. (Named words, not Draws: a
// kernel keeps them in registers.)
FERRY_PHILOX_FN void random_crop_origin(const philox::Stream& stream, std::int64_t padding, std::int64_t image_w,
                                        std::int64_t image_h, std::int64_t out_w, std::int64_t out_h,
                                        std::int64_t* x, std::int64_t* y) {
  const philox::Block b = stream.block(kCropDraws);
  *y = below(b.v[0], b.v[1], image_h + 2 * padding - out_h + 1) - padding;
  *x = below(b.v[2], b.v[3], image_w + 2 * padding - out_w + 1) - padding;
}

// kMirrorX | kMirrorY drawn with these probabilities from the flip block:
// flip_x from words 0 and 1, flip_y from 2 and 3 (a probability of 0 never
// fires and draws nothing; the other's words stay where they are).
FERRY_PHILOX_FN int draw_flips(const philox::Stream& stream, float flip_x_probability, float flip_y_probability) {
  if (flip_x_probability <= 0.0f && flip_y_probability <= 0.0f) return 0;
  const philox::Block b = stream.block(kFlipDraws);
  int flip = 0;
  if (flip_x_probability > 0.0f && chance(b.v[0], b.v[1], flip_x_probability)) flip |= 1;  // kMirrorX
  if (flip_y_probability > 0.0f && chance(b.v[2], b.v[3], flip_y_probability)) flip |= 2;  // kMirrorY
  return flip;
}

}  // namespace ferry::core::augment
