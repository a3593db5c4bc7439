// Decodes camera and video frames to packed R, G, B on the GPU, each pixel's
// bytes those of frame_color.h. 4:2:0 and 4:2:2 with nearest chroma
// (decoders' NV12 and I420, cameras' YUYV) have a kernel of their own
// (decode_wide); the rest (linear chroma, Bayer) a thread per 2 x 2 block of
// pixels, a block per tile of two rows. Tiles along x and y, frames along z,
// grid-stride in each (any count and size fits the grid's limits). The format
// and chroma filter are template parameters: frame_color.h's switches fold away.
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

// store_row where dst is 16-byte aligned and bytes a multiple of 16 (DecodeFrames::aligned).
__device__ __forceinline__ void store_words(std::uint8_t* dst, const std::uint8_t* src, int bytes) {
  auto* d = reinterpret_cast<uint4*>(dst);
  const auto* s = reinterpret_cast<const uint4*>(src);
  for (int k = static_cast<int>(threadIdx.x); k < bytes / 16; k += kThreads) d[k] = s[k];
}

using frame::chroma_terms;
using frame::ChromaTerms;

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
        if (x < f.w) {
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

// 4:2:0 and 4:2:2 frames with nearest chroma, the video decoders' and
// cameras' common cases: a thread per 8 x 2 pixels (four chroma samples a
// row, shared by the two rows in 4:2:0), a block per tile of 2 rows x
// kWideTile pixels, the tile's rows stored 16 bytes at a time. The pixels
// are worked out on words: the bytes picked from the loaded words and the
// results packed with byte permutes (decode_8x2).
// Aligned (DecodeFrames::aligned): every frame's rows allow whole-word loads
// and 16-byte stores, so the kernel checks nothing per thread. H200, 64 1080p
// NV12 frames, x a D2D copy of the bytes read and written: 0.60 with the
// per-thread checks and byte-wise arithmetic of before, 0.77 without the
// checks, 0.83 with the words as well (an experiment's harness, the same
// kernels side by side). A thread per 8 x 4 pixels, per 4 x 2, and each
// thread storing its own 24 bytes a row to global memory (no shared tile:
// 0.52) were slower. YUYV, a thread per 2 x 2 pixels with byte loads before:
// 0.34 -> 0.78 here.
constexpr int kWidePixels = 8;
constexpr int kWideTile = kThreads * kWidePixels;

__device__ __forceinline__ int byte_of(std::uint32_t word, int k) {
  return static_cast<int>(__byte_perm(word, 0, 0x4440 + k));
}
// Byte 0 of a, b, c and d in one word.
__device__ __forceinline__ std::uint32_t pack4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return __byte_perm(__byte_perm(a, b, 0x0040), __byte_perm(c, d, 0x0040), 0x5410);
}

// The 8 x 2 pixels of luma words l[r] (8 pixels of row r) and chroma words
// u[r], v[r] (4 samples each; 4:2:0 passes the same words for both rows, and
// the compiler works their terms out once) as R, G, B bytes: three 8-byte
// words a row.
__device__ __forceinline__ void decode_8x2(const ColorCoefficients& c, const uint2 (&l)[2], const std::uint32_t (&u)[2],
                                           const std::uint32_t (&v)[2], uint2 (&rgb)[2][3]) {
  std::uint32_t bytes[2][24];
#pragma unroll
  for (int k = 0; k < 4; ++k)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const ChromaTerms t = chroma_terms(c, byte_of(u[r], k), byte_of(v[r], k));
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int p = 2 * k + e;
        const int luma = frame::scaled_luma(c, byte_of(p < 4 ? l[r].x : l[r].y, p & 3));
        bytes[r][3 * p] = frame::channel_of(luma, t.r);
        bytes[r][3 * p + 1] = frame::channel_of(luma, t.g);
        bytes[r][3 * p + 2] = frame::channel_of(luma, t.b);
      }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int q = 0; q < 3; ++q) {
      const std::uint32_t* b = &bytes[r][8 * q];
      rgb[r][q] = make_uint2(pack4(b[0], b[1], b[2], b[3]), pack4(b[4], b[5], b[6], b[7]));
    }
}

