// The resample kernel: converts samples that are resized or of different
// sizes. A block covers a 32-column x 32-row tile of one sample's output; a
// thread one column of it (all its channels), every 8th row. Each pixel's
// value comes from the arithmetic of resize::resample
// (core/convert/resize_taps.h) with the same roundings as the CPU backend,
// so both backends give bit-identical output: uint8 from the resampled value
// rounded half to even, floats from __fadd_rn(__fmul_rn(v, alpha), beta) and
// the dtype's round to nearest even.
//
// Why a thread per column: the column's x taps (pointers and weights) are
// worked out once per sample and serve every row; the taps of neighbouring
// output pixels overlap and come from L1, so the source is read from memory
// about once; the lanes of a warp write 32 consecutive pixels of a row, so
// its stores are contiguous in either layout. What a pixel costs is the
// byte loads and the tap arithmetic: bench/resize_bench.cpp measures it
// against a device-to-device copy.
//
// Instantiated per sampler (Copy and the five interpolations), mapped
// channels (1..4) and output dtype.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "core/convert/cuda/resample_params.h"
#include "core/convert/half_bits.h"
#include "core/convert/resize_taps.h"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kTileW = 32, kTileH = 8, kRowsPerThread = 4;
constexpr int kMaxGridY = 65535, kMaxGridZ = 65535;

template <DType D>
using Element = std::conditional_t<D == DType::Float32, std::uint32_t,
                                   std::conditional_t<D == DType::UInt8, std::uint8_t, std::uint16_t>>;

// The output element of resampled value v, with channel coefficients a, b.
template <DType D>
__device__ __forceinline__ Element<D> output_element(float v, float a, float b) {
  if constexpr (D == DType::UInt8) {
    return resize::to_uint8(v);
  } else {
    const float scaled = resize::add(resize::mul(v, a), b);
    if constexpr (D == DType::Float32) return __float_as_uint(scaled);
    if constexpr (D == DType::Float16) return float_to_half_bits(scaled);
    if constexpr (D == DType::BFloat16) return float_to_bf16_bits(scaled);
  }
}

// The exact float of byte b: (0x4B000000 | b) - 2^23, without the slow I2F.
__device__ __forceinline__ float byte_value(std::uint8_t b) {
  return __fsub_rn(__uint_as_float(0x4B000000u | b), 8388608.0f);
}

// The interpolations with a fixed number of taps per axis (no normalization).
template <Sampler S>
inline constexpr int kFixedTaps = S == Sampler::Nearest ? 1 : S == Sampler::Linear ? 2 : S == Sampler::Cubic ? 4 : 0;

// One thread's output column x of sample s: what every row of that column
// shares, worked out once per sample. Then value() gives row y's N mapped
// channels (false where the pixel is fill or letterbox).
//  - Copy: the source column's pixel pointers (mirror and window applied).
//  - Nearest, Linear, Cubic: the column's x taps, as a pointer per tap and
//    channel (row 0) and a weight per tap, so a row costs its y taps, one
//    row offset per y tap and the loads; the sums are resize::resample's, in
//    its order.
//  - Area, LinearAntialias (a tap count that depends on the scale):
//    resize::resample itself.
template <Sampler S, int N>
struct Column {
  static constexpr int T = kFixedTaps<S> > 0 ? kFixedTaps<S> : 1;
  const std::uint8_t* tap[T][N];  // Copy: [0][k], the column's channel k in row 0
  float weight[T];
  std::int64_t channel[N];
  int rx = 0;           // the resized column (interpolations)
  bool inside = false;  // whether the column shows the image at all

