// The per-pixel half of an augmentation (include/ferry/augment.h defines it):
// colour jitter in the drawn order, grayscale, and erasing, for the CPU
// converter and the CUDA resample kernel alike. Every operation is rounded
// on its own (resize::mul/add/sub/div; host files are built with
// -ffp-contract=off), so both backends give the same bits.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/convert/philox.h"
#include "core/convert/resize_taps.h"

namespace ferry::core::augment {

// One sample's colour and erase parameters, worked out on the host.
struct SampleColor {
  std::int32_t ops = 0;           // how many of order[] run
  std::int32_t order[4] = {0, 1, 2, 3};
  std::int32_t contrast_at = -1;  // contrast's place in order[] (-1: off); the mean pass runs the ops before it
  std::int32_t grayscale = 0;
  float factor[4] = {1, 1, 1, 0};  // brightness, contrast, saturation, hue
  float complement[4] = {0, 0, 0, 0};  // 1 - factor, rounded once from double (torchvision's scalar)
  std::int64_t mean_count = 1;    // pixels the contrast mean covers
  std::int32_t erase_x0 = 0, erase_y0 = 0, erase_x1 = 0, erase_y1 = 0;  // [x0, x1) x [y0, y1), output pixels
  std::int32_t erase_random = 0;  // 1: noise, else erase_bits
  std::uint32_t erase_bits[4] = {0, 0, 0, 0};  // per output channel, in the dtype's bits
  std::uint64_t seed = 0, step = 0, index = 0;  // the noise's stream
};

// The operations as order[] names them (core's JitterOp).
constexpr int kBrightnessOp = 0, kContrastOp = 1, kSaturationOp = 2;

constexpr float kGrayR = 0.2989f, kGrayG = 0.587f, kGrayB = 0.114f;
constexpr float kMax = 255.0f;
// The contrast mean's fixed point: a gray value times 2^16, rounded.
constexpr double kGrayScale = 65536.0;

// Into [0, 255]; a NaN (which the factors' bound keeps from arising) reads 0.
FERRY_RESIZE_FN float clamp255(float v) { return v > 0.0f ? (v < kMax ? v : kMax) : 0.0f; }

FERRY_RESIZE_FN float gray_of(const float* v) {
  using namespace resize;
  return add(add(mul(v[0], kGrayR), mul(v[1], kGrayG)), mul(v[2], kGrayB));
}

// torchvision's _blend: v * f + other * (1 - f), clamped.
FERRY_RESIZE_FN float blend(float v, float other, float f, float complement) {
  return clamp255(resize::add(resize::mul(v, f), resize::mul(other, complement)));
}

// torchvision's adjust_hue: RGB to HSV, hue + h turns, back (in 0..255).
FERRY_RESIZE_FN void shift_hue(float* v, float h) {
  using namespace resize;
  const float r = v[0], g = v[1], b = v[2];
  const float maxc = fmaxf(r, fmaxf(g, b)), minc = fminf(r, fminf(g, b));
  const bool eqc = maxc == minc;
  const float range = sub(maxc, minc);
  const float s = div(range, eqc ? 1.0f : maxc);
  const float divisor = eqc ? 1.0f : range;
  // torchvision's hue: with rc = (maxc - r) / divisor and gc, bc alike, bc - gc where maxc is r,
  // rc + 2 - bc where it is g, else gc + 4 - rc. Each case needs two of the three quotients:
  // its numerators are chosen first, so two divisions run, not three (the same roundings).
  // Selects, not branches: the pixels of a warp fall in different cases (their hues differ).
  const bool is_r = maxc == r, is_g = !is_r && maxc == g;
  const float first = div(sub(maxc, is_r ? b : is_g ? r : g), divisor);
  const float second = div(sub(maxc, is_r ? g : is_g ? b : r), divisor);
  float hue = is_r ? sub(first, second) : sub(add(first, is_g ? 2.0f : 4.0f), second);
  hue = add(mul(hue, 1.0f / 6.0f), 1.0f);
  hue = sub(hue, floorf(hue));  // fmod(., 1) of a non-negative value
  hue = add(hue, h);
  hue = sub(hue, floorf(hue));  // remainder(., 1): in [0, 1]
  const float h6 = mul(hue, 6.0f);
  const float i = floorf(h6);
  const float f = sub(h6, i);
  const float sxf = mul(s, f);
  const float one_minus_s = sub(1.0f, s);
  const float q = clamp255(mul(sub(1.0f, sxf), maxc));
  const float t = clamp255(mul(add(sxf, one_minus_s), maxc));
  const float p = clamp255(mul(one_minus_s, maxc));
  int sector = static_cast<int>(i);  // 0..6; 6 (hue rounded up to 1) is sector 0
  if (sector >= 6) sector -= 6;
  // torchvision's table: R (v q p p t v), G (t v v q p p), B (p p t v v q) by sector.
  v[0] = (sector == 0 || sector == 5) ? maxc : sector == 1 ? q : (sector == 2 || sector == 3) ? p : t;
  v[1] = sector == 0 ? t : (sector == 1 || sector == 2) ? maxc : sector == 3 ? q : p;
  v[2] = (sector == 0 || sector == 1) ? p : sector == 2 ? t : (sector == 3 || sector == 4) ? maxc : q;
}

// Runs order[from .. to) on G pixels (px[g]: R, G, B); `mean` is the
// sample's contrast mean. Each operation is looked up once and runs over the
// G pixels: the GPU's augmented kernel passes a thread's rows a group at a
// time (their independent chains hide the latency of the hue's divisions,
// and the sample's fields are read once a group, not once a pixel), the CPU
// backend one pixel at a time. Either way each pixel sees the same roundings.
template <int G>
FERRY_RESIZE_FN void jitter(const SampleColor& c, float (&px)[G][3], int from, int to, float mean) {
  for (int i = from; i < to; ++i) {
    const int op = c.order[i];
    const float f = c.factor[op], complement = c.complement[op];
    if (op == kBrightnessOp || op == kContrastOp) {
      const float other = op == kBrightnessOp ? 0.0f : mean;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int g = 0; g < G; ++g)
        for (int k = 0; k < 3; ++k) px[g][k] = blend(px[g][k], other, f, complement);
    } else if (op == kSaturationOp) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int g = 0; g < G; ++g) {
        const float gray = gray_of(px[g]);
        for (int k = 0; k < 3; ++k) px[g][k] = blend(px[g][k], gray, f, complement);
      }
    } else {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int g = 0; g < G; ++g) shift_hue(px[g], f);
    }
  }
}