// n (<= 16) bytes from src as four words, the rest 0.
__device__ __forceinline__ uint4 load_bytes(const std::uint8_t* src, int n) {
  std::uint32_t w[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; ++k) w[k >> 2] |= static_cast<std::uint32_t>(src[k]) << (8 * (k & 3));
  return make_uint4(w[0], w[1], w[2], w[3]);
}
__device__ __forceinline__ uint2 low_half(uint4 w) { return make_uint2(w.x, w.y); }

__host__ __device__ constexpr bool is_422(PixelFormat f) { return f == PixelFormat::YUYV || f == PixelFormat::UYVY; }

// The luma words of rows y and y + rows - 1 at x (a last single row decodes
// its row twice) and each row's four chroma samples' U and V words.
template <PixelFormat F, bool Aligned>
__device__ __forceinline__ void load_8x2(const frame::FrameRef& f, int x, int y, int rows, uint2 (&l)[2],
                                         std::uint32_t (&u)[2], std::uint32_t (&v)[2]) {
  const int last = y + rows - 1;
  const int samples = Aligned ? 4 : min(4, ((f.w + 1) >> 1) - (x >> 1));
  if constexpr (is_422(F)) {
    // Four macropixels a row (16 bytes): Y0 U Y1 V (YUYV) or U Y0 V Y1 (UYVY).
    constexpr bool kYuyv = F == PixelFormat::YUYV;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const std::uint8_t* m = f.row(0, r == 0 ? y : last) + 2 * x;
      const uint4 w = Aligned ? *reinterpret_cast<const uint4*>(m) : load_bytes(m, 4 * samples);
      const unsigned lumas = kYuyv ? 0x6420 : 0x7531, us = kYuyv ? 0x0051 : 0x0040, vs = kYuyv ? 0x0073 : 0x0062;
      l[r] = make_uint2(__byte_perm(w.x, w.y, lumas), __byte_perm(w.z, w.w, lumas));
      u[r] = __byte_perm(__byte_perm(w.x, w.y, us), __byte_perm(w.z, w.w, us), 0x5410);
      v[r] = __byte_perm(__byte_perm(w.x, w.y, vs), __byte_perm(w.z, w.w, vs), 0x5410);
    }
    return;
  }
  const std::uint8_t* luma[2] = {f.row(0, y) + x, f.row(0, last) + x};
  const int n = Aligned ? kWidePixels : min(kWidePixels, f.w - x);
#pragma unroll
  for (int r = 0; r < 2; ++r)
    l[r] = Aligned ? *reinterpret_cast<const uint2*>(luma[r]) : low_half(load_bytes(luma[r], n));
  if constexpr (F == PixelFormat::NV12 || F == PixelFormat::NV21) {
    const std::uint8_t* pairs = f.row(1, y >> 1) + x;  // U V U V ... (NV21: V U)
    const uint2 w = Aligned ? *reinterpret_cast<const uint2*>(pairs) : low_half(load_bytes(pairs, 2 * samples));
    const std::uint32_t even = __byte_perm(w.x, w.y, 0x6420), odd = __byte_perm(w.x, w.y, 0x7531);
    u[0] = F == PixelFormat::NV12 ? even : odd;
    v[0] = F == PixelFormat::NV12 ? odd : even;
  } else {
    const int u_plane = F == PixelFormat::I420 ? 1 : 2;  // YV12: V's plane first
    const std::uint8_t* us = f.row(u_plane, y >> 1) + (x >> 1);
    const std::uint8_t* vs = f.row(3 - u_plane, y >> 1) + (x >> 1);
    u[0] = Aligned ? *reinterpret_cast<const std::uint32_t*>(us) : load_bytes(us, samples).x;
    v[0] = Aligned ? *reinterpret_cast<const std::uint32_t*>(vs) : load_bytes(vs, samples).x;
  }
  u[1] = u[0], v[1] = v[0];  // 4:2:0: both rows share the chroma row
}

