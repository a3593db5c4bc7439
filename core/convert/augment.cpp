#include "core/convert/augment.h"

#include <algorithm>
#include <cmath>

#include "core/convert/augment_window_draw.h"
#include "core/convert/philox.h"
#include "core/enum_field.h"
#include "core/error.h"

namespace ferry::core {
namespace {

using augment::Draws;
using augment::kCropDraws;
using augment::kEraseDraws;
using augment::kGrayDraws;
using augment::kJitterDraws;

// Python's round(): half to even (the default rounding mode). A length past
// 2^62 (an extreme ratio) saturates: no image is that large, so it is refused
// as too large, never converted out of range.
std::int64_t round_even(double v) {
  constexpr double limit = 4611686018427387904.0;  // 2^62
  if (!(v < limit)) return std::int64_t{1} << 62;
  return static_cast<std::int64_t>(std::nearbyint(std::max(v, 0.0)));
}

// torchvision's RandomResizedCrop.get_params: ten tries, then the central fallback.
Rect random_resized_window(const Augment& a, Draws& d, std::int64_t width, std::int64_t height) {
  const double area = static_cast<double>(width) * static_cast<double>(height);
  const double log_lo = std::log(static_cast<double>(a.ratio[0])), log_hi = std::log(static_cast<double>(a.ratio[1]));
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * d.uniform(a.scale[0], a.scale[1]);
    const double aspect = std::exp(d.uniform(log_lo, log_hi));
    const std::int64_t w = round_even(std::sqrt(target * aspect));
    const std::int64_t h = round_even(std::sqrt(target / aspect));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const std::int64_t y = d.below(height - h + 1);
      const std::int64_t x = d.below(width - w + 1);
      return Rect{x, y, w, h};
    }
  }
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  std::int64_t w = width, h = height;
  // At least one pixel: a 1-pixel-wide image under a ratio of 4 would round to none.
  if (in_ratio < a.ratio[0]) {
    h = std::max<std::int64_t>(1, round_even(static_cast<double>(w) / a.ratio[0]));
  } else if (in_ratio > a.ratio[1]) {
    w = std::max<std::int64_t>(1, round_even(static_cast<double>(h) * a.ratio[1]));
  }
  return Rect{(width - w) / 2, (height - h) / 2, w, h};
}

void draw_jitter(const Augment& a, Draws& d, AugmentDraw& out) {
  if (!a.jitters()) return;  // nothing to order or scale: the order stays 0 1 2 3, no draws spent
  int perm[4] = {0, 1, 2, 3};
  for (int i = 3; i > 0; --i) std::swap(perm[i], perm[d.below(i + 1)]);  // Fisher-Yates
  const float* range[4] = {a.brightness, a.contrast, a.saturation, a.hue};
  const float off[4] = {1, 1, 1, 0};
  for (int k = 0; k < 4; ++k) {
    const bool on = range[k][0] != off[k] || range[k][1] != off[k];
    const double u = d.unit();  // drawn whether on or not: turning one on keeps the others' factors
    if (on) out.factor[k] = static_cast<float>(range[k][0] + (static_cast<double>(range[k][1]) - range[k][0]) * u);
  }
  for (int i = 0; i < 4; ++i) {
    out.order[i] = perm[i];
    const int k = perm[i];
    if (range[k][0] != off[k] || range[k][1] != off[k]) out.ops++;
  }
  // The operations that run first, in the drawn order; the rest (off) follow.
  std::stable_partition(out.order, out.order + 4,
                        [&](int k) { return range[k][0] != off[k] || range[k][1] != off[k]; });
}

// torchvision's RandomErasing.get_params on the out_w x out_h output.
void draw_erase(const Augment& a, Draws& d, std::int64_t out_w, std::int64_t out_h, AugmentDraw& out) {
  if (!d.chance(a.erase_probability)) return;
  const double area = static_cast<double>(out_w) * static_cast<double>(out_h);
  const double log_lo = std::log(static_cast<double>(a.erase_ratio[0]));
  const double log_hi = std::log(static_cast<double>(a.erase_ratio[1]));
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * d.uniform(a.erase_scale[0], a.erase_scale[1]);
    const double aspect = std::exp(d.uniform(log_lo, log_hi));
    const std::int64_t h = round_even(std::sqrt(target * aspect));
    const std::int64_t w = round_even(std::sqrt(target / aspect));
    if (!(h < out_h && w < out_w)) continue;
    const std::int64_t y = d.below(out_h - h + 1);
    const std::int64_t x = d.below(out_w - w + 1);
    out.erased = w > 0 && h > 0;
    out.erase = Rect{x, y, w, h};
    return;
  }
}

void check_range(const float (&r)[2], const char* name, double lo_min, double hi_max, bool lo_open) {
  for (int i = 0; i < 2; ++i) {
    FERRY_EXPECT(std::isfinite(r[i]), Status::InvalidArgument, "augment.", name, "[", i, "] is ", r[i],
                 ": expected a finite number");
    FERRY_EXPECT(lo_open ? r[i] > lo_min : r[i] >= lo_min, Status::InvalidArgument, "augment.", name, "[", i,
                 "] is ", r[i], ": expected ", lo_open ? "> " : ">= ", lo_min);
    FERRY_EXPECT(r[i] <= hi_max, Status::InvalidArgument, "augment.", name, "[", i, "] is ", r[i], ": expected <= ",
                 hi_max);
  }
  FERRY_EXPECT(r[0] <= r[1], Status::InvalidArgument, "augment.", name, " is [", r[0], ", ", r[1],
               "]: the range is inverted");
}