// The whole colour half on G pixels: the jitter, then grayscale.
template <int G>
FERRY_RESIZE_FN void apply(const SampleColor& c, float (&px)[G][3], float mean) {
  jitter(c, px, 0, c.ops, mean);
  if (c.grayscale) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int g = 0; g < G; ++g) px[g][0] = px[g][1] = px[g][2] = gray_of(px[g]);
  }
}

// What the mean pass adds for the pixels of G whose bit is set in `shown`:
// their gray values before contrast, in fixed point (an integer sum: the
// same in any order).
template <int G>
FERRY_RESIZE_FN std::int64_t gray_before_contrast(const SampleColor& c, float (&px)[G][3], unsigned shown) {
  jitter(c, px, 0, c.contrast_at, 0.0f);
  std::int64_t sum = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int g = 0; g < G; ++g) {
    if (!(shown >> g & 1u)) continue;
#if defined(__CUDA_ARCH__)
    sum += __double2ll_rn(static_cast<double>(gray_of(px[g])) * kGrayScale);
#else
    sum += std::llrint(static_cast<double>(gray_of(px[g])) * kGrayScale);
#endif
  }
  return sum;
}

FERRY_RESIZE_FN float mean_of(const SampleColor& c, std::int64_t gray_sum) {
  return static_cast<float>(static_cast<double>(gray_sum) / (kGrayScale * static_cast<double>(c.mean_count)));
}

