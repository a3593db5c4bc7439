// The arithmetic of a resized output pixel, exactly as include/ferry/transform.h
// defines it, for the CPU converter and the CUDA kernels alike: the same
// source (host and device), every operation rounded on its own (the device's
// __fmul_rn / __fadd_rn, never a contracted multiply-add; host files that
// include this are built with -ffp-contract=off), so both backends give
// bit-identical results.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/convert/resize_geometry.h"

#if defined(__CUDACC__)
#define FERRY_RESIZE_FN __host__ __device__ __forceinline__
#else
#define FERRY_RESIZE_FN inline
#endif

namespace ferry::core::resize {

FERRY_RESIZE_FN float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
FERRY_RESIZE_FN float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
FERRY_RESIZE_FN float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
FERRY_RESIZE_FN float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
FERRY_RESIZE_FN int floor_int(float v) { return static_cast<int>(floorf(v)); }
FERRY_RESIZE_FN int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// Whether the interpolation divides by the sum of its weights (and drops the
// taps outside the window) rather than replicating the window's border.
FERRY_RESIZE_FN constexpr bool normalizes(Interpolation m) {
  return m == Interpolation::Area || m == Interpolation::LinearAntialias;
}

// Calls tap(j, weight) for each source index j (in [axis.lo, axis.hi]) that
// resized index r reads, in ascending order of the unclamped index. Returns
// the sum of the weights passed (in that order, from 0) for the normalizing
// interpolations, 1 for the others (which are not divided).
template <Interpolation M, typename Tap>
FERRY_RESIZE_FN float for_each_tap(const ResizeAxis& axis, int r, Tap&& tap) {
  const float c = add(axis.origin, mul(static_cast<float>(r) + 0.5f, axis.scale));
  if constexpr (M == Interpolation::Nearest) {
    tap(clamp_int(floor_int(c), axis.lo, axis.hi), 1.0f);
    return 1.0f;
  } else if constexpr (M == Interpolation::Linear) {
    const float t = sub(c, 0.5f);
    const int j0 = floor_int(t);
    const float f = sub(t, static_cast<float>(j0));
    tap(clamp_int(j0, axis.lo, axis.hi), sub(1.0f, f));
    tap(clamp_int(j0 + 1, axis.lo, axis.hi), f);
    return 1.0f;
  } else if constexpr (M == Interpolation::Cubic) {
    const float t = sub(c, 0.5f);
    const int j0 = floor_int(t);
    const float f = sub(t, static_cast<float>(j0));
    constexpr float A = -0.75f;
    const float f1 = add(f, 1.0f), g = sub(1.0f, f);
    const float c0 = sub(mul(add(mul(sub(mul(A, f1), 5.0f * A), f1), 8.0f * A), f1), 4.0f * A);
    const float c1 = add(mul(mul(sub(mul(A + 2.0f, f), A + 3.0f), f), f), 1.0f);
    const float c2 = add(mul(mul(sub(mul(A + 2.0f, g), A + 3.0f), g), g), 1.0f);
    const float c3 = sub(sub(sub(1.0f, c0), c1), c2);
    tap(clamp_int(j0 - 1, axis.lo, axis.hi), c0);
    tap(clamp_int(j0, axis.lo, axis.hi), c1);
    tap(clamp_int(j0 + 1, axis.lo, axis.hi), c2);
    tap(clamp_int(j0 + 2, axis.lo, axis.hi), c3);
    return 1.0f;
  } else if constexpr (M == Interpolation::Area) {
    const float a = add(axis.origin, mul(static_cast<float>(r), axis.scale));
    const float b = add(axis.origin, mul(static_cast<float>(r + 1), axis.scale));
    const int first = floor_int(a), last = static_cast<int>(ceilf(b)) - 1;
    float sum = 0.0f;
    for (int j = first; j <= last; ++j) {
      if (j < axis.lo || j > axis.hi) continue;
      const float w = sub(fminf(b, static_cast<float>(j + 1)), fmaxf(a, static_cast<float>(j)));
      tap(j, w);
      sum = add(sum, w);
    }
    return sum;
  } else {
    static_assert(M == Interpolation::LinearAntialias, "every interpolation has its taps");
    const float support = fmaxf(axis.scale, 1.0f);
    const int first = floor_int(add(sub(c, support), 0.5f));
    const int last = floor_int(add(add(c, support), 0.5f)) - 1;
    float sum = 0.0f;
    for (int j = first; j <= last; ++j) {
      if (j < axis.lo || j > axis.hi) continue;
      const float d = fabsf(sub(static_cast<float>(j) + 0.5f, c));
      const float w = fmaxf(0.0f, sub(1.0f, div(d, support)));
      tap(j, w);
      sum = add(sum, w);
    }
    return sum;
  }
}

// Whether every resized index of a linear axis reads one source index: the
// second tap's weight is exactly 0 at each (for_each_tap's fraction is 0), as
// where the resized pixels' centres fall on source pixels' centres: an odd
// whole scale from a whole origin, every value exact in float (below 2^22). A
// sufficient test, not a necessary one: other axes count two taps a pixel.
FERRY_RESIZE_FN bool linear_taps_are_single(const ResizeAxis& axis) {
  constexpr float kExact = 4194304.0f;
  const float reach = fabsf(axis.origin) + axis.scale * (static_cast<float>(axis.length) + 1.0f);
  return axis.scale >= 1.0f && axis.scale == floorf(axis.scale) && fmodf(axis.scale, 2.0f) == 1.0f &&
         axis.origin == floorf(axis.origin) && reach < kExact;
}

// V / (Sx * Sy) of the normalizing interpolations. A footprint narrower than
// float's resolution where it lies (a tiny window far from the origin, upscaled
// a lot) may keep no weight at all: then V is 0, not 0 / 0.
FERRY_RESIZE_FN float normalized(float v, float norm) { return norm == 0.0f ? 0.0f : div(v, norm); }

// The N channels of resized pixel (ry, rx): pixel(i, j, px) loads source row
// i, column j (the mapped channels) as floats into px[0..N). out[k] is V of
// channel k, before the uint8 rounding or the alpha/beta of float output.
template <Interpolation M, int N, typename Pixel>
FERRY_RESIZE_FN void resample(const ResizeAxes& axes, int ry, int rx, Pixel&& pixel, float (&out)[N]) {
  for (int k = 0; k < N; ++k) out[k] = 0.0f;
  const float sum_y = for_each_tap<M>(axes.y, ry, [&](int i, float wy) {
    float h[N];
    for (int k = 0; k < N; ++k) h[k] = 0.0f;
    for_each_tap<M>(axes.x, rx, [&](int j, float wx) {
      float px[N];
      pixel(i, j, px);
      for (int k = 0; k < N; ++k) h[k] = add(h[k], mul(wx, px[k]));
    });
    for (int k = 0; k < N; ++k) out[k] = add(out[k], mul(wy, h[k]));
  });
  if constexpr (normalizes(M)) {
    // Sx is the same for every row: recomputed here rather than carried, so
    // the x taps are visited once per row only.
    const float sum_x = for_each_tap<M>(axes.x, rx, [](int, float) {});
    const float norm = mul(sum_x, sum_y);
    for (int k = 0; k < N; ++k) out[k] = normalized(out[k], norm);
  }
}

// uint8 output of a resized value: clamped to 0..255, rounded half to even.
FERRY_RESIZE_FN std::uint8_t to_uint8(float v) {
  const float clamped = fminf(fmaxf(v, 0.0f), 255.0f);
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint8_t>(__float2int_rn(clamped));
#else
  return static_cast<std::uint8_t>(std::nearbyint(clamped));  // the default rounding mode: to even
#endif
}

}  // namespace ferry::core::resize