  __device__ __forceinline__ Column(const ResampleParams& p, const ResampleSample& s, int x) {
#pragma unroll
    for (int k = 0; k < N; ++k) channel[k] = p.channel_map[k] * s.stride_c;
    const int mx = (s.mirror & kMirrorX) ? p.ow - 1 - x : x;
    if constexpr (S == Sampler::Copy) {
      const int sx = s.x + mx;
      inside = sx >= 0 && sx < s.w;
#pragma unroll
      for (int k = 0; k < N; ++k) tap[0][k] = s.data + static_cast<std::int64_t>(sx) * s.stride_w + channel[k];
    } else {
      rx = mx + s.axes.x.offset;
      inside = rx >= 0 && rx < s.axes.x.length;
      if constexpr (kFixedTaps<S> > 0) {
        int t = 0;
        constexpr auto M = static_cast<Interpolation>(static_cast<int>(S));
        resize::for_each_tap<M>(s.axes.x, inside ? rx : 0, [&](int j, float w) {
#pragma unroll
          for (int k = 0; k < N; ++k) tap[t][k] = s.data + static_cast<std::int64_t>(j) * s.stride_w + channel[k];
          weight[t] = w;
          ++t;
        });
      }
    }
  }

  __device__ __forceinline__ bool value(const ResampleParams& p, const ResampleSample& s, int y, float (&v)[N]) const {
    if (!inside) return false;
    const int my = (s.mirror & kMirrorY) ? p.oh - 1 - y : y;
    if constexpr (S == Sampler::Copy) {
      const int sy = s.y + my;
      if (sy < 0 || sy >= s.h) return false;
      const std::int64_t row = static_cast<std::int64_t>(sy) * s.stride_h;
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] = byte_value(__ldg(tap[0][k] + row));
      return true;
    } else {
      const int ry = my + s.axes.y.offset;
      if (ry < 0 || ry >= s.axes.y.length) return false;
      constexpr auto M = static_cast<Interpolation>(static_cast<int>(S));
      if constexpr (kFixedTaps<S> > 0) {
#pragma unroll
        for (int k = 0; k < N; ++k) v[k] = 0.0f;
        resize::for_each_tap<M>(s.axes.y, ry, [&](int i, float wy) {
          const std::int64_t row = static_cast<std::int64_t>(i) * s.stride_h;
          float h[N];
#pragma unroll
          for (int k = 0; k < N; ++k) h[k] = 0.0f;
#pragma unroll
          for (int t = 0; t < T; ++t)
#pragma unroll
            for (int k = 0; k < N; ++k) h[k] = resize::add(h[k], resize::mul(weight[t], byte_value(__ldg(tap[t][k] + row))));
#pragma unroll
          for (int k = 0; k < N; ++k) v[k] = resize::add(v[k], resize::mul(wy, h[k]));
        });
      } else {
        resize::resample<M, N>(s.axes, ry, rx, [&](int i, int j, float (&px)[N]) {
          const std::uint8_t* at = s.data + static_cast<std::int64_t>(i) * s.stride_h + static_cast<std::int64_t>(j) * s.stride_w;
#pragma unroll
          for (int k = 0; k < N; ++k) px[k] = byte_value(__ldg(at + channel[k]));
        }, v);
      }
      return true;
    }
  }
};

// A block covers kTileW columns and kTileH * kRowsPerThread rows of one
// sample's output; each thread one column, every kTileH-th row of the tile
// (the warps of a block on neighbouring rows: their taps share source rows in L1).
template <Sampler S, int N, DType D>
__global__ void __launch_bounds__(kTileW * kTileH) resample_kernel(const __grid_constant__ ResampleParams p) {
  using E = Element<D>;
  const int x = static_cast<int>(blockIdx.x) * kTileW + static_cast<int>(threadIdx.x);
  if (x >= p.ow) return;
  constexpr int kTileRows = kTileH * kRowsPerThread;
  E outside[N], pad = static_cast<E>(p.pad_bits);
#pragma unroll
  for (int k = 0; k < N; ++k) outside[k] = static_cast<E>(S == Sampler::Copy ? p.fill_bits : p.letterbox_bits[k]);
  for (std::int64_t i = blockIdx.z; i < p.count; i += gridDim.z) {
    // A copy in registers: read once, not again after every store (the
    // compiler cannot tell that the output does not alias the table).
    const ResampleSample s = p.table != nullptr ? p.table[i] : p.inline_samples[i];
    const Column<S, N> column(p, s, x);
    std::uint8_t* column_out = p.out + (p.first + i) * p.out_n + static_cast<std::int64_t>(x) * p.out_w;
    for (int tile = static_cast<int>(blockIdx.y) * kTileRows; tile < p.oh;
         tile += static_cast<int>(gridDim.y) * kTileRows) {
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        const int y = tile + r * kTileH + static_cast<int>(threadIdx.y);
        if (y >= p.oh) break;
        float v[N];
        const bool inside = column.value(p, s, y, v);
        std::uint8_t* out = column_out + static_cast<std::int64_t>(y) * p.out_h;
#pragma unroll
        for (int k = 0; k < N; ++k)
          *reinterpret_cast<E*>(out + k * p.out_c) = inside ? output_element<D>(v[k], s.alpha[k], s.beta[k]) : outside[k];
        for (int k = N; k < p.oct; ++k) *reinterpret_cast<E*>(out + k * p.out_c) = pad;
      }
    }
  }
}

