// The pixel-stream kernel: the vector kernel's counterpart for NHWC output
// that is not the input stream element for element: a channel map
// (BGR -> RGB), padding to 4 channels, fewer or more channels than the
// source has (BGRA -> RGB, gray -> RGB), or uint8 output. Same geometry as
// the vector kernel: runs of contiguous interleaved pixels (packed images or
// rows), nothing mirrored or outside, every run a whole number of 16-byte
// output units.
//
// One thread converts one unit: the next 16 output bytes of its run, N = 16 /
// element-size elements of OCT-channel pixels, stored as one 16-byte vector,
// so each store instruction of a warp writes 512 contiguous bytes. (The
// window kernel's NHWC unit is OCT vectors a thread, stored through shared
// memory: 0.62-0.66 of a D2D copy on these cases.) Its source is the pixels
// its elements come from, at most ceil(N / OCT) + 1 of them: the aligned
// words covering them, each loaded only where the unit needs it (every run
// starts on 4 bytes and is a whole number of words, so no word leaves the
// run), funnel-shifted so that the first pixel starts at byte 0. Element t is
// channel (r + t) % OCT of pixel (r + t) / OCT, r being the unit's first
// element's channel: 0 when OCT divides N, else (OCT 3) 0, 1 or 2, chosen
// with selects, the coefficients rotated once a chunk. A gray source (C 1)
// converts each pixel once and picks it per element.
//
// Arithmetic: convert_unit_math.cuh, the window kernel's per element
// (bit-identical to the CPU backend); uint8 output moves the bytes.
#include <algorithm>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/cuda/convert_unit_math.cuh"
#include "core/convert/cuda/resident_blocks.cuh"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kThreads = 256;
// Units a thread converts per warp step: units l, l + 32, l + 64, l + 96 of
// its warp's chunk of 128 (so that every store instruction of the warp writes
// 512 contiguous bytes), located in their run once and all four loaded before
// any is converted. H200, ratio to a D2D copy, f16 NHWC pad to 4 / BGR -> RGB
// bf16 NHWC: two units a grid stride apart, each located on its own, 0.75 /
// 0.54; two of a warp's chunk 0.84 / 0.74; four 0.88 / 0.85.
constexpr int kStep = 4;
// Resident blocks asked of ptxas (its register cap): four units' words need
// 64 registers (at 40 or 48 they spilled).
constexpr int kBlocks = 4;

template <DType D, int C, int OCT>
struct PixelsShape {
  static constexpr int N = 16 / elem_size<D>();             // elements a unit
  static constexpr bool kAligned = N % OCT == 0;            // every unit starts on a pixel
  static constexpr int kPixels = kAligned ? N / OCT : (OCT - 1 + N - 1) / OCT + 1;  // at most
  static constexpr int kBytes = kPixels * C;                // source bytes, at most
  static constexpr int kWords = (3 + kBytes + 3) / 4;       // aligned words covering them, at most
  static constexpr int kIn = (kBytes + 3) / 4;              // words after the funnel shift
};

template <DType D, int C, int OCT>
struct LoadedPixels {
  std::uint32_t words[PixelsShape<D, C, OCT>::kWords + 1];  // the last one stays 0 (the funnel's high word)
  unsigned shift;   // byte offset of the first pixel in words[0], times 8
  unsigned first;   // the unit's first element's channel (r)
  std::uint8_t* out;
};

// Where a unit's run lies: its first source and output bytes, the unit's
// index in it and the run's local sample.
struct RunPosition {
  const std::uint8_t* src;
  std::uint8_t* out;
  std::uint32_t u;
  std::uint32_t sample;
};

__device__ __forceinline__ RunPosition locate_unit(const KernelParams& p, int c, std::uint32_t unit) {
  const std::uint32_t run = p.units_per_run.divide(unit);
  const std::uint32_t u = unit - run * p.units_per_run.d;
  const std::uint32_t i = p.runs_per_sample_div.divide(run);
  const std::uint32_t row = run - i * p.runs_per_sample_div.d;
  const SampleParams* ds = p.params ? p.params + i : nullptr;
  const int x0 = ds ? ds->x : p.crop_x, y0 = ds ? ds->y : p.crop_y;
  const std::uint8_t* src = sample_source(p, i) + static_cast<std::int64_t>(y0 + static_cast<int>(row)) * p.src_h +
                            static_cast<std::int64_t>(x0) * c;
  std::uint8_t* out = p.out + (p.first + i) * p.out_n + static_cast<std::int64_t>(row) * p.out_h;
  return {src, out, u, i};
}

