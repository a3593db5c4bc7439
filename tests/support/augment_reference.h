// A plain scalar reference of random augmentation's pixels (ferry/augment.h),
// written from the header's definitions and torchvision's formulas, not from
// ferry's plan or kernels: one sample, one pixel at a time, from the
// parameters each sample drew (its ferry_augment_params; the draws themselves
// are checked on their own in tests/c_abi/augment_draw_test.cpp).
//   geometry: RANDOM_RESIZED resamples the drawn window (the resize reference
//     of convert_reference.h, STRETCH); RANDOM and CENTER show the window 1:1,
//     0 outside the image; NONE keeps the transform's window and resize;
//     the drawn flip XORs the transform's mirror;
//   colour (on the resampled value in 0..255, each operation rounded, clamped
//     to 0..255): the operations that are on in jitter_order, then grayscale;
//     contrast's mean from the gray sum of the shown pixels in 1/65536 units;
//   output: uint8 rounded once, float V * alpha + beta; then erasing.
// Then PixelCase, a batch to convert and compare, and the checks the draw
// tests share (equal draws, binomial rates, uniform means, rounded boxes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"

namespace ferry::test {

inline float reference_clamp255(float v) { return std::min(std::max(v, 0.0f), 255.0f); }
inline float reference_div(float a, float b) { return rf(a / b); }

// gray = 0.2989 R + 0.587 G + 0.114 B, each product and sum rounded, left to right.
inline float reference_gray(const float* v) {
  return radd(radd(rmul(0.2989f, v[0]), rmul(0.587f, v[1])), rmul(0.114f, v[2]));
}

// torchvision's _blend: ratio * v + (1 - ratio) * other, (1 - ratio) from double, clamped.
inline float reference_blend(float v, float other, float ratio) {
  const auto complement = static_cast<float>(1.0 - static_cast<double>(ratio));
  return reference_clamp255(radd(rmul(ratio, v), rmul(complement, other)));
}

// torchvision's adjust_hue (transforms/v2/functional/_color.py, 0.16 on):
// _rgb_to_hsv, h.add_(factor).remainder_(1.0), _hsv_to_rgb, on 0..255 values
// (its clamps to 0..1 become 0..255). Its arithmetic as written there:
// h.mul_(1.0 / 6.0) (the scalar rounded to float), t = (s * f + (1 - s)) * v.
inline void reference_hue(float* px, float factor) {
  const float r = px[0], g = px[1], b = px[2];
  const float maxc = std::max(r, std::max(g, b)), minc = std::min(r, std::min(g, b));
  const bool eqc = maxc == minc;
  const float cr = rsub(maxc, minc);
  const float s = reference_div(cr, eqc ? 1.0f : maxc);
  const float divisor = eqc ? 1.0f : cr;
  const float rc = reference_div(rsub(maxc, r), divisor), gc = reference_div(rsub(maxc, g), divisor),
              bc = reference_div(rsub(maxc, b), divisor);
  // hr, hg, hb: each masked to 0 but one.
  float h = 0;
  if (maxc == r) h = rsub(bc, gc);
  else if (maxc == g) h = rsub(radd(rc, 2.0f), bc);
  else h = rsub(radd(gc, 4.0f), rc);
  h = std::fmod(radd(rmul(h, static_cast<float>(1.0 / 6.0)), 1.0f), 1.0f);
  h = radd(h, factor);
  h = rsub(h, std::floor(h));  // torch's remainder(h, 1.0): the sign of the divisor
  const float h6 = rmul(h, 6.0f);
  const float i = std::floor(h6);
  const float f = rsub(h6, i);
  const float sxf = rmul(s, f), one_minus_s = rsub(1.0f, s);
  const float q = reference_clamp255(rmul(rsub(1.0f, sxf), maxc));
  const float t = reference_clamp255(rmul(radd(sxf, one_minus_s), maxc));
  const float p = reference_clamp255(rmul(one_minus_s, maxc));
  // torchvision's select table over (v, p, q, t), per sector i % 6.
  const float vpqt[4] = {maxc, p, q, t};
  const int select[3][6] = {{0, 2, 1, 1, 3, 0}, {3, 0, 0, 2, 1, 1}, {1, 1, 3, 0, 0, 2}};
  const int sector = ((static_cast<int>(i) % 6) + 6) % 6;
  for (int k = 0; k < 3; ++k) px[k] = vpqt[select[k][sector]];
}

// Whether each of the four operations is on (its range is not the identity).
inline void reference_ops_on(const ferry_augment& a, bool on[4]) {
  on[FERRY_JITTER_BRIGHTNESS] = a.brightness[0] != 1.0f || a.brightness[1] != 1.0f;
  on[FERRY_JITTER_CONTRAST] = a.contrast[0] != 1.0f || a.contrast[1] != 1.0f;
  on[FERRY_JITTER_SATURATION] = a.saturation[0] != 1.0f || a.saturation[1] != 1.0f;
  on[FERRY_JITTER_HUE] = a.hue[0] != 0.0f || a.hue[1] != 0.0f;
}

// The operations that are on, in the drawn order, from position `from` until
// contrast (stop_at_contrast) or the end; returns the position reached.
inline int reference_jitter(const ferry_augment& a, const ferry_augment_params& d, float* px, float mean,
                            bool stop_at_contrast) {
  bool on[4];
  reference_ops_on(a, on);
  for (int i = 0; i < 4; ++i) {
    const int op = d.jitter_order[i];
    if (!on[op]) continue;
    if (op == FERRY_JITTER_CONTRAST && stop_at_contrast) return i;
    if (op == FERRY_JITTER_BRIGHTNESS) {
      // min(255, v * b), clamped to 0..255 after each operation (a CUBIC overshoot may be negative).
      for (int k = 0; k < 3; ++k) px[k] = reference_clamp255(rmul(px[k], d.brightness));
    } else if (op == FERRY_JITTER_CONTRAST) {
      for (int k = 0; k < 3; ++k) px[k] = reference_blend(px[k], mean, d.contrast);
    } else if (op == FERRY_JITTER_SATURATION) {
      const float gray = reference_gray(px);
      for (int k = 0; k < 3; ++k) px[k] = reference_blend(px[k], gray, d.saturation);
    } else {
      reference_hue(px, d.hue);
    }
  }
  return 4;
}

// One sample's resampled values before colour: v[(y * OW + x) * OC + k], and
// whether each output pixel shows the image (0: letterbox).
struct ReferencePlane {
  std::int64_t OW = 0, OH = 0;
  int OC = 0;
  std::vector<float> v;
  std::vector<std::uint8_t> shown;
};

inline ReferencePlane reference_geometry(const ferry_source& s, const ferry_transform& t, const ferry_augment& a,
                                         const ferry_augment_params& d, std::int64_t i) {
  const ReferenceSample g = reference_sample(s, i);
  ReferencePlane pl;
  pl.OC = t.out_channels ? t.out_channels : static_cast<int>(s.c);
  const int mirror = (t.per_sample_mirror ? t.per_sample_mirror[i] : t.mirror) ^ d.flip;
  const bool resize = t.resize_w != 0;
  // The window without an augment crop: the transform's, as convert_reference.h reads it.
  ferry_rect crop = t.per_sample_crop ? t.per_sample_crop[i] : t.crop;
  if (crop.w == 0) crop = ferry_rect{0, 0, g.w, g.h};
  ferry_rectf win{static_cast<float>(crop.x), static_cast<float>(crop.y), static_cast<float>(crop.w),
                  static_cast<float>(crop.h)};
  if (t.per_sample_window) win = t.per_sample_window[i];
  else if (t.window.w != 0) win = t.window;
  if (a.crop == FERRY_AUGMENT_CROP_RANDOM_RESIZED)
    win = ferry_rectf{static_cast<float>(d.crop.x), static_cast<float>(d.crop.y), static_cast<float>(d.crop.w),
                      static_cast<float>(d.crop.h)};
  pl.OW = resize ? t.resize_w : crop.w;
  pl.OH = resize ? t.resize_h : crop.h;
  pl.v.assign(static_cast<std::size_t>(pl.OW * pl.OH * pl.OC), 0.0f);
  pl.shown.assign(static_cast<std::size_t>(pl.OW * pl.OH), 1);
  const bool one_to_one = a.crop == FERRY_AUGMENT_CROP_RANDOM || a.crop == FERRY_AUGMENT_CROP_CENTER || !resize;
  const ferry_rect box = a.crop == FERRY_AUGMENT_CROP_NONE ? crop : d.crop;
  ReferenceAxis ax, ay;
  if (!one_to_one) reference_axes(t, win, ax, ay);
  const bool normalizing = t.interpolation == FERRY_INTERP_AREA || t.interpolation == FERRY_INTERP_LINEAR_ANTIALIAS;
  for (std::int64_t y = 0; y < pl.OH; ++y)
    for (std::int64_t x = 0; x < pl.OW; ++x) {
      const std::int64_t mx = (mirror & FERRY_MIRROR_X) ? pl.OW - 1 - x : x;
      const std::int64_t my = (mirror & FERRY_MIRROR_Y) ? pl.OH - 1 - y : y;
      float* px = &pl.v[static_cast<std::size_t>((y * pl.OW + x) * pl.OC)];
      for (int k = 0; k < pl.OC; ++k) {
        const int channel = t.out_channels ? t.channel_map[k] : k;
        if (one_to_one) {  // the window 1:1, 0 where it leaves the image
          const std::int64_t sx = box.x + mx, sy = box.y + my;
          const bool inside = sx >= 0 && sy >= 0 && sx < g.w && sy < g.h;
          px[k] = inside ? static_cast<float>(g.data[sy * g.sh + sx * g.sw + channel * g.sc]) : 0.0f;
          continue;
        }
        const std::int64_t rx = mx + ax.D, ry = my + ay.D;
        if (rx < 0 || rx >= ax.R || ry < 0 || ry >= ay.R) {
          pl.shown[static_cast<std::size_t>(y * pl.OW + x)] = 0;
          continue;
        }
        const std::vector<ReferenceTap> xt = reference_taps(t.interpolation, ax, rx);
        const std::vector<ReferenceTap> yt = reference_taps(t.interpolation, ay, ry);
        float V = 0, Sx = 0, Sy = 0;
        for (const ReferenceTap& tx : xt) Sx = radd(Sx, tx.w);
        for (const ReferenceTap& ty : yt) {
          Sy = radd(Sy, ty.w);
          float H = 0;
          for (const ReferenceTap& tx : xt)
            H = radd(H, rmul(tx.w, static_cast<float>(g.data[ty.j * g.sh + tx.j * g.sw + channel * g.sc])));
          V = radd(V, rmul(ty.w, H));
        }
        if (normalizing) V = rmul(Sx, Sy) == 0.0f ? 0.0f : reference_div(V, rmul(Sx, Sy));
        px[k] = V;
      }
    }
  return pl;
}

// Colour jitter and grayscale on every shown pixel of one sample (3 channels).
inline void reference_colour(const ferry_augment& a, const ferry_augment_params& d, ReferencePlane& pl) {
  bool on[4];
  reference_ops_on(a, on);
  if (!on[0] && !on[1] && !on[2] && !on[3] && !d.grayscale) return;
  const std::int64_t pixels = pl.OW * pl.OH;
  float mean = 0.0f;
  if (on[FERRY_JITTER_CONTRAST]) {
    std::int64_t sum = 0, count = 0;
    for (std::int64_t p = 0; p < pixels; ++p) {
      if (!pl.shown[static_cast<std::size_t>(p)]) continue;
      float px[3] = {pl.v[static_cast<std::size_t>(p * 3)], pl.v[static_cast<std::size_t>(p * 3 + 1)],
                     pl.v[static_cast<std::size_t>(p * 3 + 2)]};
      reference_jitter(a, d, px, 0.0f, true);
      sum += static_cast<std::int64_t>(std::nearbyint(static_cast<double>(reference_gray(px)) * 65536.0));
      ++count;
    }
    mean = count == 0 ? 0.0f : static_cast<float>(static_cast<double>(sum) / 65536.0 / static_cast<double>(count));
  }
  for (std::int64_t p = 0; p < pixels; ++p) {
    if (!pl.shown[static_cast<std::size_t>(p)]) continue;
    float* px = &pl.v[static_cast<std::size_t>(p * 3)];
    reference_jitter(a, d, px, mean, false);
    if (d.grayscale) px[0] = px[1] = px[2] = reference_gray(px);
  }
}

// Every sample of the augmented conversion into `out` (poisoned by the
// caller). Erased elements are written for FERRY_ERASE_VALUE and left alone
// for FERRY_ERASE_RANDOM (the noise is checked apart).
inline void reference_augmented(const ferry_source& s, const ferry_transform& t, const ferry_augment& a,
                                const ferry_augment_params* drawn, const ferry_output& o, std::uint8_t* out) {
  const std::int64_t e = t.out_dtype == FERRY_DTYPE_FLOAT32 ? 4 : t.out_dtype == FERRY_DTYPE_UINT8 ? 1 : 2;
  for (std::int64_t i = 0; i < s.n; ++i) {
    const ferry_augment_params& d = drawn[i];
    ReferencePlane pl = reference_geometry(s, t, a, d, i);
    if (pl.OC == 3) reference_colour(a, d, pl);
    const int OCT = t.pad_channels_to_4 ? 4 : pl.OC;
    std::int64_t on, oc, oh, ow;
    reference_output_strides(t, o, pl.OW, pl.OH, OCT, e, on, oc, oh, ow);
    for (std::int64_t y = 0; y < pl.OH; ++y)
      for (std::int64_t x = 0; x < pl.OW; ++x) {
        const bool erased = d.erased && x >= d.erase.x && x < d.erase.x + d.erase.w && y >= d.erase.y &&
                            y < d.erase.y + d.erase.h;
        for (int k = 0; k < OCT; ++k) {
          std::uint8_t* dst = out + i * on + k * oc + y * oh + x * ow;
          if (k >= pl.OC) {
            reference_store(dst, t.out_dtype, t.pad_value);
          } else if (erased) {
            if (a.erase_fill == FERRY_ERASE_VALUE) reference_store(dst, t.out_dtype, a.erase_value[k]);
          } else if (!pl.shown[static_cast<std::size_t>(y * pl.OW + x)]) {
            reference_store(dst, t.out_dtype, t.letterbox_value[k]);
          } else {
            const float v = pl.v[static_cast<std::size_t>((y * pl.OW + x) * pl.OC + k)];
            if (t.out_dtype == FERRY_DTYPE_UINT8) {
              reference_store(dst, t.out_dtype, std::nearbyint(reference_clamp255(v)));
            } else {
              const float alpha = static_cast<float>(static_cast<double>(t.scale) / t.std[k]);
              const float beta = static_cast<float>(-static_cast<double>(t.mean[k]) / t.std[k]);
              reference_store(dst, t.out_dtype, radd(rmul(v, alpha), beta));
            }
          }
        }
      }
  }
}

// --- A case to convert and compare (tests/c_abi/augment_pixels_test.cpp) ---

// A batch of random RGB images, each its own sample_descs entry, and a
// transform with an augment (its `drawn` kept here): applied() converts it
// into a poisoned output, reference() computes the same from the draws.
struct PixelCase {
  std::vector<std::int64_t> h, w;
  std::vector<std::vector<std::uint8_t>> pixels;
  std::vector<ferry_sample_desc> descs;
  ferry_source source{};
  ferry_transform transform{};
  ferry_augment augment{};
  std::vector<ferry_augment_params> drawn;

