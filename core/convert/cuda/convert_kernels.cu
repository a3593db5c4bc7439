// The fused uint8 -> float32/float16/bfloat16/uint8 conversion kernels.
//
// Run kernel (the fast path): when a sample's window is made of runs of
// contiguous interleaved pixels (NHWC rows, or the whole image when rows are
// packed and the window is full width) and each output channel plane (NCHW)
// or the output pixels (NHWC) are contiguous too. Each warp takes a tile of
// 512 pixels: it loads the tile's bytes with 16-byte loads (LDG.128) when the
// tile is whole and aligned, byte loads otherwise, into shared memory; then
// each lane converts groups of 4 output elements and writes them with one
// vector store, so a warp's store covers 32 consecutive groups (coalesced).
//
// Generic kernel (what neither unit kernel takes: planar input, scattered
// pixels or output elements, NHWC output of 2 channels): a block per output
// row, a thread per pixel.
//
// Values: out = __fadd_rn(__fmul_rn(float(x), alpha), beta), the same two
// roundings as the CPU backend, so results are bit-identical to it.
#include <cuda_runtime.h>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/half_bits.h"
#include "core/device/cuda/cuda_check.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kTilePx = 512;
constexpr int kGroups = kTilePx / 4;  // groups of 4 pixels in a tile

template <DType D> struct Elem;
template <> struct Elem<DType::UInt8> { static constexpr int size = 1; };
template <> struct Elem<DType::Float32> { static constexpr int size = 4; };
template <> struct Elem<DType::Float16> { static constexpr int size = 2; };
template <> struct Elem<DType::BFloat16> { static constexpr int size = 2; };

// The output bits of one source byte.
template <DType D>
__device__ __forceinline__ std::uint32_t convert_value(std::uint32_t x, float a, float b) {
  if constexpr (D == DType::UInt8) {
    return x;
  } else {
    const float v = __fadd_rn(__fmul_rn(static_cast<float>(x), a), b);
    if constexpr (D == DType::Float32) return __float_as_uint(v);
    if constexpr (D == DType::Float16) return float_to_half_bits(v);
    if constexpr (D == DType::BFloat16) return float_to_bf16_bits(v);
  }
  return 0;
}

template <DType D>
__device__ __forceinline__ void store_one(std::uint8_t* dst, std::uint32_t v) {
  constexpr int E = Elem<D>::size;
  if constexpr (E == 4) *reinterpret_cast<std::uint32_t*>(dst) = v;
  if constexpr (E == 2) *reinterpret_cast<std::uint16_t*>(dst) = static_cast<std::uint16_t>(v);
  if constexpr (E == 1) *dst = static_cast<std::uint8_t>(v);
}