// Unit u of the run at `at`: loads the aligned words covering its pixels.
template <DType D, int C, int OCT>
__device__ __forceinline__ LoadedPixels<D, C, OCT> load_pixels_unit(const RunPosition& at, std::uint32_t u) {
  using S = PixelsShape<D, C, OCT>;
  LoadedPixels<D, C, OCT> lu;
  const std::uint32_t s0 = u * S::N;  // the unit's first element in its run
  const std::uint32_t p0 = s0 / OCT;  // OCT a constant: a multiply
  lu.first = s0 - p0 * OCT;
  const std::uint32_t pixels = (lu.first + S::N - 1) / OCT + 1;
  const std::uintptr_t from = reinterpret_cast<std::uintptr_t>(at.src) + std::uintptr_t{p0} * C;
  const auto* base = reinterpret_cast<const unsigned int*>(from & ~std::uintptr_t{3});
  lu.shift = static_cast<unsigned>(from & 3) * 8;
  const unsigned end = static_cast<unsigned>(from & 3) + pixels * C;  // bytes from base the unit needs
#pragma unroll
  for (int k = 0; k < S::kWords; ++k) lu.words[k] = 4u * k < end ? __ldg(base + k) : 0u;
  lu.words[S::kWords] = 0;
  lu.out = at.out + std::uintptr_t{u} * 16;
  return lu;
}

// Byte `sel` (0..7) of (lo, hi) as an output value: the byte itself for uint8, else converted.
template <DType D>
__device__ __forceinline__ UnitValue<D> pixels_value(std::uint32_t lo, std::uint32_t hi, unsigned sel, float a, float b) {
  if constexpr (D == DType::UInt8) {
    return __byte_perm(lo, hi, sel) & 0xFFu;
  } else {
    return affine(byte_float2(lo, hi, sel), a, b);
  }
}

template <bool SAMPLE_COEF>
__device__ __forceinline__ void unit_coefficients(const KernelParams& p, std::uint32_t sample, float (&a)[4],
                                                  float (&b)[4]) {
  const SampleParams* ds = p.params + sample;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    a[k] = SAMPLE_COEF ? __ldg(&ds->alpha[k]) : p.alpha[k];
    b[k] = SAMPLE_COEF ? __ldg(&ds->beta[k]) : p.beta[k];
  }
}

// The coefficients for a unit whose first element is channel r of its pixel
// (3 output channels): element t = 3m + j takes channel (r + j) % 3's, so
// they are rotated by r, with selects (no branch on r: the lanes of a warp
// start at different channels; a branch ran all three cases, 0.41 of a D2D
// copy for BGR -> RGB bf16 on an H200).
struct UnitCoefficients {
  float a[3], b[3];
};

__device__ __forceinline__ UnitCoefficients rotate_coefficients(unsigned r, const float (&a)[4], const float (&b)[4]) {
  const bool r0 = r == 0, r1 = r == 1;
  UnitCoefficients k;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    k.a[j] = r0 ? a[j] : r1 ? a[(j + 1) % 3] : a[(j + 2) % 3];
    k.b[j] = r0 ? b[j] : r1 ? b[(j + 1) % 3] : b[(j + 2) % 3];
  }
  return k;
}

// The same rotated by `by` more (a compile-time value once unrolled: no instructions).
__device__ __forceinline__ UnitCoefficients rotate_further(const UnitCoefficients& k, int by) {
  UnitCoefficients r;
#pragma unroll
  for (int j = 0; j < 3; ++j) r.a[j] = k.a[(j + by) % 3], r.b[j] = k.b[(j + by) % 3];
  return r;
}

