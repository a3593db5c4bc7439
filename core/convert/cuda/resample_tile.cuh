// The source tile of the resample kernel (convert_resample_kernel.cu): the
// rows and columns of a sample that one block's output tile reads through
// its taps, copied once into shared memory with aligned 16-byte loads, so
// that the taps' byte loads come from shared memory (short latency, 32-bit
// addresses) instead of each waiting on global memory. Measured on an H200
// before it: the bilinear kernel's warps stalled on those loads (long
// scoreboard) more than half of their cycles.
//
// Interleaved sources only (stride_c == 1, a pixel's channels adjacent): a
// footprint row is one span of bytes. A footprint larger than kTileBytes (a
// large downscale) or a planar source is read from global memory as before.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "core/convert/cuda/resample_params.h"

namespace ferry::core::cuda_convert {

constexpr int kTileBytes = 32 * 1024;
constexpr int kMaxFootprintRows = 512;

// Where a block's footprint lies in the source and in shared memory.
struct SourceTile {
  int row0 = 0, col0 = 0;  // the footprint's first source row and column
  int pitch = 0;           // bytes per footprint row in shared memory (a multiple of 16)
  bool staged = false;     // false: read from global memory
};

// The smallest and largest source row and column a tile's taps read,
// gathered with shared-memory atomics: [0] rows min, [1] rows max, [2]
// columns min, [3] columns max.
struct TileBounds {
  int v[4];
  __device__ __forceinline__ void reset() { v[0] = INT_MAX, v[1] = INT_MIN, v[2] = INT_MAX, v[3] = INT_MIN; }
  __device__ __forceinline__ void add_rows(int lo, int hi) {
    atomicMin(&v[0], lo);
    atomicMax(&v[1], hi);
  }
  __device__ __forceinline__ void add_columns(int lo, int hi) {
    atomicMin(&v[2], lo);
    atomicMax(&v[3], hi);
  }
};

// Decides whether the footprint fits (block-uniform: every thread reads the
// same bounds) and, if so, copies it: footprint row r's span starts at
// tile + r * pitch + shift[r] (shift: the span's offset in its first aligned
// 16-byte chunk). Bytes outside [s.data, s.data + s.extent) are never read;
// their places hold 0 and no tap reads them. Ends with a barrier when staged.
__device__ __forceinline__ SourceTile stage_tile(const ResampleParams& p, const ResampleSample& s,
                                                 const TileBounds& bounds, int max_channel, std::uint8_t* tile,
                                                 std::uint8_t* shift, int thread, int threads) {
  SourceTile t;
  const int r0 = bounds.v[0], r1 = bounds.v[1], c0 = bounds.v[2], c1 = bounds.v[3];
  if (s.stride_c != 1 || r0 > r1 || c0 > c1) return t;
  const std::int64_t span = static_cast<std::int64_t>(c1 - c0) * s.stride_w + max_channel + 1;
  const std::int64_t pitch = (span + 15 + 15) / 16 * 16;
  const int rows = r1 - r0 + 1;
  if (rows > kMaxFootprintRows || rows * pitch > kTileBytes) return t;
  t.row0 = r0, t.col0 = c0, t.pitch = static_cast<int>(pitch), t.staged = true;
  // Chunk (r, q): the q-th 16 bytes of footprint row r. Thread i takes chunks
  // i, i + threads, ...: its (r, q) steps by (threads / cpr, threads % cpr), no division a chunk.
  const int cpr = t.pitch / 16;
  const int step_rows = threads / cpr, step_chunks = threads % cpr;
  const auto begin = reinterpret_cast<std::uintptr_t>(s.data), end = begin + static_cast<std::uintptr_t>(s.extent);
  const std::uint8_t* origin = s.data + static_cast<std::int64_t>(r0) * s.stride_h + static_cast<std::int64_t>(c0) * s.stride_w;
  for (int r = thread / cpr, q = thread % cpr; r < rows;) {
    const auto first = reinterpret_cast<std::uintptr_t>(origin + static_cast<std::int64_t>(r) * s.stride_h);
    const std::uintptr_t at = (first & ~std::uintptr_t{15}) + static_cast<std::uintptr_t>(q) * 16;
    uint4 v;
    if (at >= begin && at + 16 <= end) {
      v = __ldg(reinterpret_cast<const uint4*>(at));
    } else {  // the sample's first or last chunk: only its own bytes
      std::uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
      for (int b = 0; b < 16; ++b)
        if (at + b >= begin && at + b < end)
          w[b / 4] |= static_cast<std::uint32_t>(__ldg(reinterpret_cast<const std::uint8_t*>(at + b))) << (8 * (b % 4));
      v = make_uint4(w[0], w[1], w[2], w[3]);
    }
    *reinterpret_cast<uint4*>(tile + r * t.pitch + q * 16) = v;
    if (q == 0) shift[r] = static_cast<std::uint8_t>(first & 15);
    r += step_rows, q += step_chunks;
    if (q >= cpr) q -= cpr, ++r;
  }
  __syncthreads();
  return t;
}

}  // namespace ferry::core::cuda_convert