FERRY_RESIZE_FN bool erases(const SampleColor& c, int x, int y) {
  return x >= c.erase_x0 && x < c.erase_x1 && y >= c.erase_y0 && y < c.erase_y1;
}

// ln(x) for 0 < x <= 1 from the float's exponent and an atanh series of its
// mantissa: basic operations only, so the host and the device agree bit for bit.
FERRY_RESIZE_FN float log_of(float x) {
  using namespace resize;
  int e = 0;
  float m = x;
  while (m < 1.0f) m = mul(m, 2.0f), --e;  // x >= 2^-24: at most 24 steps
  const float s = div(sub(m, 1.0f), add(m, 1.0f)), s2 = mul(s, s);
  float series = 1.0f / 13.0f;
  series = add(mul(series, s2), 1.0f / 11.0f);
  series = add(mul(series, s2), 1.0f / 9.0f);
  series = add(mul(series, s2), 1.0f / 7.0f);
  series = add(mul(series, s2), 1.0f / 5.0f);
  series = add(mul(series, s2), 1.0f / 3.0f);
  series = add(mul(series, s2), 1.0f);
  return add(mul(static_cast<float>(e), 0.693147182f), mul(mul(2.0f, s), series));
}

// sin and cos of a quarter turn t * pi/2 (0 <= t < 1), by Taylor series.
FERRY_RESIZE_FN void sin_cos_quarter(float t, float* sin_out, float* cos_out) {
  using namespace resize;
  const float a = mul(t, 1.57079637f), a2 = mul(a, a);
  float s = -1.0f / 39916800.0f, c = 1.0f / 479001600.0f;
  s = add(mul(s, a2), 1.0f / 362880.0f), c = add(mul(c, a2), -1.0f / 3628800.0f);
  s = add(mul(s, a2), -1.0f / 5040.0f), c = add(mul(c, a2), 1.0f / 40320.0f);
  s = add(mul(s, a2), 1.0f / 120.0f), c = add(mul(c, a2), -1.0f / 720.0f);
  s = add(mul(s, a2), -1.0f / 6.0f), c = add(mul(c, a2), 1.0f / 24.0f);
  s = add(mul(s, a2), 1.0f), c = add(mul(c, a2), -0.5f);
  *sin_out = mul(s, a);
  *cos_out = add(mul(c, a2), 1.0f);
}

// Erase noise for output pixel (x, y) of an out_w wide output, channels
// 0..3: standard normals (Box-Muller on one Philox block), or for uint8
// output uniform bytes.
FERRY_RESIZE_FN void erase_noise(const SampleColor& c, std::int64_t x, std::int64_t y, std::int64_t out_w,
                                 bool bytes, float* out) {
  using namespace resize;
  const philox::Stream stream{c.seed, c.step, c.index, 1};
  const philox::Block b = stream.block(static_cast<std::uint32_t>(y * out_w + x));
  if (bytes) {
    for (int k = 0; k < 4; ++k) out[k] = static_cast<float>(b.v[k] >> 24);
    return;
  }
  for (int pair = 0; pair < 2; ++pair) {
    const float u1 = mul(static_cast<float>((b.v[2 * pair] >> 8) + 1u), 1.0f / 16777216.0f);  // (0, 1]
    const float turn = mul(static_cast<float>(b.v[2 * pair + 1] >> 8), 1.0f / 16777216.0f);  // [0, 1)
#if defined(__CUDA_ARCH__)
    const float radius = __fsqrt_rn(mul(-2.0f, log_of(u1)));
#else
    const float radius = std::sqrt(mul(-2.0f, log_of(u1)));
#endif
    const float quarter = mul(turn, 4.0f);
    const int q = static_cast<int>(quarter);
    float s, co;
    sin_cos_quarter(sub(quarter, static_cast<float>(q)), &s, &co);
    float sn = s, cs = co;
    if (q == 1) sn = co, cs = -s;
    if (q == 2) sn = -s, cs = -co;
    if (q == 3) sn = -co, cs = s;
    out[2 * pair] = mul(radius, cs);
    out[2 * pair + 1] = mul(radius, sn);
  }
}

}  // namespace ferry::core::augment