template <DType D, int C, int OCT>
__device__ __forceinline__ void store_pixels_unit(const KernelParams& p, const LoadedPixels<D, C, OCT>& lu,
                                                  const float (&a)[4], const float (&b)[4], const UnitCoefficients& k) {
  using S = PixelsShape<D, C, OCT>;
  constexpr int N = S::N, IW = S::kIn;
  std::uint32_t in[IW];  // the unit's source bytes from its first pixel's on
#pragma unroll
  for (int k = 0; k < IW; ++k) in[k] = __funnelshift_r(lu.words[k], lu.words[k + 1], lu.shift);
  UnitValue<D> v[N];
  if constexpr (S::kAligned) {
    // Element t: channel t % OCT of pixel t / OCT, all known at compile time
    // but the channel map's byte.
#pragma unroll
    for (int t = 0; t < N; ++t) {
      const int k = t % OCT, first = t / OCT * C, w = first / 4;
      const unsigned sel = static_cast<unsigned>(first % 4 + p.channel_map[k]);
      v[t] = pixels_value<D>(in[w], in[w + 1 < IW ? w + 1 : w], sel, a[k], b[k]);
    }
  } else {
    static_assert(OCT == 3, "units start mid-pixel only for 3 channels");
    // The unit starts at channel r of its first pixel, so element t = 3m + j
    // is channel (r + j) % 3 (k, rotated by the caller) of pixel m + c_j,
    // c_j = (r + j) / 3: 1 where r + j >= 3.
    const unsigned r = lu.first;
    if constexpr (C == 1) {
      // Gray: each pixel's value once, then picked per element (H200, gray ->
      // RGB bf16 NHWC: a value per element took ~106 instructions a unit).
      UnitValue<D> pixel[S::kPixels];
#pragma unroll
      for (int m = 0; m < S::kPixels; ++m) {
        if constexpr (D == DType::UInt8) {
          pixel[m] = (in[m / 4] >> (8 * (m % 4))) & 0xFFu;
        } else {
          pixel[m] = byte_float(in[m / 4], static_cast<unsigned>(m % 4));
        }
      }
      const bool next1 = r == 2, next2 = r != 0;  // c_1, c_2
#pragma unroll
      for (int t = 0; t < N; ++t) {
        const int m = t / 3, j = t % 3;
        const UnitValue<D> x = j == 0 ? pixel[m] : (j == 1 ? next1 : next2) ? pixel[m + 1] : pixel[m];
        if constexpr (D == DType::UInt8) {
          v[t] = x;
        } else {
          v[t] = affine(x, k.a[j], k.b[j]);
        }
      }
    } else {
      // Element t = 3m + j reads byte C * m + off_j; the host packs off_j
      // for every r (KernelParams::pixel_offsets): no per-unit table work.
      const auto offsets = static_cast<unsigned>(p.pixel_offsets >> (12 * r));
#pragma unroll
      for (int t = 0; t < N; ++t) {
        const int m = t / 3, j = t % 3, base = C * m, w = base / 4;
        // of in[w], in[w + 1], in[w + 2]
        const unsigned at = static_cast<unsigned>(base % 4) + ((offsets >> (4 * j)) & 15u);
        std::uint32_t lo = in[w], hi = in[w + 1 < IW ? w + 1 : w];
        unsigned sel = at;
        if (base % 4 + 2 * C - 1 >= 8) {  // off_j <= 2C - 1 may reach the third word (known once unrolled)
          const bool up = at >= 8;
          lo = up ? hi : lo;
          hi = up ? in[w + 2 < IW ? w + 2 : IW - 1] : hi;
          sel = up ? at - 4 : at;
        }
        v[t] = pixels_value<D>(lo, hi, sel, k.a[j], k.b[j]);
      }
    }
  }
  std::uint32_t w[4];
  pack_vector<D>(v, w);
  if constexpr (OCT == 4) {  // the padded channels' elements (none where all four are mapped)
#pragma unroll
    for (int q = 0; q < 4; ++q) w[q] = (w[q] & ~p.pad_mask[q]) | p.pad_pattern[q];
  }
  store_output_vector(lu.out, w[0], w[1], w[2], w[3]);
}

