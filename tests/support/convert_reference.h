// A plain scalar reference of the conversion, written from the C structs and
// the header's definitions alone (not from ferry's plan or kernels): one
// element at a time, its own stride resolution, its own float16/bfloat16
// rounding (by scaling and nearbyint in double, a different algorithm from
// ferry's bit manipulation).
#pragma once

#include <algorithm>
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

// Output byte strides, 0s resolved to packed for the layout (independently of ferry).
inline void reference_output_strides(const ferry_transform& t, const ferry_output& o, std::int64_t OW,
                                     std::int64_t OH, std::int64_t OCT, std::int64_t e, std::int64_t& on,
                                     std::int64_t& oc, std::int64_t& oh, std::int64_t& ow) {
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
}

// --- Resize (transform.resize_w/h), from the header's definitions alone ---

// Each operation rounded to float on its own: a volatile store cannot be
// contracted into a fused multiply-add, whatever the compiler's flags.
inline float rf(float v) {
  volatile float r = v;
  return r;
}
inline float rmul(float a, float b) { return rf(a * b); }
inline float radd(float a, float b) { return rf(a + b); }
inline float rsub(float a, float b) { return rf(a - b); }

// One axis of one sample: the window [x0, x0 + ww), the resized length R and
// the offset D (output index o, after mirror, shows resized index o + D).
struct ReferenceAxis {
  float x0 = 0, ww = 0;
  std::int64_t R = 0, D = 0;
  float sx = 0;
  std::int64_t lo = 0, hi = 0;
};

// D of a resized image smaller than the output: the bars.
inline std::int64_t reference_bars(std::int64_t out, std::int64_t R, ferry_letterbox_align align) {
  return align == FERRY_ALIGN_TOP_LEFT ? 0 : -((out - R) / 2);
}

// Both axes of a window (x0, y0, ww, wh) per the transform's mode.
inline void reference_axes(const ferry_transform& t, const ferry_rectf& win, ReferenceAxis& ax, ReferenceAxis& ay) {
  const std::int64_t OW = t.resize_w, OH = t.resize_h;
  std::int64_t rw = OW, rh = OH, dx = 0, dy = 0;
  if (t.resize_mode == FERRY_RESIZE_LETTERBOX) {
    // s in double; round() is half away from zero.
    const double s = std::min(static_cast<double>(OW) / win.w, static_cast<double>(OH) / win.h);
    rw = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::round(win.w * s)));
    rh = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::round(win.h * s)));
    dx = reference_bars(OW, rw, t.letterbox_align);
    dy = reference_bars(OH, rh, t.letterbox_align);
  } else if (t.resize_mode == FERRY_RESIZE_SHORTER_SIDE) {
    const double S = static_cast<double>(t.resize_shorter);
    if (win.w <= win.h) {
      rw = t.resize_shorter;
      rh = static_cast<std::int64_t>(std::floor(S * win.h / win.w));
    } else {
      rh = t.resize_shorter;
      rw = static_cast<std::int64_t>(std::floor(S * win.w / win.h));
    }
    // CenterCrop: (R - out) / 2 rounded half to even; or the bars.
    auto center = [&](std::int64_t out, std::int64_t R) {
      if (R < out) return reference_bars(out, R, t.letterbox_align);
      const std::int64_t twice = R - out;
      return twice % 2 == 0 ? twice / 2 : ((twice / 2) % 2 == 0 ? twice / 2 : twice / 2 + 1);
    };
    dx = center(OW, rw);
    dy = center(OH, rh);
  }
  auto axis = [](float x0, float ww, std::int64_t R, std::int64_t D) {
    ReferenceAxis a;
    a.x0 = x0, a.ww = ww, a.R = R, a.D = D;
    a.sx = static_cast<float>(static_cast<double>(ww) / static_cast<double>(R));
    a.lo = static_cast<std::int64_t>(std::floor(x0));
    a.hi = static_cast<std::int64_t>(std::ceil(static_cast<double>(x0) + static_cast<double>(ww))) - 1;
    return a;
  };
  ax = axis(win.x, win.w, rw, dx);
  ay = axis(win.y, win.h, rh, dy);
}

