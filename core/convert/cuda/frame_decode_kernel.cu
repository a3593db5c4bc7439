// Decodes camera and video frames to packed R, G, B on the GPU, each pixel's
// bytes those of frame_color.h. 4:2:0 with nearest chroma (decoders' NV12,
// I420) has a kernel of its own (decode_420_nearest); the rest a thread per
// 2 x 2 block of pixels (a Bayer tile, two 4:2:2 macropixels), a block per
// tile of two rows. Tiles along x and y, frames along z, grid-stride in each
// (any count and size fits the grid's limits). The format and chroma filter
// are template parameters: frame_color.h's switches fold away.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/convert/cuda/frame_decode_kernel.h"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kThreads = 128;
constexpr int kTileWidth = 2 * kThreads;  // pixels a block decodes of each of its two rows

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

using frame::chroma_terms;
using frame::ChromaTerms;
using frame::luma_to_rgb;

// The 2 x 2 block at (x, y) of a packed 4:2:2 frame with nearest chroma into
// tile rows 0 and 1 at byte `at`: a macropixel (Y0 U Y1 V) a row, one load.
template <PixelFormat F>
__device__ __forceinline__ void decode_macropixels(const frame::FrameRef& f, const ColorCoefficients& c, int x, int y,
                                                   bool right, int rows, std::uint8_t (*tile)[kTileWidth * 3], int at) {
  for (int r = 0; r < rows; ++r) {
    const std::uint8_t* m = f.row(0, y + r) + 2 * x;  // the macropixel of x and x + 1
    int y0, y1, u, v;
    if constexpr (F == PixelFormat::YUYV) y0 = m[0], u = m[1], y1 = m[2], v = m[3];
    else u = m[0], y0 = m[1], v = m[2], y1 = m[3];
    const ChromaTerms t = chroma_terms(c, u, v);
    luma_to_rgb(c, t, y0, &tile[r][at]);
    if (right) luma_to_rgb(c, t, y1, &tile[r][at + 3]);
  }
}

// Each block decodes tiles of 2 rows x kTileWidth pixels, a thread per 2 x 2
// block, into shared memory, then stores the tile's rows whole.
template <PixelFormat F, ChromaFilter C>
__global__ void __launch_bounds__(kThreads) decode_frames(const __grid_constant__ DecodeFrames frames,
                                                          const ColorCoefficients color) {
  __shared__ __align__(16) std::uint8_t tile[2][kTileWidth * 3];
  FrameDecode decode;
  decode.format = F;
  decode.chroma = C;
  decode.color = color;
  for (std::int64_t i = blockIdx.z; i < frames.count; i += gridDim.z) {
    const DecodeFrameRow& row = frames.table != nullptr ? frames.table[i] : frames.inline_rows[i];
    const frame::FrameRef f = row.frame;
    std::uint8_t* const rgb = row.rgb;
    for (int y = 2 * static_cast<int>(blockIdx.y); y < f.h; y += 2 * static_cast<int>(gridDim.y)) {
      const int rows = y + 1 < f.h ? 2 : 1;
      for (int x0 = static_cast<int>(blockIdx.x) * kTileWidth; x0 < f.w; x0 += static_cast<int>(gridDim.x) * kTileWidth) {
        const int x = x0 + 2 * static_cast<int>(threadIdx.x), lx = 2 * static_cast<int>(threadIdx.x);
        if constexpr (C == ChromaFilter::Nearest && (F == PixelFormat::YUYV || F == PixelFormat::UYVY)) {
          if (x < f.w) decode_macropixels<F>(f, color, x, y, x + 1 < f.w, rows, tile, 3 * lx);
        } else if (x < f.w) {
          const bool right = x + 1 < f.w;
          frame::decode_pixel(decode, f, x, y, &tile[0][3 * lx]);
          if (right) frame::decode_pixel(decode, f, x + 1, y, &tile[0][3 * lx + 3]);
          if (rows == 2) {
            frame::decode_pixel(decode, f, x, y + 1, &tile[1][3 * lx]);
            if (right) frame::decode_pixel(decode, f, x + 1, y + 1, &tile[1][3 * lx + 3]);
          }
        }
        __syncthreads();
        const int bytes = 3 * min(kTileWidth, f.w - x0);
        for (int r = 0; r < rows; ++r) store_row(rgb + (static_cast<std::int64_t>(y + r) * f.w + x0) * 3, tile[r], bytes);
        __syncthreads();
      }
    }
  }
}