  PixelCase(std::uint32_t seed, std::vector<std::int64_t> hs, std::vector<std::int64_t> ws) : h(hs), w(ws) {
    std::mt19937 rng(seed);
    for (std::size_t i = 0; i < h.size(); ++i) {
      pixels.emplace_back(static_cast<std::size_t>(h[i] * w[i] * 3));
      for (auto& b : pixels.back()) b = static_cast<std::uint8_t>(rng() >> 24);
      descs.push_back(ferry_sample_desc{pixels.back().data(), pixels.back().size(), h[i], w[i], 0, 0, 0});
    }
    ferry_source_init(&source, sizeof source);
    source.n = static_cast<std::int64_t>(h.size()), source.c = 3;
    source.sample_descs = descs.data();
    ferry_transform_init(&transform, sizeof transform);
    ferry_augment_init(&augment, sizeof augment);
    augment.seed = seed;
    transform.augment = &augment;
    drawn.resize(h.size());
    augment.drawn = drawn.data();
  }
  PixelCase(const PixelCase&) = delete;  // source, transform and augment point into it
  PixelCase& operator=(const PixelCase&) = delete;

  std::size_t output_bytes() const {
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_transform_describe_output(&info, &source, &transform), FERRY_OK) << ferry_last_error();
    return info.bytes;
  }