void check_probability(float p, const char* name) {
  FERRY_EXPECT(p >= 0.0f && p <= 1.0f, Status::InvalidArgument, "augment.", name, " is ", p,
               ": expected a probability in [0, 1]");
}

}  // namespace

bool Augment::jitters() const noexcept {
  return brightness[0] != 1 || brightness[1] != 1 || contrast[0] != 1 || contrast[1] != 1 || saturation[0] != 1 ||
         saturation[1] != 1 || hue[0] != 0 || hue[1] != 0;
}

bool Augment::colours() const noexcept { return jitters() || grayscale_probability > 0.0f; }

void check_augment(const Augment& a) {
  checked_enum_field(a.crop, {AugmentCrop::None, AugmentCrop::RandomResized, AugmentCrop::Random, AugmentCrop::Center},
                     "augment.crop", "FERRY_AUGMENT_CROP_NONE (0) .. FERRY_AUGMENT_CROP_CENTER (3)");
  FERRY_EXPECT(a.first_index >= 0 && static_cast<std::uint64_t>(a.first_index) < philox::kMaxIndex,
               Status::InvalidArgument, "augment.first_index is ", a.first_index, ": expected 0 <= first_index < 2^39");
  constexpr double inf = HUGE_VAL;
  check_range(a.scale, "scale", 0.0, 1.0, true);
  check_range(a.ratio, "ratio", 0.0, inf, true);
  FERRY_EXPECT(a.padding >= 0 && a.padding <= (std::int64_t{1} << 20), Status::InvalidArgument,
               "augment.padding is ", a.padding, ": expected 0 .. 2^20");
  FERRY_EXPECT(a.padding == 0 || a.crop == AugmentCrop::Random, Status::InvalidArgument, "augment.padding is ",
               a.padding, ": only a FERRY_AUGMENT_CROP_RANDOM crop is padded");
  check_probability(a.flip_x_probability, "flip_x_probability");
  check_probability(a.flip_y_probability, "flip_y_probability");
  // Factors up to 2^24: a pixel times one stays finite, so no blend meets inf - inf.
  constexpr double max_factor = 16777216.0;
  check_range(a.brightness, "brightness", 0.0, max_factor, false);
  check_range(a.contrast, "contrast", 0.0, max_factor, false);
  check_range(a.saturation, "saturation", 0.0, max_factor, false);
  check_range(a.hue, "hue", -0.5, 0.5, false);
  check_probability(a.grayscale_probability, "grayscale_probability");
  check_probability(a.erase_probability, "erase_probability");
  check_range(a.erase_scale, "erase_scale", 0.0, 1.0, true);
  check_range(a.erase_ratio, "erase_ratio", 0.0, inf, true);
  checked_enum_field(a.erase_fill, {EraseFill::Value, EraseFill::Random}, "augment.erase_fill",
                     "FERRY_ERASE_VALUE (0) or FERRY_ERASE_RANDOM (1)");
  for (int k = 0; k < 4; ++k)
    FERRY_EXPECT(std::isfinite(a.erase_value[k]), Status::InvalidArgument, "augment.erase_value[", k, "] is ",
                 a.erase_value[k], ": expected a finite number");
}

AugmentDraw draw_augment(const Augment& a, std::int64_t position, std::int64_t image_w, std::int64_t image_h,
                         std::int64_t out_w, std::int64_t out_h) {
  const std::uint64_t index = static_cast<std::uint64_t>(a.first_index + position);
  FERRY_EXPECT(index < philox::kMaxIndex, Status::InvalidArgument, "augment.first_index + ", position, " is ", index,
               ": expected below 2^39");
  const philox::Stream stream{a.seed, a.step, index, 0};
  AugmentDraw out;
  switch (a.crop) {
    case AugmentCrop::None: out.crop = Rect{0, 0, image_w, image_h}; break;
    case AugmentCrop::RandomResized: {
      Draws crop(stream, kCropDraws);
      out.crop = random_resized_window(a, crop, image_w, image_h);
      break;
    }
    case AugmentCrop::Center:
      out.crop = Rect{augment::center_origin(image_w, out_w), augment::center_origin(image_h, out_h), out_w, out_h};
      break;
    case AugmentCrop::Random: {
      const std::int64_t padded_w = image_w + 2 * a.padding, padded_h = image_h + 2 * a.padding;
      FERRY_EXPECT(padded_w >= out_w && padded_h >= out_h, Status::OutOfRange, "sample ", position, " is ", image_w, "x",
                   image_h, " padded by augment.padding ", a.padding, ": smaller than the ", out_w, "x", out_h,
                   " crop (resize_w x resize_h)");
      std::int64_t x = 0, y = 0;
      augment::random_crop_origin(stream, a.padding, image_w, image_h, out_w, out_h, &x, &y);
      out.crop = Rect{x, y, out_w, out_h};
      break;
    }
  }
  // Each kind draws from its own counter, so one that is off is skipped
  // without moving the others (a probability of 0 never fires: no draw needed).
  out.flip = augment::draw_flips(stream, a.flip_x_probability, a.flip_y_probability);
  static_assert(kMirrorX == 1 && kMirrorY == 2, "draw_flips returns these bits");
  Draws jitter(stream, kJitterDraws);
  draw_jitter(a, jitter, out);
  Draws gray(stream, kGrayDraws);
  out.grayscale = a.grayscale_probability > 0.0f && gray.chance(a.grayscale_probability);
  if (a.erase_probability > 0.0f) {
    Draws erase(stream, kEraseDraws);
    draw_erase(a, erase, out_w, out_h, out);
  }
  return out;
}

}  // namespace ferry::core
