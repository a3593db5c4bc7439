// Decodes camera and video frames to packed R, G, B on the GPU, each pixel's
// bytes those of frame_color.h: one kernel for every format and chroma
// filter, a thread per 8 x 2 pixels (frame_decode_groups.cuh). Tiles along x
// and y, frames along z, grid-stride in each (any count and size fits the
// grid's limits). The format and chroma filter are template parameters:
// frame_color.h's switches fold away.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/convert/cuda/frame_decode_groups.cuh"
#include "core/convert/cuda/frame_decode_kernel.h"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kThreads = 128;

// Copies `bytes` bytes from shared to global memory with the block's threads,
// four at a time where both ends allow it (a warp's byte stores 3 apart would
// touch several times the sectors they fill).
__device__ __forceinline__ void store_row(std::uint8_t* dst, const std::uint8_t* src, int bytes) {
  if ((reinterpret_cast<std::uintptr_t>(dst) & 15) == 0 && (bytes & 15) == 0) {
    auto* d = reinterpret_cast<uint4*>(dst);
    const auto* s = reinterpret_cast<const uint4*>(src);
    for (int k = static_cast<int>(threadIdx.x); k < bytes / 16; k += kThreads) d[k] = s[k];
  } else if ((reinterpret_cast<std::uintptr_t>(dst) & 3) == 0 && (bytes & 3) == 0) {
    auto* d = reinterpret_cast<std::uint32_t*>(dst);
    const auto* s = reinterpret_cast<const std::uint32_t*>(src);
    for (int k = static_cast<int>(threadIdx.x); k < bytes / 4; k += kThreads) d[k] = s[k];
  } else {
    for (int k = static_cast<int>(threadIdx.x); k < bytes; k += kThreads) dst[k] = src[k];
  }
}

// store_row where dst is 16-byte aligned and bytes a multiple of 16 (DecodeFrames::aligned).
__device__ __forceinline__ void store_words(std::uint8_t* dst, const std::uint8_t* src, int bytes) {
  __builtin_assume(__isGlobal(dst));  // global stores, not generic ones (the RGB images are device memory)
  auto* d = reinterpret_cast<uint4*>(dst);
  const auto* s = reinterpret_cast<const uint4*>(src);
  for (int k = static_cast<int>(threadIdx.x); k < bytes / 16; k += kThreads) d[k] = s[k];
}

// A thread per 8 x 2 pixels (frame_decode_groups.cuh), a block per tile of
// 2 rows x kTile pixels, the tile's rows stored 16 bytes at a time.
// Aligned (DecodeFrames::aligned): every frame's rows allow whole-word loads
// and 16-byte stores, so the kernel checks nothing per thread. H200, 64 1080p
// NV12 frames, x a D2D copy of the bytes read and written: 0.60 with the
// per-thread checks and byte-wise arithmetic of before, 0.77 without the
// checks, 0.83 with the words as well (an experiment's harness, the same
// kernels side by side). A thread per 8 x 4 pixels, per 4 x 2, and each
// thread storing its own 24 bytes a row to global memory (no shared tile:
// 0.52) were slower. Before this kernel took every format, a thread per 2 x 2
// pixels with byte loads decoded the rest; the same harness, that kernel ->
// this one: YUYV 0.34 -> 0.83, with linear chroma NV12 0.22 -> 0.71, I420
// 0.16 -> 0.64, YUYV 0.28 -> 0.83; Bayer 0.18 -> 0.76.
constexpr int kTile = kThreads * group::kPixels;

template <PixelFormat F, ChromaFilter C, bool Aligned>
__global__ void __launch_bounds__(kThreads) decode_frames(const __grid_constant__ DecodeFrames frames,
                                                          const ColorCoefficients color) {
  __shared__ __align__(16) std::uint8_t tile[2][kTile * 3];
  for (std::int64_t i = blockIdx.z; i < frames.count; i += gridDim.z) {
    const DecodeFrameRow& row = frames.table != nullptr ? frames.table[i] : frames.inline_rows[i];
    const frame::FrameRef f = row.frame;
    std::uint8_t* const rgb = row.rgb;
    for (int y = 2 * static_cast<int>(blockIdx.y); y < f.h; y += 2 * static_cast<int>(gridDim.y)) {
      const int rows = y + 1 < f.h ? 2 : 1;
      for (int x0 = static_cast<int>(blockIdx.x) * kTile; x0 < f.w; x0 += static_cast<int>(gridDim.x) * kTile) {
        const int lx = group::kPixels * static_cast<int>(threadIdx.x), x = x0 + lx;
        if (x < f.w) {
          group::GroupValues values;
          uint2 out[2][3];
          group::decode_group<F, C, Aligned>(color, f, x, y, rows, values);  // pixels past the edge are never stored
          group::pack_rows<group::packing_of<F, C>()>(values, out);
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            auto* to = reinterpret_cast<uint2*>(&tile[r][3 * lx]);  // 24 * threadIdx.x: 8-byte aligned
#pragma unroll
            for (int q = 0; q < 3; ++q) to[q] = out[r][q];
          }
        }
        __syncthreads();
        const int bytes = 3 * min(kTile, f.w - x0);
        for (int r = 0; r < rows; ++r) {
          std::uint8_t* to = rgb + (static_cast<std::int64_t>(y + r) * f.w + x0) * 3;
          if constexpr (Aligned)
            store_words(to, tile[r], bytes);
          else
            store_row(to, tile[r], bytes);
        }
        __syncthreads();
      }
    }
  }
}