// The source indices (unclamped, ascending) and weights resized index r
// reads. Clamped indices are clamped here; dropped ones are left out.
struct ReferenceTap {
  std::int64_t j;
  float w;
};

inline std::vector<ReferenceTap> reference_taps(ferry_interpolation m, const ReferenceAxis& a, std::int64_t r) {
  std::vector<ReferenceTap> taps;
  const float c = radd(a.x0, rmul(radd(static_cast<float>(r), 0.5f), a.sx));
  auto clamp = [&](std::int64_t j) { return std::min(std::max(j, a.lo), a.hi); };
  switch (m) {
    case FERRY_INTERP_NEAREST: taps.push_back({clamp(static_cast<std::int64_t>(std::floor(c))), 1.0f}); break;
    case FERRY_INTERP_LINEAR: {
      const float tt = rsub(c, 0.5f);
      const float j0 = std::floor(tt);
      const float f = rsub(tt, j0);
      taps.push_back({clamp(static_cast<std::int64_t>(j0)), rsub(1.0f, f)});
      taps.push_back({clamp(static_cast<std::int64_t>(j0) + 1), f});
      break;
    }
    case FERRY_INTERP_CUBIC: {
      const float tt = rsub(c, 0.5f);
      const float j0 = std::floor(tt);
      const float f = rsub(tt, j0);
      const float A = -0.75f;
      auto inner = [&](float x) {  // ((A+2)*x - (A+3))*x*x + 1
        return radd(rmul(rmul(rsub(rmul(radd(A, 2.0f), x), radd(A, 3.0f)), x), x), 1.0f);
      };
      const float f1 = radd(f, 1.0f);
      const float c0 = rsub(rmul(radd(rmul(rsub(rmul(A, f1), rmul(5.0f, A)), f1), rmul(8.0f, A)), f1), rmul(4.0f, A));
      const float c1 = inner(f);
      const float c2 = inner(rsub(1.0f, f));
      const float c3 = rsub(rsub(rsub(1.0f, c0), c1), c2);
      const std::int64_t j = static_cast<std::int64_t>(j0);
      taps.push_back({clamp(j - 1), c0});
      taps.push_back({clamp(j), c1});
      taps.push_back({clamp(j + 1), c2});
      taps.push_back({clamp(j + 2), c3});
      break;
    }
    case FERRY_INTERP_AREA: {
      const float lo = radd(a.x0, rmul(static_cast<float>(r), a.sx));
      const float hi = radd(a.x0, rmul(static_cast<float>(r + 1), a.sx));
      for (auto j = static_cast<std::int64_t>(std::floor(lo)); j <= static_cast<std::int64_t>(std::ceil(hi)) - 1; ++j)
        if (j >= a.lo && j <= a.hi)
          taps.push_back({j, rsub(std::min(hi, static_cast<float>(j + 1)), std::max(lo, static_cast<float>(j)))});
      break;
    }
    default: {  // FERRY_INTERP_LINEAR_ANTIALIAS
      const float support = std::max(a.sx, 1.0f);
      const auto first = static_cast<std::int64_t>(std::floor(radd(rsub(c, support), 0.5f)));
      const auto last = static_cast<std::int64_t>(std::floor(radd(radd(c, support), 0.5f))) - 1;
      for (std::int64_t j = first; j <= last; ++j) {
        if (j < a.lo || j > a.hi) continue;
        const float d = std::fabs(rsub(radd(static_cast<float>(j), 0.5f), c));
        taps.push_back({j, std::max(0.0f, rsub(1.0f, rf(d / support)))});
      }
      break;
    }
  }
  return taps;
}

// Sample i as the header describes it: its pixels, size and byte strides
// (0s resolved to packed here, independently of ferry), from `data` or
// `samples` with the batch's size, or from its own sample_descs entry.
struct ReferenceSample {
  const std::uint8_t* data;
  std::int64_t h, w, sc, sh, sw;
};

