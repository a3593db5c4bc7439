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
//  - NHWC output of OCT channels: OCT consecutive 16-byte vectors, stored
//    through the warp's shared-memory slots (OCT 3 and 4) so that each store
//    instruction of the warp writes contiguous bytes (convert_window_stage.cuh).
// Mirror Y and the per-sample origins only move the row pointer. A span
// reaching outside the image (or a unit past the row's end) takes the
// predicated branch: word loads only where the whole word is inside the row,
// single bytes at its edges, the fill value for pixels outside, and element
// stores for what is left of the row, so nothing past the row is written; a
// span wholly outside stores the fill constants without loading anything.
// Each block walks one contiguous share of the call's units, so a thread
// reads a per-sample table entry once per sample, not once per unit.
// Measured causes and predictions: PERF_NOTES.md.
//
// Instantiated per dtype, source channels and output shape in
// convert_window_nchw.cu and convert_window_nhwc.cu.
#pragma once

#include <type_traits>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/cuda/convert_unit_math.cuh"
#include "core/convert/cuda/convert_window_stage.cuh"
#include "core/convert/cuda/resident_blocks.cuh"

namespace ferry::core::cuda_convert {

constexpr int kWindowThreads = 256;

// Resident blocks per SM asked of ptxas (its register cap). Left to itself it
// took 54-78 registers for most instantiations (4 or 3 blocks of 256), and
// the count moved with unrelated edits. 5 blocks (48 registers) is 25 % more
// bytes in flight than 4; those that spill at 48 (-Xptxas -v: NHWC of 4
// channels in 16 or 8 bits, uint8 from 4 channels or to NHWC of 3) get 4
// (64 registers), and spill nothing. uint8 NCHW from 3 channels keeps 5 with
// an 8-byte spill (two L1-resident words beside a unit's 13 loads); at 4 it
// would have fewer threads than before. 6 blocks (40 registers) spilled
// 20-60 bytes everywhere.
template <DType D, int C, int SHAPE>
constexpr int window_min_blocks() {
  const bool wide = (SHAPE == 4 && D != DType::Float32) || (D == DType::UInt8 && (C == 4 || SHAPE == 3));
  return wide ? 4 : 5;
}

// The value of the byte `sel` (0..7) of (lo, hi) for output channel coefficients a, b.
template <DType D>
__device__ __forceinline__ UnitValue<D> window_value(std::uint32_t lo, std::uint32_t hi, unsigned sel, float a,
                                                      float b) {
  if constexpr (D == DType::UInt8) {
    return __byte_perm(lo, hi, sel) & 0xFFu;
  } else {
    return affine(byte_float2(lo, hi, sel), a, b);
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

// A sample's window origin and mirror: the call's uniform values, or one
// sample's entry of the per-sample table. Kept across a thread's steps (the
// unit's source address depends on them: a load per unit for them would sit
// in front of every data load); the coefficients are read per unit, where
// their loads overlap the data loads, and cost no registers across steps
// (from the table only when they differ per sample).
struct WindowSample {
  int x0, y0, mirror;
};

__device__ __forceinline__ WindowCoefficients coefficients_of(const KernelParams& p, const SampleParams* sp) {
  WindowCoefficients coef;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    coef.a[k] = sp ? __ldg(&sp->alpha[k]) : p.alpha[k];
    coef.b[k] = sp ? __ldg(&sp->beta[k]) : p.beta[k];
  }
  return coef;
}

// An NHWC unit's output: its OCT vectors, where they go and how many elements
// of them are wanted (the caller stores them, warp-staged: convert_window_stage.cuh).
template <int OCT>
struct NhwcUnit {
  std::uint32_t v[OCT][4] = {};
  std::uint8_t* dst = nullptr;
  int count = 0;
};

// One unit: output pixels xo .. xo+G-1 of output row `row` of local sample i
// (whose first byte is `sample`), read from source row sy at window origin x0. MIRROR_X: a compile-time switch,
// so an unmirrored unit pays nothing for the mirror. PREDICATED: compiled
// with the one-path loads of KernelParams::aligned_rows (only the gather
// kernel sets it; the table kernel keeps its registers). NCHW output is
// stored here; NHWC output is left in `nhwc`.
template <DType D, int C, int SHAPE, bool MIRROR_X, bool PREDICATED>
__device__ __forceinline__ void convert_window_unit(const KernelParams& p, std::uint32_t i, const std::uint8_t* sample,
                                                    int row, int xo, int sy, int x0, const WindowCoefficients& coef,
                                                    NhwcUnit<SHAPE == 0 ? 1 : SHAPE>& nhwc) {
  constexpr int E = elem_size<D>(), G = 16 / E, IB = G * C, IW = IB / 4, NW = IW + 1;
  constexpr bool kNhwc = SHAPE != 0;
  constexpr int OCT = kNhwc ? SHAPE : 4;  // NCHW: planes up to p.oct
  const int valid = min(G, p.ow - xo);     // the unit's pixels inside the output row
  // Source pixel of span pixel 0; output pixel j reads span pixel j, or G-1-j mirrored.
  const std::int64_t span_px = MIRROR_X ? std::int64_t{x0} + p.ow - xo - G : std::int64_t{x0} + xo;
  const bool row_inside = sy >= 0 && sy < p.h;
  const bool all_inside = row_inside && span_px >= 0 && span_px + G <= p.w;
  std::uint8_t* out = p.out + (p.first + i) * p.out_n + std::int64_t{row} * p.out_h;

  // Wholly outside (a padded window's margins): no loads at all. The fill
  // below replaces every value; these lanes skip the clamped loads' per-byte
  // checks, which the inside lanes of their warp would otherwise wait for.
  const bool all_outside = !row_inside || span_px + G <= 0 || span_px >= p.w;
  std::uint32_t words[NW];
  unsigned shift = 0;
  if (PREDICATED && p.zero_outside && p.aligned_rows) {
    const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(sample) + static_cast<std::uintptr_t>(std::int64_t{sy} * p.src_h);
    const std::uintptr_t hi = lo + static_cast<std::uintptr_t>(std::int64_t{p.w} * C);
    const std::uintptr_t start = lo + static_cast<std::uintptr_t>(span_px * C);
    const std::uintptr_t base = start & ~std::uintptr_t{3};
    shift = static_cast<unsigned>(start & 3) * 8;
#pragma unroll
    for (int k = 0; k < NW; ++k) {
      const std::uintptr_t at = base + 4u * static_cast<unsigned>(k);
      words[k] = row_inside && at >= lo && at + 4 <= hi ? __ldg(reinterpret_cast<const unsigned int*>(at)) : 0u;
    }
  } else if (all_outside) {
#pragma unroll
    for (int k = 0; k < NW; ++k) words[k] = 0;
  } else {
    const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(sample + std::int64_t{sy} * p.src_h);
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

  if constexpr (!kNhwc) {
#pragma unroll
    for (int k = 0; k < OCT; ++k) {
      if (k >= p.oct) break;
      std::uint32_t w[4];
      if (k < p.oc) {
        UnitValue<D> v[G];
#pragma unroll
        for (int j = 0; j < G; ++j) v[j] = value(j, k);
        pack_vector<D>(v, w);
        if (!all_inside && !p.zero_outside) {  // zero_outside: the zero bytes loaded there, converted
#pragma unroll
          for (int j = 0; j < G; ++j)
            if (!inside(j)) set_element<D>(w, j, p.fill_bits);
        }
      } else {
        const std::uint32_t bits = replicate<D>(p.pad_bits);
        w[0] = w[1] = w[2] = w[3] = bits;
      }
      store_vector<D>(out + k * p.out_c + std::int64_t{xo} * E, w, valid);
    }
  } else {
#pragma unroll
    for (int q = 0; q < OCT; ++q) {  // the unit's q-th 16-byte vector: elements q*G .. q*G+G-1
      UnitValue<D> v[G];
#pragma unroll
      for (int t = 0; t < G; ++t) {
        const int e = q * G + t, j = e / OCT, k = e % OCT;
        v[t] = k < p.oc ? value(j, k) : UnitValue<D>{};
      }
      pack_vector<D>(v, nhwc.v[q]);
#pragma unroll
      for (int t = 0; t < G; ++t) {
        const int e = q * G + t, j = e / OCT, k = e % OCT;
        if (k >= p.oc) {
          set_element<D>(nhwc.v[q], t, p.pad_bits);
        } else if (!all_inside && !p.zero_outside && !inside(j)) {
          set_element<D>(nhwc.v[q], t, p.fill_bits);
        }
      }
    }
    // Elements of pixels past the row's end are not written.
    nhwc.dst = out + std::int64_t{xo} * OCT * E;
    nhwc.count = valid * OCT;
  }
}

// Stores an NHWC unit: one thread's vectors in a row (one channel: already
// 16 contiguous bytes a lane), or warp-staged (3 or 4 channels). Called by
// every lane of the warp, those without a unit with count 0.
template <DType D, int SHAPE>
__device__ __forceinline__ void store_nhwc(uint4* warp_slots, const NhwcUnit<SHAPE>& nhwc) {
  if constexpr (SHAPE >= 3) {
    warp_staged_store<D, SHAPE>(warp_slots, nhwc.v, nhwc.dst, nhwc.count);
  } else {
#pragma unroll
    for (int q = 0; q < SHAPE; ++q)
      store_vector<D>(nhwc.dst + q * 16, nhwc.v[q], nhwc.count - q * (16 / elem_size<D>()));
  }
}

// Units each block of a window kernel takes: an equal number of steps of
// kWindowThreads (see convert_window_units). units < 2^31, so steps *
// kWindowThreads and a share's end stay below 2^32.
__host__ __device__ constexpr std::uint32_t window_block_units(std::uint32_t units, std::uint32_t blocks) {
  return ((units + kWindowThreads - 1) / kWindowThreads + blocks - 1) / blocks * kWindowThreads;
}

// Local sample i's pixels, window origin, mirror and coefficients, as the
// window kernel reads them: from KernelParams (uniform values, the sample
// pointers or the data form) and its per-sample table where it has one.
struct TableSamples {
  static constexpr bool kPerBlock = false;  // nothing to prepare per block (see convert_window_units)
  static constexpr bool kPredicated = false;  // no aligned_rows (convert_window_unit)
  const KernelParams& p;
  // The units this block takes (convert_window_units).
  __device__ __forceinline__ std::uint32_t block_units() const { return window_block_units(p.units, gridDim.x); }
  // Called when a thread meets sample i (its units are consecutive).
  __device__ __forceinline__ void enter(std::uint32_t i, WindowSample& s) const {
    if (p.params != nullptr) {
      const SampleParams* sp = p.params + i;
      s = WindowSample{__ldg(&sp->x), __ldg(&sp->y), __ldg(&sp->mirror)};
    }
  }
  __device__ __forceinline__ const std::uint8_t* source(std::uint32_t i) const { return sample_source(p, i); }
  __device__ __forceinline__ WindowCoefficients coefficients(std::uint32_t i) const {
    return coefficients_of(p, p.sample_coefficients ? p.params + i : nullptr);
  }
};

// SHAPE: 0 for NCHW output, else the NHWC output's channel count (1, 3 or 4).
//
// Each block takes one contiguous share of the units (an equal number of
// steps of kWindowThreads each; the last shares may be shorter or empty)
// rather than striding over the whole call: a thread's consecutive units then
// lie in the same sample, so its window origin and mirror are read from the
// table (or drawn: convert_window_gather.cu) once per sample a thread meets,
// not in front of every unit's loads. The loop bound is block-uniform, so
// every lane of a warp reaches the staged store of every step.
template <DType D, int C, int SHAPE, typename Samples>
__device__ __forceinline__ void convert_window_units(const KernelParams& p, Samples& samples) {
  constexpr int G = 16 / elem_size<D>();
  constexpr int S = SHAPE == 0 ? 1 : SHAPE;
  __shared__ uint4 stage[SHAPE >= 3 ? kWindowThreads * SHAPE : 1];
  uint4* const warp_slots = stage + (SHAPE >= 3 ? (threadIdx.x / 32) * 32 * SHAPE : 0);
  const std::uint32_t share = samples.block_units();
  const std::uint32_t begin = blockIdx.x * share;
  const std::uint32_t end = min(p.units, begin + share);
  // Per-block work of the samples (the gather's draws): every thread calls
  // it, the share being block-uniform.
  if constexpr (Samples::kPerBlock) samples.prepare(begin, end);
  WindowSample s{p.crop_x, p.crop_y, p.mirror};
  std::uint32_t loaded = 0xFFFFFFFFu;  // the local sample s was entered for
  for (std::uint32_t step = begin; step < end; step += kWindowThreads) {
    const std::uint32_t unit = step + threadIdx.x;
    NhwcUnit<S> nhwc;
    if (unit < end) {
      const std::uint32_t run = p.units_per_run.divide(unit);
      const std::uint32_t u = unit - run * p.units_per_run.d;
      const std::uint32_t i = p.runs_per_sample_div.divide(run);
      const int row = static_cast<int>(run - i * p.runs_per_sample_div.d);
      if (i != loaded) {
        samples.enter(i, s);
        loaded = i;
      }
      const WindowCoefficients coef = samples.coefficients(i);
      const int sy = s.y0 + ((s.mirror & kMirrorY) ? p.oh - 1 - row : row);
      const int xo = static_cast<int>(u) * G;
      if (s.mirror & kMirrorX) {
        convert_window_unit<D, C, SHAPE, true, Samples::kPredicated>(p, i, samples.source(i), row, xo, sy, s.x0, coef,
                                                                     nhwc);
      } else {
        convert_window_unit<D, C, SHAPE, false, Samples::kPredicated>(p, i, samples.source(i), row, xo, sy, s.x0, coef,
                                                                      nhwc);
      }
    }
    if constexpr (SHAPE != 0) store_nhwc<D, S>(warp_slots, nhwc);
  }
}

template <DType D, int C, int SHAPE>
__global__ void __launch_bounds__(kWindowThreads, resident_blocks(window_min_blocks<D, C, SHAPE>(), kWindowThreads))
    convert_window_kernel(const KernelParams p) {
  TableSamples samples{p};
  convert_window_units<D, C, SHAPE>(p, samples);
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