using Kernel = void (*)(const DecodeFrames, ColorCoefficients);

template <PixelFormat F, ChromaFilter C>
Kernel kernel_of(bool aligned) {
  return aligned ? decode_frames<F, C, true> : decode_frames<F, C, false>;
}

template <PixelFormat F>
Kernel yuv_kernel(ChromaFilter c, bool aligned) {
  return c == ChromaFilter::Linear ? kernel_of<F, ChromaFilter::Linear>(aligned)
                                   : kernel_of<F, ChromaFilter::Nearest>(aligned);
}

Kernel kernel_for(const FrameDecode& d, bool aligned) {
  switch (d.format) {
    case PixelFormat::NV12: return yuv_kernel<PixelFormat::NV12>(d.chroma, aligned);
    case PixelFormat::NV21: return yuv_kernel<PixelFormat::NV21>(d.chroma, aligned);
    case PixelFormat::I420: return yuv_kernel<PixelFormat::I420>(d.chroma, aligned);
    case PixelFormat::YV12: return yuv_kernel<PixelFormat::YV12>(d.chroma, aligned);
    case PixelFormat::YUYV: return yuv_kernel<PixelFormat::YUYV>(d.chroma, aligned);
    case PixelFormat::UYVY: return yuv_kernel<PixelFormat::UYVY>(d.chroma, aligned);
    // Bayer has no chroma filter (source.chroma_filter is ignored): demosaicing is bilinear.
    case PixelFormat::BayerRGGB: return kernel_of<PixelFormat::BayerRGGB, ChromaFilter::Nearest>(aligned);
    case PixelFormat::BayerBGGR: return kernel_of<PixelFormat::BayerBGGR, ChromaFilter::Nearest>(aligned);
    case PixelFormat::BayerGRBG: return kernel_of<PixelFormat::BayerGRBG, ChromaFilter::Nearest>(aligned);
    case PixelFormat::BayerGBRG: return kernel_of<PixelFormat::BayerGBRG, ChromaFilter::Nearest>(aligned);
    case PixelFormat::Channels: break;
  }
  fail(Status::Internal, "the frame decoder was called for a source of channels");
}

}  // namespace

bool decodes_in_words(const DecodeFrameRow& row, PixelFormat format) {
  const frame::FrameRef& f = row.frame;
  auto rows_on = [&](int plane, std::int64_t boundary) {
    return reinterpret_cast<std::uintptr_t>(f.base + f.offset[plane]) % boundary == 0 && f.pitch[plane] % boundary == 0;
  };
  if (f.w % 16 != 0 || reinterpret_cast<std::uintptr_t>(row.rgb) % 16 != 0) return false;
  switch (format) {
    case PixelFormat::NV12:
    case PixelFormat::NV21: return rows_on(0, 8) && rows_on(1, 8);
    case PixelFormat::I420:
    case PixelFormat::YV12: return rows_on(0, 8) && rows_on(1, 4) && rows_on(2, 4);
    case PixelFormat::YUYV:
    case PixelFormat::UYVY: return rows_on(0, 16);
    case PixelFormat::Channels: return false;
    default: return rows_on(0, 8);  // Bayer
  }
}

void launch_decode_frames(const DecodeFrames& frames, const FrameDecode& decode, std::int64_t max_h, std::int64_t max_w,
                          void* stream) {
  const std::int64_t bh = (max_h + 1) / 2;
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>((max_w + kTile - 1) / kTile, 64)),
                  static_cast<unsigned>(std::min<std::int64_t>(bh, 65535)),
                  static_cast<unsigned>(std::min<std::int64_t>(frames.count, 65535)));
  kernel_for(decode, frames.aligned)<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(frames, decode.color);
  FERRY_CUDA_TRY(cudaGetLastError());
}

}  // namespace ferry::core::cuda_convert