// Warps stride over chunks of 32 * kStep units; lane l takes units l,
// l + 32, ... of its warp's chunk. Where they all lie in the lane's first
// unit's run (all but the chunks across a run's end), the run is located
// once and the kStep loads are in flight before any unit is converted.
// SAMPLE_COEF: the coefficients come from the per-sample table (per-sample
// mean/std), else from the parameter.
template <DType D, int C, int OCT, bool SAMPLE_COEF>
__global__ void __launch_bounds__(kThreads, resident_blocks(kBlocks, kThreads)) convert_pixels_kernel(const KernelParams p) {
  constexpr int kChunk = 32 * kStep;
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t warps = gridDim.x * (kThreads / 32);
  const std::uint32_t chunks = (p.units + kChunk - 1) / kChunk;  // units < 2^31: no wrap
  float a[4] = {}, b[4] = {};
  if constexpr (!SAMPLE_COEF && D != DType::UInt8) unit_coefficients<false>(p, 0, a, b);
  for (std::uint32_t chunk = (blockIdx.x * kThreads + threadIdx.x) / 32; chunk < chunks; chunk += warps) {
    const std::uint32_t unit = chunk * kChunk + lane;
    if (unit >= p.units) continue;
    const RunPosition at = locate_unit(p, C, unit);
    if constexpr (SAMPLE_COEF) unit_coefficients<true>(p, at.sample, a, b);
    if (at.u + 32u * (kStep - 1) < p.units_per_run.d) {
      LoadedPixels<D, C, OCT> loaded[kStep];
#pragma unroll
      for (int k = 0; k < kStep; ++k) loaded[k] = load_pixels_unit<D, C, OCT>(at, at.u + 32u * k);
      // Unit k starts at channel (r_0 + 32 N k) % 3 of its pixel: the
      // coefficients are rotated once for the chunk, then by constants.
      const UnitCoefficients first = rotate_coefficients(loaded[0].first, a, b);
#pragma unroll
      for (int k = 0; k < kStep; ++k)
        store_pixels_unit<D, C, OCT>(p, loaded[k], a, b, rotate_further(first, 32 * PixelsShape<D, C, OCT>::N * k % 3));
    } else {  // the units cross a run's end: each located on its own
      const LoadedPixels<D, C, OCT> lu = load_pixels_unit<D, C, OCT>(at, at.u);
      store_pixels_unit<D, C, OCT>(p, lu, a, b, rotate_coefficients(lu.first, a, b));
      for (int k = 1; k < kStep; ++k) {
        if (unit + 32u * k >= p.units) break;
        const RunPosition next = locate_unit(p, C, unit + 32u * k);
        if constexpr (SAMPLE_COEF) unit_coefficients<true>(p, next.sample, a, b);
        const LoadedPixels<D, C, OCT> nu = load_pixels_unit<D, C, OCT>(next, next.u);
        store_pixels_unit<D, C, OCT>(p, nu, a, b, rotate_coefficients(nu.first, a, b));
      }
    }
  }
}

template <DType D, int C, int OCT>
const void* kernel_for_coefficients(bool per_sample) {
  if constexpr (D != DType::UInt8) {  // uint8 output has no coefficients
    if (per_sample) return reinterpret_cast<const void*>(&convert_pixels_kernel<D, C, OCT, true>);
  }
  return reinterpret_cast<const void*>(&convert_pixels_kernel<D, C, OCT, false>);
}

template <DType D, int C>
const void* kernel_for_out_channels(int oct, bool per_sample) {
  switch (oct) {
    case 1: return kernel_for_coefficients<D, C, 1>(per_sample);
    case 3: return kernel_for_coefficients<D, C, 3>(per_sample);
    case 4: return kernel_for_coefficients<D, C, 4>(per_sample);
  }
  fail(Status::Internal, "pixel-stream conversion kernel for ", oct, " output channels does not exist");
}

template <DType D>
const void* kernel_for_channels(int c, int oct, bool per_sample) {
  switch (c) {
    case 1: return kernel_for_out_channels<D, 1>(oct, per_sample);
    case 3: return kernel_for_out_channels<D, 3>(oct, per_sample);
    case 4: return kernel_for_out_channels<D, 4>(oct, per_sample);
  }
  fail(Status::Internal, "pixel-stream conversion kernel for ", c, " channels does not exist");
}

const void* pick_pixels_kernel(DType dtype, int c, int oct, bool per_sample) {
  switch (dtype) {
    case DType::UInt8: return kernel_for_channels<DType::UInt8>(c, oct, false);
    case DType::Float32: return kernel_for_channels<DType::Float32>(c, oct, per_sample);
    case DType::Float16: return kernel_for_channels<DType::Float16>(c, oct, per_sample);
    case DType::BFloat16: return kernel_for_channels<DType::BFloat16>(c, oct, per_sample);
  }
  fail(Status::Internal, "pixel-stream conversion kernel for dtype ", static_cast<int>(dtype), " does not exist");
}

}  // namespace

int convert_pixels_blocks_per_sm(DType dtype, int c, int oct) {
  int blocks = 0;  // both coefficient variants have the same launch bounds
  FERRY_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pick_pixels_kernel(dtype, c, oct, false), kThreads, 0));
  return blocks > 0 ? blocks : 1;
}

void launch_convert_pixels(const KernelParams& params, DType dtype, int max_blocks, void* stream) {
  const std::int64_t work = (std::int64_t{params.units} + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(work, max_blocks)));
  void* args[] = {const_cast<KernelParams*>(&params)};
  const void* kernel = pick_pixels_kernel(dtype, params.c, params.oct, params.sample_coefficients != 0);
  FERRY_CUDA_TRY(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), args, 0,
                                  static_cast<cudaStream_t>(stream)));
}

}  // namespace ferry::core::cuda_convert
