// The window conversion kernel: the unit kernel for every window. It takes
// what the vector kernel does not: mirror (X and Y, per batch or sample),
// per-sample windows at any alignment, windows reaching outside the image
// (pad_outside: those pixels get the fill value), any channel map in either
// output layout, padding to 4 channels, and uint8 output.
//
// One thread converts one unit per step: G = 16 / element-size consecutive
// output pixels of one output row. Their source is G interleaved pixels in a
// row of the image, one contiguous span of G * C bytes (mirrored or not: a
// mirrored unit reads the mirrored span and reverses it in registers). The
// span is loaded as the aligned 32-bit words that cover it (coalesced: the
// lanes of a warp read consecutive spans) and funnel-shifted into place, so
// any window origin costs the same. Then:
//  - NCHW output: one 16-byte store per output channel plane; the lanes of a
//    warp write consecutive units of a plane (512 contiguous bytes).
//  - NHWC output of OCT channels: OCT consecutive 16-byte stores.
// Mirror Y and the per-sample origins only move the row pointer. A span
// reaching outside the image (or a unit past the row's end) takes the
// predicated branch: word loads only where the whole word is inside the row,
// single bytes at its edges, the fill value for pixels outside, and element
// stores for what is left of the row, so nothing past the row is written.
// The grid strides over every unit of the call, like the vector kernel.
//
// Instantiated per dtype, source channels and output shape in
// convert_window_nchw.cu and convert_window_nhwc.cu.
#pragma once

#include <type_traits>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/cuda/convert_unit_math.cuh"

namespace ferry::core::cuda_convert {

constexpr int kWindowThreads = 256;

// Output element values before packing: floats, or the bytes themselves for uint8.
template <DType D>
using WindowValue = std::conditional_t<D == DType::UInt8, std::uint32_t, float>;

// The value of the byte `sel` (0..7) of (lo, hi) for output channel coefficients a, b.
template <DType D>
__device__ __forceinline__ WindowValue<D> window_value(std::uint32_t lo, std::uint32_t hi, unsigned sel, float a,
                                                      float b) {
  if constexpr (D == DType::UInt8) {
    return __byte_perm(lo, hi, sel) & 0xFFu;
  } else {
    return affine(byte_float2(lo, hi, sel), a, b);
  }
}

// G = 16 / E values packed into the four words of a 16-byte vector.
template <DType D>
__device__ __forceinline__ void pack_vector(const WindowValue<D> (&v)[16 / elem_size<D>()], std::uint32_t (&w)[4]) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if constexpr (D == DType::Float32) {
      w[q] = __float_as_uint(v[q]);
    } else if constexpr (D == DType::UInt8) {
      w[q] = v[4 * q] | (v[4 * q + 1] << 8) | (v[4 * q + 2] << 16) | (v[4 * q + 3] << 24);
    } else {
      w[q] = pack2<D>(v[2 * q], v[2 * q + 1]);
    }
  }
}

// Replaces element e (compile-time after unrolling) of the packed vector with `bits`.
template <DType D>
__device__ __forceinline__ void set_element(std::uint32_t (&w)[4], int e, std::uint32_t bits) {
  constexpr int E = elem_size<D>();
  if constexpr (E == 4) {
    w[e] = bits;
  } else {
    const int q = e * E / 4, shift = (e * E % 4) * 8;
    const std::uint32_t mask = ((1u << (8 * E)) - 1u) << shift;
    w[q] = (w[q] & ~mask) | ((bits << shift) & mask);
  }
}

// Stores the vector: one 16-byte store when all its elements are wanted and
// dst is aligned, else the first `count` elements one by one.
template <DType D>
__device__ __forceinline__ void store_vector(std::uint8_t* dst, const std::uint32_t (&w)[4], int count) {
  constexpr int E = elem_size<D>(), G = 16 / E;
  if (count >= G && (reinterpret_cast<std::uintptr_t>(dst) & 15) == 0) {
    *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    return;
  }
#pragma unroll
  for (int e = 0; e < G; ++e) {
    if (e >= count) break;
    const std::uint32_t bits = w[e * E / 4] >> ((e * E % 4) * 8);
    if constexpr (E == 4) *reinterpret_cast<std::uint32_t*>(dst + e * E) = bits;
    if constexpr (E == 2) *reinterpret_cast<std::uint16_t*>(dst + e * E) = static_cast<std::uint16_t>(bits);
    if constexpr (E == 1) dst[e] = static_cast<std::uint8_t>(bits);
  }
}