inline ReferenceSample reference_sample(const ferry_source& s, std::int64_t i) {
  const bool own = s.sample_descs != nullptr;
  const std::int64_t H = own ? s.sample_descs[i].h : s.h, W = own ? s.sample_descs[i].w : s.w, C = s.c;
  std::int64_t sc = own ? s.sample_descs[i].stride_c : s.stride_c, sh = own ? s.sample_descs[i].stride_h : s.stride_h,
               sw = own ? s.sample_descs[i].stride_w : s.stride_w, sn = 0;
  if (s.layout == FERRY_LAYOUT_NHWC) {
    sc = sc ? sc : 1;
    sw = sw ? sw : C * sc;
    sh = sh ? sh : W * sw;
    sn = s.stride_n ? s.stride_n : H * sh;
  } else {
    sw = sw ? sw : 1;
    sh = sh ? sh : W * sw;
    sc = sc ? sc : H * sh;
    sn = s.stride_n ? s.stride_n : C * sc;
  }
  const void* data = own ? s.sample_descs[i].data
                         : s.samples ? s.samples[i] : static_cast<const std::uint8_t*>(s.data) + i * sn;
  return ReferenceSample{static_cast<const std::uint8_t*>(data), H, W, sc, sh, sw};
}

// The resized conversion of every sample into `out` (poisoned by the caller).
inline void reference_resize(const ferry_source& s, const ferry_transform& t, const ferry_output& o,
                             std::uint8_t* out) {
  const std::int64_t N = s.n, C = s.c;
  const int OC = t.out_channels ? t.out_channels : static_cast<int>(C);
  const int OCT = t.pad_channels_to_4 ? 4 : OC;
  const std::int64_t OW = t.resize_w, OH = t.resize_h;
  const std::int64_t e = t.out_dtype == FERRY_DTYPE_FLOAT32 ? 4 : t.out_dtype == FERRY_DTYPE_UINT8 ? 1 : 2;
  std::int64_t oc, ow, oh, on;
  reference_output_strides(t, o, OW, OH, OCT, e, on, oc, oh, ow);
  const bool normalizing = t.interpolation == FERRY_INTERP_AREA || t.interpolation == FERRY_INTERP_LINEAR_ANTIALIAS;
  const bool batch_window = t.window.x != 0 || t.window.y != 0 || t.window.w != 0 || t.window.h != 0;
  for (std::int64_t i = 0; i < N; ++i) {
    const ReferenceSample g = reference_sample(s, i);
    const std::uint8_t* sample = g.data;
    const std::int64_t sc = g.sc, sh = g.sh, sw = g.sw;
    ferry_rectf win{0, 0, static_cast<float>(g.w), static_cast<float>(g.h)};
    if (t.per_sample_window) {
      win = t.per_sample_window[i];
    } else if (batch_window) {
      win = t.window;
    } else if (t.per_sample_crop || t.crop.w != 0 || t.crop.h != 0) {
      const ferry_rect r = t.per_sample_crop ? t.per_sample_crop[i] : t.crop;
      win = ferry_rectf{static_cast<float>(r.x), static_cast<float>(r.y), static_cast<float>(r.w),
                        static_cast<float>(r.h)};
    }
    ReferenceAxis ax, ay;
    reference_axes(t, win, ax, ay);
    const int mirror = t.per_sample_mirror ? t.per_sample_mirror[i] : t.mirror;
    for (std::int64_t y = 0; y < OH; ++y) {
      const std::int64_t ry = ((mirror & FERRY_MIRROR_Y) ? OH - 1 - y : y) + ay.D;
      const bool row_in = ry >= 0 && ry < ay.R;
      const std::vector<ReferenceTap> ytaps = row_in ? reference_taps(t.interpolation, ay, ry) : std::vector<ReferenceTap>{};
      for (std::int64_t x = 0; x < OW; ++x) {
        const std::int64_t rx = ((mirror & FERRY_MIRROR_X) ? OW - 1 - x : x) + ax.D;
        const bool in = row_in && rx >= 0 && rx < ax.R;
        const std::vector<ReferenceTap> xtaps = in ? reference_taps(t.interpolation, ax, rx) : std::vector<ReferenceTap>{};
        float Sx = 0, Sy = 0;
        for (const ReferenceTap& tp : xtaps) Sx = radd(Sx, tp.w);
        for (const ReferenceTap& tp : ytaps) Sy = radd(Sy, tp.w);
        for (int k = 0; k < OCT; ++k) {
          std::uint8_t* dst = out + i * on + k * oc + y * oh + x * ow;
          if (k >= OC) {
            reference_store(dst, t.out_dtype, t.pad_value);
            continue;
          }
          if (!in) {
            reference_store(dst, t.out_dtype, t.letterbox_value[k]);
            continue;
          }
          const int channel = t.out_channels ? t.channel_map[k] : k;
          float V = 0;
          for (const ReferenceTap& ty : ytaps) {
            float Hi = 0;
            for (const ReferenceTap& tx : xtaps)
              Hi = radd(Hi, rmul(tx.w, static_cast<float>(sample[ty.j * sh + tx.j * sw + channel * sc])));
            V = radd(V, rmul(ty.w, Hi));
          }
          if (normalizing) {
            const float norm = rmul(Sx, Sy);
            V = norm == 0.0f ? 0.0f : rf(V / norm);
          }
          if (t.out_dtype == FERRY_DTYPE_UINT8) {
            // Clamped to 0..255, rounded half to even (the default rounding mode).
            reference_store(dst, t.out_dtype, static_cast<float>(std::nearbyint(std::min(std::max(V, 0.0f), 255.0f))));
            continue;
          }
          const float mean = t.per_sample_mean ? t.per_sample_mean[i * OC + k] : t.mean[k];
          const float stdev = t.per_sample_std ? t.per_sample_std[i * OC + k] : t.std[k];
          const float alpha = static_cast<float>(static_cast<double>(t.scale) / stdev);
          const float beta = static_cast<float>(-static_cast<double>(mean) / stdev);
          reference_store(dst, t.out_dtype, radd(rmul(V, alpha), beta));
        }
      }
    }
  }
}