// Stores `valid` (1..4) consecutive elements; one vector store when all 4 are
// there and dst is aligned to 4 elements.
template <DType D>
__device__ __forceinline__ void store_four(std::uint8_t* dst, const std::uint32_t (&v)[4], int valid) {
  constexpr int E = Elem<D>::size;
  if (valid == 4 && (reinterpret_cast<std::uintptr_t>(dst) & (4 * E - 1)) == 0) {
    if constexpr (E == 4) *reinterpret_cast<uint4*>(dst) = make_uint4(v[0], v[1], v[2], v[3]);
    if constexpr (E == 2) *reinterpret_cast<uint2*>(dst) = make_uint2(v[0] | (v[1] << 16), v[2] | (v[3] << 16));
    if constexpr (E == 1)
      *reinterpret_cast<std::uint32_t*>(dst) = v[0] | (v[1] << 8) | (v[2] << 16) | (v[3] << 24);
    return;
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (j < valid) store_one<D>(dst + j * E, v[j]);
}

template <DType D>
__global__ void __launch_bounds__(kThreads) convert_runs_kernel(const KernelParams p) {
  constexpr int E = Elem<D>::size;
  __shared__ __align__(16) std::uint8_t s_px[kWarps][kTilePx * 4];
  __shared__ float s_coef[kWarps][8];
  __shared__ int s_map[kWarps][4];
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const int C = p.c, OC = p.oc, OCT = p.oct;
  const std::int64_t tiles_per_sample = p.runs_per_sample * p.tiles_per_run;
  const std::int64_t total = p.count * tiles_per_sample;
  std::uint8_t* buf = s_px[warp];
  if (lane < 4) s_map[warp][lane] = p.channel_map[lane];
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp; t < total;
       t += static_cast<std::int64_t>(gridDim.x) * kWarps) {
    const std::int64_t i = t / tiles_per_sample;
    const std::int64_t rest = t - i * tiles_per_sample;
    const std::int64_t run = rest / p.tiles_per_run;
    const std::int64_t px0 = (rest - run * p.tiles_per_run) * kTilePx;
    const int npx = static_cast<int>(min(static_cast<std::int64_t>(kTilePx), p.run_len - px0));
    const SampleParams* ds = p.params ? p.params + i : nullptr;
    const std::uint8_t* sample = p.sources ? p.sources[i] : p.base + i * p.src_n;
    const int x0 = ds ? ds->x : p.crop_x, y0 = ds ? ds->y : p.crop_y;
    const std::uint8_t* src = sample + (y0 + run) * p.src_h + static_cast<std::int64_t>(x0) * C + px0 * C;
    if (lane < 4) {
      s_coef[warp][lane] = ds ? ds->alpha[lane] : p.alpha[lane];
      s_coef[warp][4 + lane] = ds ? ds->beta[lane] : p.beta[lane];
    }
    // Load the tile: C * 32 sixteen-byte pieces, one coalesced 512-byte row per warp load.
    if (npx == kTilePx && (reinterpret_cast<std::uintptr_t>(src) & 15) == 0) {
      const uint4* s4 = reinterpret_cast<const uint4*>(src);
      uint4* b4 = reinterpret_cast<uint4*>(buf);
      for (int j = lane; j < C * 32; j += 32) b4[j] = __ldg(s4 + j);
    } else {
      for (int j = lane; j < npx * C; j += 32) buf[j] = __ldg(src + j);
    }
    __syncwarp();
    std::uint8_t* out = p.out + (p.first + i) * p.out_n + run * p.out_h;
    if (!p.out_nhwc) {
      // Group q: pixels 4*(q % 128) .. +3 of channel plane q / 128.
      for (int q = lane; q < OCT * kGroups; q += 32) {
        const int k = q / kGroups, pl = (q % kGroups) * 4;
        if (pl >= npx) continue;
        const int valid = min(4, npx - pl);
        std::uint32_t v[4];
        if (k < OC) {
          const int m = s_map[warp][k];
          const float a = s_coef[warp][k], b = s_coef[warp][4 + k];
#pragma unroll
          for (int j = 0; j < 4; ++j) v[j] = convert_value<D>(j < valid ? buf[(pl + j) * C + m] : 0u, a, b);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j) v[j] = p.pad_bits;
        }
        store_four<D>(out + k * p.out_c + (px0 + pl) * E, v, valid);
      }
    } else {
      // Group q: elements 4q .. 4q+3 of the tile's interleaved output.
      const int nel = npx * OCT;
      const unsigned inv = (65536u + static_cast<unsigned>(OCT) - 1u) / static_cast<unsigned>(OCT);
      for (int q = lane; q * 4 < nel; q += 32) {
        const int e0 = q * 4;
        const int valid = min(4, nel - e0);
        std::uint32_t v[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int e = e0 + j;
          const int px = static_cast<int>((static_cast<unsigned>(e) * inv) >> 16);  // e / OCT, exact for e < 2^14
          const int k = e - px * OCT;
          if (j >= valid || k >= OC) {
            v[j] = p.pad_bits;
          } else {
            v[j] = convert_value<D>(buf[px * C + s_map[warp][k]], s_coef[warp][k], s_coef[warp][4 + k]);
          }
        }
        store_four<D>(out + (px0 * OCT + e0) * E, v, valid);
      }
    }
    __syncwarp();  // the tile's buffer and coefficients are reused by the next tile
  }
}