// Loads the NW aligned words from `base` on, each only where it lies wholly in
// [lo, hi) (the row's bytes), the bytes of a word across an edge one by one.
template <int NW>
__device__ __forceinline__ void load_words_clamped(std::uintptr_t base, std::uintptr_t lo, std::uintptr_t hi,
                                                   std::uint32_t (&w)[NW]) {
#pragma unroll
  for (int k = 0; k < NW; ++k) {
    const std::uintptr_t at = base + 4u * static_cast<unsigned>(k);
    if (at >= lo && at + 4 <= hi) {
      w[k] = __ldg(reinterpret_cast<const unsigned int*>(at));
    } else {
      std::uint32_t v = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b)
        if (at + b >= lo && at + b < hi) v |= std::uint32_t{__ldg(reinterpret_cast<const std::uint8_t*>(at + b))} << (8 * b);
      w[k] = v;
    }
  }
}

struct WindowCoefficients {
  float a[4], b[4];
};

// One unit: output pixels xo .. xo+G-1 of output row `row` of local sample i,
// read from source row sy at window origin x0. MIRROR_X: a compile-time switch,
// so an unmirrored unit pays nothing for the mirror.
template <DType D, int C, int SHAPE, bool MIRROR_X>
__device__ __forceinline__ void convert_window_unit(const KernelParams& p, std::uint32_t i, int row, int xo, int sy,
                                                    int x0, const WindowCoefficients& coef) {
  constexpr int E = elem_size<D>(), G = 16 / E, IB = G * C, IW = IB / 4, NW = IW + 1;
  constexpr bool kNhwc = SHAPE != 0;
  constexpr int OCT = kNhwc ? SHAPE : 4;  // NCHW: planes up to p.oct
  const int valid = min(G, p.ow - xo);     // the unit's pixels inside the output row
  // Source pixel of span pixel 0; output pixel j reads span pixel j, or G-1-j mirrored.
  const std::int64_t span_px = MIRROR_X ? std::int64_t{x0} + p.ow - xo - G : std::int64_t{x0} + xo;
  const bool row_inside = sy >= 0 && sy < p.h;
  const bool all_inside = row_inside && span_px >= 0 && span_px + G <= p.w;

  std::uint32_t words[NW];
  unsigned shift = 0;
  if (row_inside) {
    const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(sample_source(p, i) + std::int64_t{sy} * p.src_h);
    const std::uintptr_t hi = lo + static_cast<std::uintptr_t>(std::int64_t{p.w} * C);
    const std::uintptr_t start = lo + static_cast<std::uintptr_t>(span_px * C);
    const std::uintptr_t base = start & ~std::uintptr_t{3};
    shift = static_cast<unsigned>(start & 3) * 8;
    if (all_inside && base >= lo && base + 4 * (shift ? NW : IW) <= hi) {
#pragma unroll
      for (int k = 0; k < IW; ++k) words[k] = __ldg(reinterpret_cast<const unsigned int*>(base) + k);
      words[IW] = shift ? __ldg(reinterpret_cast<const unsigned int*>(base) + IW) : 0u;
    } else {
      load_words_clamped<NW>(base, lo, hi, words);
    }
  } else {
#pragma unroll
    for (int k = 0; k < NW; ++k) words[k] = 0;
  }
  std::uint32_t in[IW];  // the span's bytes from byte 0 on
#pragma unroll
  for (int k = 0; k < IW; ++k) in[k] = __funnelshift_r(words[k], words[k + 1], shift);

  // The value of output pixel j, output channel k (both compile-time after unrolling).
  auto value = [&](int j, int k) {
    const int first = (MIRROR_X ? G - 1 - j : j) * C, w = first / 4;  // the pixel's channel 0: byte first % 4 of in[w]
    const std::uint32_t hi = in[w + 1 < IW ? w + 1 : w];
    return window_value<D>(in[w], hi, static_cast<unsigned>(first % 4 + p.channel_map[k]), coef.a[k], coef.b[k]);
  };
  // Whether output pixel j's source pixel is inside the image (only asked when not all are).
  auto inside = [&](int j) {
    const std::int64_t sx = span_px + (MIRROR_X ? G - 1 - j : j);
    return row_inside && sx >= 0 && sx < p.w;
  };

  std::uint8_t* out = p.out + (p.first + i) * p.out_n + std::int64_t{row} * p.out_h;
  if constexpr (!kNhwc) {
#pragma unroll
    for (int k = 0; k < OCT; ++k) {
      if (k >= p.oct) break;
      std::uint32_t w[4];
      if (k < p.oc) {
        WindowValue<D> v[G];
#pragma unroll
        for (int j = 0; j < G; ++j) v[j] = value(j, k);
        pack_vector<D>(v, w);
        if (!all_inside) {
#pragma unroll
          for (int j = 0; j < G; ++j)
            if (!inside(j)) set_element<D>(w, j, p.fill_bits);
        }
      } else {
        const std::uint32_t bits = E == 4 ? p.pad_bits : E == 2 ? p.pad_bits * 0x10001u : p.pad_bits * 0x01010101u;
        w[0] = w[1] = w[2] = w[3] = bits;
      }
      store_vector<D>(out + k * p.out_c + std::int64_t{xo} * E, w, valid);
    }
  } else {
    std::uint8_t* dst = out + std::int64_t{xo} * OCT * E;
#pragma unroll
    for (int q = 0; q < OCT; ++q) {  // the unit's q-th 16-byte vector: elements q*G .. q*G+G-1
      WindowValue<D> v[G];
#pragma unroll
      for (int t = 0; t < G; ++t) {
        const int e = q * G + t, j = e / OCT, k = e % OCT;
        v[t] = k < p.oc ? value(j, k) : WindowValue<D>{};
      }
      std::uint32_t w[4];
      pack_vector<D>(v, w);
#pragma unroll
      for (int t = 0; t < G; ++t) {
        const int e = q * G + t, j = e / OCT, k = e % OCT;
        if (k >= p.oc) {
          set_element<D>(w, t, p.pad_bits);
        } else if (!all_inside && !inside(j)) {
          set_element<D>(w, t, p.fill_bits);
        }
      }
      // Elements of pixels past the row's end are not written.
      store_vector<D>(dst + q * 16, w, valid * OCT - q * G);
    }
  }
}

