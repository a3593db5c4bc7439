// A plain scalar reference of the conversion, written from the C structs and
// the header's definitions alone (not from ferry's plan or kernels): one
// element at a time, its own stride resolution, its own float16/bfloat16
// rounding (by scaling and nearbyint in double, a different algorithm from
// ferry's bit manipulation).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ferry/ferry.h"

namespace ferry::test {

inline std::uint16_t reference_half(float f) {
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (std::isinf(a)) return sign | 0x7c00;
  const int e = a == 0 ? -14 : std::max(-14, std::ilogb(a));
  const double q = std::ldexp(1.0, e - 10);
  const double r = std::nearbyint(a / q) * q;  // ties to even in the default rounding mode
  if (r >= 65536.0) return sign | 0x7c00;
  if (r < std::ldexp(1.0, -14)) return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(r / std::ldexp(1.0, -24)));
  const int er = std::ilogb(r);
  const double m = r / std::ldexp(1.0, er) - 1.0;
  return static_cast<std::uint16_t>(sign | ((er + 15) << 10) | static_cast<int>(m * 1024));
}

inline std::uint16_t reference_bf16(float f) {
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (std::isinf(a)) return sign | 0x7f80;
  const int e = a == 0 ? -126 : std::max(-126, std::ilogb(a));
  const double q = std::ldexp(1.0, e - 7);
  const double r = std::nearbyint(a / q) * q;
  if (r >= std::ldexp(1.0, 128)) return sign | 0x7f80;
  const float rf = static_cast<float>(r);
  std::uint32_t bits;
  std::memcpy(&bits, &rf, sizeof bits);
  return static_cast<std::uint16_t>(sign | (bits >> 16));
}

// Writes `v` (a float result, or the uint8 value itself) as dtype at dst.
inline void reference_store(std::uint8_t* dst, ferry_dtype dtype, float v) {
  switch (dtype) {
    case FERRY_DTYPE_UINT8: *dst = static_cast<std::uint8_t>(v); break;
    case FERRY_DTYPE_FLOAT32: std::memcpy(dst, &v, 4); break;
    case FERRY_DTYPE_FLOAT16: {
      const std::uint16_t h = reference_half(v);
      std::memcpy(dst, &h, 2);
      break;
    }
    case FERRY_DTYPE_BFLOAT16: {
      const std::uint16_t h = reference_bf16(v);
      std::memcpy(dst, &h, 2);
      break;
    }
  }
}

// Converts into `out` (already poisoned by the caller; only elements are written).
// Returns the largest error of a float32 result against the unfolded formula
// (x * scale - mean) / std evaluated in double, relative to |x*scale/std| + |mean/std|.
inline double reference_convert(const ferry_source& s, const ferry_transform& t, const ferry_output& o,
                                std::uint8_t* out) {
  const std::int64_t N = s.n, H = s.h, W = s.w, C = s.c;
  // Source strides, resolved here independently of ferry.
  std::int64_t sc, sw, sh, sn;
  if (s.layout == FERRY_LAYOUT_NHWC) {
    sc = s.stride_c ? s.stride_c : 1;
    sw = s.stride_w ? s.stride_w : C * sc;
    sh = s.stride_h ? s.stride_h : W * sw;
    sn = s.stride_n ? s.stride_n : H * sh;
  } else {
    sw = s.stride_w ? s.stride_w : 1;
    sh = s.stride_h ? s.stride_h : W * sw;
    sc = s.stride_c ? s.stride_c : H * sh;
    sn = s.stride_n ? s.stride_n : C * sc;
  }
  const int OC = t.out_channels ? t.out_channels : static_cast<int>(C);
  const int OCT = t.pad_channels_to_4 ? 4 : OC;
  const bool per_crop = t.per_sample_crop != nullptr;
  const bool whole = !per_crop && t.crop.w == 0 && t.crop.h == 0;
  const std::int64_t OW = per_crop ? t.per_sample_crop[0].w : whole ? W : t.crop.w;
  const std::int64_t OH = per_crop ? t.per_sample_crop[0].h : whole ? H : t.crop.h;
  const std::int64_t e = t.out_dtype == FERRY_DTYPE_FLOAT32 ? 4 : t.out_dtype == FERRY_DTYPE_UINT8 ? 1 : 2;
  std::int64_t oc, ow, oh, on;
  if (t.out_layout == FERRY_LAYOUT_NCHW) {
    ow = o.stride_w ? o.stride_w : e;
    oh = o.stride_h ? o.stride_h : OW * ow;
    oc = o.stride_c ? o.stride_c : OH * oh;
    on = o.stride_n ? o.stride_n : OCT * oc;
  } else {
    oc = o.stride_c ? o.stride_c : e;
    ow = o.stride_w ? o.stride_w : OCT * oc;
    oh = o.stride_h ? o.stride_h : OW * ow;
    on = o.stride_n ? o.stride_n : OH * oh;
  }
  double worst = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    const auto* sample = static_cast<const std::uint8_t*>(s.samples ? s.samples[i] : static_cast<const std::uint8_t*>(s.data) + i * sn);
    const ferry_rect win = per_crop ? t.per_sample_crop[i] : whole ? ferry_rect{0, 0, W, H} : t.crop;
    const int mirror = t.per_sample_mirror ? t.per_sample_mirror[i] : t.mirror;
    for (int k = 0; k < OCT; ++k) {
      for (std::int64_t y = 0; y < OH; ++y) {
        for (std::int64_t x = 0; x < OW; ++x) {
          std::uint8_t* dst = out + i * on + k * oc + y * oh + x * ow;
          if (k >= OC) {
            reference_store(dst, t.out_dtype, t.pad_value);
            continue;
          }
          const std::int64_t sx = win.x + ((mirror & FERRY_MIRROR_X) ? OW - 1 - x : x);
          const std::int64_t sy = win.y + ((mirror & FERRY_MIRROR_Y) ? OH - 1 - y : y);
          if (sx < 0 || sy < 0 || sx >= W || sy >= H) {
            reference_store(dst, t.out_dtype, t.fill_value);
            continue;
          }
          const int channel = t.out_channels ? t.channel_map[k] : k;
          const std::uint8_t byte = sample[sy * sh + sx * sw + channel * sc];
          if (t.out_dtype == FERRY_DTYPE_UINT8) {
            reference_store(dst, t.out_dtype, byte);
            continue;
          }
          const float mean = t.per_sample_mean ? t.per_sample_mean[i * OC + k] : t.mean[k];
          const float stdev = t.per_sample_std ? t.per_sample_std[i * OC + k] : t.std[k];
          // The documented folding: alpha = scale/std, beta = -mean/std (in double, rounded
          // once), then a multiply and an add, each rounded.
          const float alpha = static_cast<float>(static_cast<double>(t.scale) / stdev);
          const float beta = static_cast<float>(-static_cast<double>(mean) / stdev);
          volatile float product = static_cast<float>(byte) * alpha;
          const float v = product + beta;
          reference_store(dst, t.out_dtype, v);
          const double exact = (byte * static_cast<double>(t.scale) - mean) / stdev;
          const double magnitude = std::fabs(byte * static_cast<double>(t.scale) / stdev) + std::fabs(mean / static_cast<double>(stdev));
          worst = std::max(worst, std::fabs(v - exact) / magnitude);
        }
      }
    }
  }
  return worst;
}

}  // namespace ferry::test