// 4:2:0 frames with nearest chroma, the video decoders' and cameras' common
// case: a thread per 8 x 2 pixels (four chroma samples), its luma and chroma
// read 8 bytes at a time where aligned, a block per tile of 2 rows x
// kWideTile pixels, stored 16 bytes at a time. H200, 64 1080p frames: 0.57
// of a D2D copy of the bytes read and written (a thread per 8 x 4 pixels:
// 0.50; per 4 x 2: 0.43; the pixels stored to shared memory byte by byte: 0.52).
constexpr int kWidePixels = 8;
constexpr int kWideTile = kThreads * kWidePixels;

// n (<= 8) bytes from src into v: one 8-byte load where src is aligned and n is 8.
__device__ __forceinline__ void load8(const std::uint8_t* src, int n, std::uint8_t (&v)[8]) {
  if (n == 8 && (reinterpret_cast<std::uintptr_t>(src) & 7) == 0) {
    const uint2 w = *reinterpret_cast<const uint2*>(src);
    for (int k = 0; k < 4; ++k) v[k] = static_cast<std::uint8_t>(w.x >> (8 * k)), v[4 + k] = static_cast<std::uint8_t>(w.y >> (8 * k));
  } else {
    for (int k = 0; k < 8; ++k) v[k] = k < n ? src[k] : 0;
  }
}

template <PixelFormat F>
__global__ void __launch_bounds__(kThreads) decode_420_nearest(const __grid_constant__ DecodeFrames frames,
                                                               const ColorCoefficients color) {
  __shared__ __align__(16) std::uint8_t tile[2][kWideTile * 3];
  for (std::int64_t i = blockIdx.z; i < frames.count; i += gridDim.z) {
    const DecodeFrameRow& row = frames.table != nullptr ? frames.table[i] : frames.inline_rows[i];
    const frame::FrameRef f = row.frame;
    std::uint8_t* const rgb = row.rgb;
    const int cw = (f.w + 1) >> 1;
    for (int y = 2 * static_cast<int>(blockIdx.y); y < f.h; y += 2 * static_cast<int>(gridDim.y)) {
      const int rows = y + 1 < f.h ? 2 : 1;
      for (int x0 = static_cast<int>(blockIdx.x) * kWideTile; x0 < f.w; x0 += static_cast<int>(gridDim.x) * kWideTile) {
        const int lx = kWidePixels * static_cast<int>(threadIdx.x), x = x0 + lx;
        if (x < f.w) {
          const int n = min(kWidePixels, f.w - x), samples = min(4, cw - (x >> 1));
          std::uint8_t luma[2][8], u[4], v[4];
          load8(f.row(0, y) + x, n, luma[0]);
          load8(f.row(0, y + rows - 1) + x, n, luma[1]);  // a last single row decodes its row twice
          if constexpr (F == PixelFormat::NV12 || F == PixelFormat::NV21) {
            std::uint8_t uv[8];
            load8(f.row(1, y >> 1) + x, 2 * samples, uv);
            for (int k = 0; k < 4; ++k) {
              u[k] = F == PixelFormat::NV12 ? uv[2 * k] : uv[2 * k + 1];
              v[k] = F == PixelFormat::NV12 ? uv[2 * k + 1] : uv[2 * k];
            }
          } else {
            const int pu = F == PixelFormat::I420 ? 1 : 2, pv = 3 - pu;
            const std::uint8_t* cu = f.row(pu, y >> 1) + (x >> 1);
            const std::uint8_t* cv = f.row(pv, y >> 1) + (x >> 1);
            for (int k = 0; k < 4; ++k) u[k] = k < samples ? cu[k] : 0, v[k] = k < samples ? cv[k] : 0;
          }
          // All 8 pixels of each row (those past the frame's edge read 0 and are never stored), packed
          // into words in registers: three 8-byte shared stores a row instead of 24 byte stores.
          std::uint8_t px[2][24];
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            const ChromaTerms t = chroma_terms(color, u[k], v[k]);
#pragma unroll
            for (int r = 0; r < 2; ++r) {
              luma_to_rgb(color, t, luma[r][2 * k], &px[r][6 * k]);
              luma_to_rgb(color, t, luma[r][2 * k + 1], &px[r][6 * k + 3]);
            }
          }
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            auto* to = reinterpret_cast<uint2*>(&tile[r][3 * lx]);  // 24 * threadIdx.x: 8-byte aligned
#pragma unroll
            for (int q = 0; q < 3; ++q) {
              const std::uint8_t* b = &px[r][8 * q];
              to[q] = make_uint2(b[0] | b[1] << 8 | b[2] << 16 | static_cast<std::uint32_t>(b[3]) << 24,
                                 b[4] | b[5] << 8 | b[6] << 16 | static_cast<std::uint32_t>(b[7]) << 24);
            }
          }
        }
        __syncthreads();
        const int bytes = 3 * min(kWideTile, f.w - x0);
        for (int r = 0; r < rows; ++r) store_row(rgb + (static_cast<std::int64_t>(y + r) * f.w + x0) * 3, tile[r], bytes);
        __syncthreads();
      }
    }
  }
}