// SHAPE: 0 for NCHW output, else the NHWC output's channel count (1, 3 or 4).
template <DType D, int C, int SHAPE>
__global__ void __launch_bounds__(kWindowThreads) convert_window_kernel(const KernelParams p) {
  constexpr int G = 16 / elem_size<D>();
  const std::uint32_t stride = gridDim.x * kWindowThreads;
  for (std::uint32_t unit = blockIdx.x * kWindowThreads + threadIdx.x; unit < p.units; unit += stride) {
    const std::uint32_t run = p.units_per_run.divide(unit);
    const std::uint32_t u = unit - run * p.units_per_run.d;
    const std::uint32_t i = p.runs_per_sample_div.divide(run);
    const int row = static_cast<int>(run - i * p.runs_per_sample_div.d);
    const SampleParams* sp = p.params ? p.params + i : nullptr;
    const int x0 = sp ? sp->x : p.crop_x, y0 = sp ? sp->y : p.crop_y, mirror = sp ? sp->mirror : p.mirror;
    WindowCoefficients coef;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      coef.a[k] = sp ? sp->alpha[k] : p.alpha[k];
      coef.b[k] = sp ? sp->beta[k] : p.beta[k];
    }
    const int sy = y0 + ((mirror & kMirrorY) ? p.oh - 1 - row : row);
    const int xo = static_cast<int>(u) * G;
    if (mirror & kMirrorX) {
      convert_window_unit<D, C, SHAPE, true>(p, i, row, xo, sy, x0, coef);
    } else {
      convert_window_unit<D, C, SHAPE, false>(p, i, row, xo, sy, x0, coef);
    }
  }
}

// The kernel for a dtype, source channels (1, 3, 4) and output shape; NULL for
// a combination the caller's translation unit does not instantiate.
const void* window_kernel_nchw(DType dtype, int c);
const void* window_kernel_nhwc(DType dtype, int c, int oct);

template <DType D, int SHAPE>
const void* window_kernel_for_channels(int c) {
  switch (c) {
    case 1: return reinterpret_cast<const void*>(&convert_window_kernel<D, 1, SHAPE>);
    case 3: return reinterpret_cast<const void*>(&convert_window_kernel<D, 3, SHAPE>);
    case 4: return reinterpret_cast<const void*>(&convert_window_kernel<D, 4, SHAPE>);
  }
  return nullptr;
}

template <int SHAPE>
const void* window_kernel_for(DType dtype, int c) {
  switch (dtype) {
    case DType::UInt8: return window_kernel_for_channels<DType::UInt8, SHAPE>(c);
    case DType::Float32: return window_kernel_for_channels<DType::Float32, SHAPE>(c);
    case DType::Float16: return window_kernel_for_channels<DType::Float16, SHAPE>(c);
    case DType::BFloat16: return window_kernel_for_channels<DType::BFloat16, SHAPE>(c);
  }
  return nullptr;
}

}  // namespace ferry::core::cuda_convert