// Converts into `out` (already poisoned by the caller; only elements are written).
// Returns the largest error of a float32 result against the unfolded formula
// (x * scale - mean) / std evaluated in double, relative to |x*scale/std| + |mean/std|.
inline double reference_convert(const ferry_source& s, const ferry_transform& t, const ferry_output& o,
                                std::uint8_t* out) {
  const std::int64_t N = s.n, C = s.c;
  if (t.resize_w != 0 || t.resize_h != 0) {
    reference_resize(s, t, o, out);
    return 0;
  }
  // Without resize every sample's output is the window's size: the whole image
  // (the same for all samples), or the crop.
  const std::int64_t H = reference_sample(s, 0).h, W = reference_sample(s, 0).w;
  const int OC = t.out_channels ? t.out_channels : static_cast<int>(C);
  const int OCT = t.pad_channels_to_4 ? 4 : OC;
  const bool per_crop = t.per_sample_crop != nullptr;
  const bool whole = !per_crop && t.crop.w == 0 && t.crop.h == 0;
  const std::int64_t OW = per_crop ? t.per_sample_crop[0].w : whole ? W : t.crop.w;
  const std::int64_t OH = per_crop ? t.per_sample_crop[0].h : whole ? H : t.crop.h;
  const std::int64_t e = t.out_dtype == FERRY_DTYPE_FLOAT32 ? 4 : t.out_dtype == FERRY_DTYPE_UINT8 ? 1 : 2;
  std::int64_t oc, ow, oh, on;
  reference_output_strides(t, o, OW, OH, OCT, e, on, oc, oh, ow);
  double worst = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    const ReferenceSample g = reference_sample(s, i);
    const std::uint8_t* sample = g.data;
    const std::int64_t sc = g.sc, sh = g.sh, sw = g.sw;
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
          if (sx < 0 || sy < 0 || sx >= g.w || sy >= g.h) {
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