using Kernel = void (*)(const DecodeFrames, ColorCoefficients);

// 4:2:0 with nearest chroma: the wide kernel.
bool is_wide(const FrameDecode& d) {
  return d.chroma == ChromaFilter::Nearest && (d.format == PixelFormat::NV12 || d.format == PixelFormat::NV21 ||
                                               d.format == PixelFormat::I420 || d.format == PixelFormat::YV12);
}

template <PixelFormat F>
Kernel yuv_kernel(ChromaFilter c) {
  if constexpr (F == PixelFormat::YUYV || F == PixelFormat::UYVY)
    return c == ChromaFilter::Linear ? decode_frames<F, ChromaFilter::Linear> : decode_frames<F, ChromaFilter::Nearest>;
  else
    return c == ChromaFilter::Linear ? decode_frames<F, ChromaFilter::Linear> : decode_420_nearest<F>;
}

Kernel kernel_for(const FrameDecode& d) {
  switch (d.format) {
    case PixelFormat::NV12: return yuv_kernel<PixelFormat::NV12>(d.chroma);
    case PixelFormat::NV21: return yuv_kernel<PixelFormat::NV21>(d.chroma);
    case PixelFormat::I420: return yuv_kernel<PixelFormat::I420>(d.chroma);
    case PixelFormat::YV12: return yuv_kernel<PixelFormat::YV12>(d.chroma);
    case PixelFormat::YUYV: return yuv_kernel<PixelFormat::YUYV>(d.chroma);
    case PixelFormat::UYVY: return yuv_kernel<PixelFormat::UYVY>(d.chroma);
    case PixelFormat::BayerRGGB: return decode_frames<PixelFormat::BayerRGGB, ChromaFilter::Nearest>;
    case PixelFormat::BayerBGGR: return decode_frames<PixelFormat::BayerBGGR, ChromaFilter::Nearest>;
    case PixelFormat::BayerGRBG: return decode_frames<PixelFormat::BayerGRBG, ChromaFilter::Nearest>;
    case PixelFormat::BayerGBRG: return decode_frames<PixelFormat::BayerGBRG, ChromaFilter::Nearest>;
    case PixelFormat::Channels: break;
  }
  fail(Status::Internal, "the frame decoder was called for a source of channels");
}

}  // namespace

void launch_decode_frames(const DecodeFrames& frames, const FrameDecode& decode, std::int64_t max_h, std::int64_t max_w,
                          void* stream) {
  const std::int64_t bh = (max_h + 1) / 2;
  const std::int64_t tile = is_wide(decode) ? kWideTile : kTileWidth;
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>((max_w + tile - 1) / tile, 64)),
                  static_cast<unsigned>(std::min<std::int64_t>(bh, 65535)),
                  static_cast<unsigned>(std::min<std::int64_t>(frames.count, 65535)));
  kernel_for(decode)<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(frames, decode.color);
  FERRY_CUDA_TRY(cudaGetLastError());
}

}  // namespace ferry::core::cuda_convert