template <DType D>
__global__ void __launch_bounds__(kThreads) convert_generic_kernel(const KernelParams p) {
  const std::int64_t rows = p.count * p.oh;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const std::int64_t i = r / p.oh;
    const int y = static_cast<int>(r - i * p.oh);
    const SampleParams* ds = p.params ? p.params + i : nullptr;
    const std::uint8_t* sample = p.sources ? p.sources[i] : p.base + i * p.src_n;
    const int x0 = ds ? ds->x : p.crop_x, y0 = ds ? ds->y : p.crop_y;
    const int mirror = ds ? ds->mirror : p.mirror;
    float a[4], b[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      a[k] = ds ? ds->alpha[k] : p.alpha[k];
      b[k] = ds ? ds->beta[k] : p.beta[k];
    }
    const int sy = y0 + ((mirror & kMirrorY) ? p.oh - 1 - y : y);
    const bool row_inside = sy >= 0 && sy < p.h;
    const std::uint8_t* src_row = sample + static_cast<std::int64_t>(sy) * p.src_h;
    std::uint8_t* out_row = p.out + (p.first + i) * p.out_n + static_cast<std::int64_t>(y) * p.out_h;
    for (int x = static_cast<int>(threadIdx.x); x < p.ow; x += blockDim.x) {
      const int sx = x0 + ((mirror & kMirrorX) ? p.ow - 1 - x : x);
      const bool inside = row_inside && sx >= 0 && sx < p.w;
      const std::uint8_t* src_px = src_row + static_cast<std::int64_t>(sx) * p.src_w;
      std::uint8_t* out_px = out_row + static_cast<std::int64_t>(x) * p.out_w;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (k >= p.oct) break;
        std::uint32_t v = p.pad_bits;
        if (k < p.oc)
          v = inside          ? convert_value<D>(__ldg(src_px + p.channel_map[k] * p.src_c), a[k], b[k])
              : p.zero_outside ? convert_value<D>(0, a[k], b[k])  // augmentation's zero padding
                               : p.fill_bits;
        store_one<D>(out_px + k * p.out_c, v);
      }
    }
  }
}

template <DType D>
const void* kernel_for(bool runs) {
  return runs ? reinterpret_cast<const void*>(&convert_runs_kernel<D>)
              : reinterpret_cast<const void*>(&convert_generic_kernel<D>);
}

const void* pick_kernel(DType dtype, bool runs) {
  switch (dtype) {
    case DType::UInt8: return kernel_for<DType::UInt8>(runs);
    case DType::Float32: return kernel_for<DType::Float32>(runs);
    case DType::Float16: return kernel_for<DType::Float16>(runs);
    case DType::BFloat16: return kernel_for<DType::BFloat16>(runs);
  }
  fail(Status::Internal, "conversion kernel for dtype ", static_cast<int>(dtype), " does not exist");
}

}  // namespace

int convert_blocks_per_sm(DType dtype, bool runs) {
  int blocks = 0;
  FERRY_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pick_kernel(dtype, runs), kThreads, 0));
  return blocks > 0 ? blocks : 1;
}

void launch_convert(const KernelParams& params, DType dtype, bool runs, int max_blocks, void* stream) {
  const std::int64_t work = runs ? (params.count * params.runs_per_sample * params.tiles_per_run + kWarps - 1) / kWarps
                                 : params.count * params.oh;
  const int blocks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(work, max_blocks)));
  void* args[] = {const_cast<KernelParams*>(&params)};
  FERRY_CUDA_TRY(cudaLaunchKernel(pick_kernel(dtype, runs), dim3(static_cast<unsigned>(blocks)), dim3(kThreads),
                                  args, 0, static_cast<cudaStream_t>(stream)));
}

}  // namespace ferry::core::cuda_convert