  std::vector<std::uint8_t> applied(ferry_context_t ctx, std::uint8_t poison = 0xA5) {
    std::vector<std::uint8_t> out(output_bytes(), poison);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out.data(), o.bytes = out.size();
    EXPECT_EQ(ferry_transform_apply(ctx, &source, &transform, &o, nullptr), FERRY_OK) << ferry_last_error();
    return out;
  }

  std::vector<std::uint8_t> reference() const {
    std::vector<std::uint8_t> out(output_bytes(), 0xA5);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    reference_augmented(source, transform, augment, drawn.data(), o, out.data());
    return out;
  }
};

// The first differing element, described; "" when the outputs are equal.
inline std::string first_difference(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                                    ferry_dtype d) {
  if (got.size() != want.size()) return "sizes differ";
  const std::size_t e = d == FERRY_DTYPE_FLOAT32 ? 4 : d == FERRY_DTYPE_UINT8 ? 1 : 2;
  std::size_t differing = 0, first = got.size();
  for (std::size_t b = 0; b < got.size(); b += e)
    if (std::memcmp(&got[b], &want[b], e) != 0) differing += 1, first = std::min(first, b);
  if (differing == 0) return "";
  std::string s = std::to_string(differing) + " elements differ, first element " + std::to_string(first / e) + ": got ";
  auto value = [&](const std::vector<std::uint8_t>& v) {
    if (e == 1) return std::to_string(v[first]);
    if (e == 4) {
      float f;
      std::memcpy(&f, &v[first], 4);
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", f);
      return std::string(text);
    }
    std::uint16_t bits;
    std::memcpy(&bits, &v[first], 2);
    char text[16];
    std::snprintf(text, sizeof text, "half 0x%04x", bits);
    return std::string(text);
  };
  return s + value(got) + ", want " + value(want);
}