template <Sampler S, int N>
const void* kernel_for_dtype(DType dtype) {
  switch (dtype) {
    case DType::UInt8: return reinterpret_cast<const void*>(resample_kernel<S, N, DType::UInt8>);
    case DType::Float32: return reinterpret_cast<const void*>(resample_kernel<S, N, DType::Float32>);
    case DType::Float16: return reinterpret_cast<const void*>(resample_kernel<S, N, DType::Float16>);
    case DType::BFloat16: return reinterpret_cast<const void*>(resample_kernel<S, N, DType::BFloat16>);
  }
  return nullptr;
}

template <Sampler S>
const void* kernel_for_channels(int n, DType dtype) {
  switch (n) {
    case 1: return kernel_for_dtype<S, 1>(dtype);
    case 2: return kernel_for_dtype<S, 2>(dtype);
    case 3: return kernel_for_dtype<S, 3>(dtype);
    case 4: return kernel_for_dtype<S, 4>(dtype);
    default: return nullptr;
  }
}

const void* kernel_for(Sampler sampler, int n, DType dtype) {
  switch (sampler) {
    case Sampler::Copy: return kernel_for_channels<Sampler::Copy>(n, dtype);
    case Sampler::Nearest: return kernel_for_channels<Sampler::Nearest>(n, dtype);
    case Sampler::Linear: return kernel_for_channels<Sampler::Linear>(n, dtype);
    case Sampler::Cubic: return kernel_for_channels<Sampler::Cubic>(n, dtype);
    case Sampler::Area: return kernel_for_channels<Sampler::Area>(n, dtype);
    case Sampler::LinearAntialias: return kernel_for_channels<Sampler::LinearAntialias>(n, dtype);
  }
  return nullptr;
}

}  // namespace

void launch_resample(const ResampleParams& params, Sampler sampler, void* stream) {
  const void* kernel = kernel_for(sampler, params.oc, params.dtype);
  if (kernel == nullptr)
    fail(Status::Internal, "resample kernel for sampler ", static_cast<int>(sampler), ", ", params.oc,
         " channels and dtype ", static_cast<int>(params.dtype), " does not exist");
  if (params.count <= 0 || params.oh <= 0 || params.ow <= 0) return;
  const dim3 block(kTileW, kTileH);
  const dim3 grid(static_cast<unsigned>((params.ow + kTileW - 1) / kTileW),
                  static_cast<unsigned>(std::min<std::int64_t>(
                      (params.oh + kTileH * kRowsPerThread - 1) / (kTileH * kRowsPerThread), kMaxGridY)),
                  static_cast<unsigned>(std::min<std::int64_t>(params.count, kMaxGridZ)));
  void* args[] = {const_cast<ResampleParams*>(&params)};
  FERRY_CUDA_TRY(cudaLaunchKernel(kernel, grid, block, args, 0, static_cast<cudaStream_t>(stream)));
}

}  // namespace ferry::core::cuda_convert