template <PixelFormat F, bool Aligned>
__global__ void __launch_bounds__(kThreads) decode_wide(const __grid_constant__ DecodeFrames frames,
                                                        const ColorCoefficients color) {
  __shared__ __align__(16) std::uint8_t tile[2][kWideTile * 3];
  for (std::int64_t i = blockIdx.z; i < frames.count; i += gridDim.z) {
    const DecodeFrameRow& row = frames.table != nullptr ? frames.table[i] : frames.inline_rows[i];
    const frame::FrameRef f = row.frame;
    std::uint8_t* const rgb = row.rgb;
    for (int y = 2 * static_cast<int>(blockIdx.y); y < f.h; y += 2 * static_cast<int>(gridDim.y)) {
      const int rows = y + 1 < f.h ? 2 : 1;
      for (int x0 = static_cast<int>(blockIdx.x) * kWideTile; x0 < f.w; x0 += static_cast<int>(gridDim.x) * kWideTile) {
        const int lx = kWidePixels * static_cast<int>(threadIdx.x), x = x0 + lx;
        if (x < f.w) {
          uint2 luma[2], out[2][3];
          std::uint32_t u[2], v[2];
          load_8x2<F, Aligned>(f, x, y, rows, luma, u, v);
          decode_8x2(color, luma, u, v, out);  // pixels past the frame's edge read 0 and are never stored
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            auto* to = reinterpret_cast<uint2*>(&tile[r][3 * lx]);  // 24 * threadIdx.x: 8-byte aligned
#pragma unroll
            for (int q = 0; q < 3; ++q) to[q] = out[r][q];
          }
        }
        __syncthreads();
        const int bytes = 3 * min(kWideTile, f.w - x0);
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

// 4:2:0 and 4:2:2 with nearest chroma: the wide kernel.
bool is_wide(const FrameDecode& d) {
  return d.chroma == ChromaFilter::Nearest && d.format != PixelFormat::Channels && d.format < PixelFormat::BayerRGGB;
}

template <PixelFormat F>
Kernel yuv_kernel(ChromaFilter c, bool aligned) {
  if (c == ChromaFilter::Linear) return decode_frames<F, ChromaFilter::Linear>;
  return aligned ? decode_wide<F, true> : decode_wide<F, false>;
}

Kernel kernel_for(const FrameDecode& d, bool aligned) {
  switch (d.format) {
    case PixelFormat::NV12: return yuv_kernel<PixelFormat::NV12>(d.chroma, aligned);
    case PixelFormat::NV21: return yuv_kernel<PixelFormat::NV21>(d.chroma, aligned);
    case PixelFormat::I420: return yuv_kernel<PixelFormat::I420>(d.chroma, aligned);
    case PixelFormat::YV12: return yuv_kernel<PixelFormat::YV12>(d.chroma, aligned);
    case PixelFormat::YUYV: return yuv_kernel<PixelFormat::YUYV>(d.chroma, aligned);
    case PixelFormat::UYVY: return yuv_kernel<PixelFormat::UYVY>(d.chroma, aligned);
    case PixelFormat::BayerRGGB: return decode_frames<PixelFormat::BayerRGGB, ChromaFilter::Nearest>;
    case PixelFormat::BayerBGGR: return decode_frames<PixelFormat::BayerBGGR, ChromaFilter::Nearest>;
    case PixelFormat::BayerGRBG: return decode_frames<PixelFormat::BayerGRBG, ChromaFilter::Nearest>;
    case PixelFormat::BayerGBRG: return decode_frames<PixelFormat::BayerGBRG, ChromaFilter::Nearest>;
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
    default: return false;
  }
}

void launch_decode_frames(const DecodeFrames& frames, const FrameDecode& decode, std::int64_t max_h, std::int64_t max_w,
                          void* stream) {
  const std::int64_t bh = (max_h + 1) / 2;
  const std::int64_t tile = is_wide(decode) ? kWideTile : kTileWidth;
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>((max_w + tile - 1) / tile, 64)),
                  static_cast<unsigned>(std::min<std::int64_t>(bh, 65535)),
                  static_cast<unsigned>(std::min<std::int64_t>(frames.count, 65535)));
  kernel_for(decode, frames.aligned)<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(frames, decode.color);
  FERRY_CUDA_TRY(cudaGetLastError());
}

}  // namespace ferry::core::cuda_convert