// --- Checks of drawn parameters (tests/c_abi/augment_draw_test.cpp) ---

inline bool same_rect(const ferry_rect& a, const ferry_rect& b) {
  return a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h;
}

// Every field equal (floats by bits: the draws must be identical, not close).
inline std::string difference(const ferry_augment_params& a, const ferry_augment_params& b) {
  if (!same_rect(a.crop, b.crop)) return "crop";
  if (a.flip != b.flip) return "flip";
  if (a.grayscale != b.grayscale) return "grayscale";
  const float fa[4] = {a.brightness, a.contrast, a.saturation, a.hue};
  const float fb[4] = {b.brightness, b.contrast, b.saturation, b.hue};
  if (std::memcmp(fa, fb, sizeof fa) != 0) return "factors";
  if (std::memcmp(a.jitter_order, b.jitter_order, sizeof a.jitter_order) != 0) return "jitter_order";
  if (a.erased != b.erased || !same_rect(a.erase, b.erase)) return "erase";
  return "";
}

// |count - n p| within 5 standard deviations of a binomial.
inline void expect_rate(std::int64_t count, std::int64_t n, double p, const std::string& what) {
  const double sigma = std::sqrt(static_cast<double>(n) * p * (1 - p));
  EXPECT_LE(std::fabs(static_cast<double>(count) - static_cast<double>(n) * p), 5 * sigma + 1e-9)
      << what << ": " << count << " of " << n << ", expected p = " << p;
}

// The mean of n values uniform on [lo, hi] within 5 standard errors.
inline void expect_uniform_mean(double sum, std::int64_t n, double lo, double hi, const std::string& what) {
  const double sigma = (hi - lo) / std::sqrt(12.0 * static_cast<double>(n));
  EXPECT_LE(std::fabs(sum / static_cast<double>(n) - (lo + hi) / 2), 5 * sigma) << what;
}

// A box whose w, h are the rounded sqrt(area * aspect), sqrt(area / aspect):
// some exact area in [lo, hi] and aspect (w/h) in [rlo, rhi] rounds to it.
inline bool rounds_from_range(double w, double h, double lo, double hi, double rlo, double rhi) {
  return (w + 0.5) * (h + 0.5) >= lo && (w - 0.5) * (h - 0.5) <= hi && (w + 0.5) / (h - 0.5) >= rlo &&
         (w - 0.5) / (h + 0.5) <= rhi;
}

}  // namespace ferry::test
