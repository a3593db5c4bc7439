// The source tile of the resample kernel (resample_kernel.cuh): the
// rows and columns of a sample that one block's output tile reads through
// its taps, copied once into shared memory with aligned 16-byte loads, so
// that the taps' byte loads come from shared memory (short latency, 32-bit
// addresses) instead of each waiting on global memory. Measured on an H200
// before it: the bilinear kernel's warps stalled on those loads (long
// scoreboard) more than half of their cycles.
//
// Interleaved sources only (stride_c == 1, a pixel's channels adjacent): a
// footprint row is one span of bytes. A footprint larger than the tile (a
// large downscale) or a planar source is read from global memory as before.
#pragma once

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "core/convert/cuda/resample_kernels.h"
#include "core/convert/cuda/resample_params.h"

namespace ferry::core::cuda_convert {

// Where a block's footprint lies in the source and in shared memory.
struct SourceTile {
  int row0 = 0, col0 = 0;  // the footprint's first source row and column
  int rows = 0;            // its rows
  int pitch = 0;           // bytes per footprint row in shared memory (a multiple of 16)
  bool staged = false;     // false: read from global memory
};

// The smallest and largest source row and column a tile's taps read: [0]
// rows min, [1] rows max, [2] columns min, [3] columns max; and whether some
// pixel of the tile shows fill or letterbox (partial: then every pixel is
// checked).
// Plain (no initializers): it is kept in shared memory.
struct TileBounds {
  int v[4];
  int partial;
};

// Bounds of nothing: every min above every max.
__device__ __forceinline__ TileBounds empty_bounds() { return TileBounds{{INT_MAX, INT_MIN, INT_MAX, INT_MIN}, 0}; }

// The minimum (Max: maximum) of v over a whole warp, in every lane.
template <bool Max>
__device__ __forceinline__ int warp_extreme(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return Max ? __reduce_max_sync(0xffffffffu, v) : __reduce_min_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int d = 16; d > 0; d /= 2) {
    const int o = __shfl_xor_sync(0xffffffffu, v, d);
    v = Max ? max(v, o) : min(v, o);
  }
  return v;
#endif
}

// One warp's share of a tile's bounds, reduced in the warp and stored by its
// lane 0 into its own slot: no shared-memory atomics (32 lanes on one
// address, served one after another) and no slot to clear before them.
__device__ __forceinline__ void store_warp_bounds(TileBounds& slot, TileBounds mine) {
  mine.v[0] = warp_extreme<false>(mine.v[0]), mine.v[1] = warp_extreme<true>(mine.v[1]);
  mine.v[2] = warp_extreme<false>(mine.v[2]), mine.v[3] = warp_extreme<true>(mine.v[3]);
  mine.partial = __any_sync(0xffffffffu, mine.partial);
  if ((threadIdx.x & 31) == 0) slot = mine;
}

// The tile's bounds from its warps' slots (the same in every thread).
template <int Slots>
__device__ __forceinline__ TileBounds merged_bounds(const TileBounds (&slots)[Slots]) {
  TileBounds b = slots[0];
#pragma unroll
  for (int w = 1; w < Slots; ++w) {
    b.v[0] = min(b.v[0], slots[w].v[0]), b.v[1] = max(b.v[1], slots[w].v[1]);
    b.v[2] = min(b.v[2], slots[w].v[2]), b.v[3] = max(b.v[3], slots[w].v[3]);
    b.partial |= slots[w].partial;
  }
  return b;
}

// floor(a / b) for 0 <= a <= 256 and 1 <= b <= 256 without an integer
// division (about 20 instructions): (a + 0.5) / b is at least 0.5 / b >=
// 2^-9 from an integer, far more than the approximate reciprocal's error
// (1 ulp: under 2^-14 for quotients below 512). __frcp_rn's correct
// rounding cost 8 instructions more.
__device__ __forceinline__ int small_quotient(int a, int b) {
  float reciprocal;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(reciprocal) : "f"(static_cast<float>(b)));
  return static_cast<int>(__fmul_rn(static_cast<float>(a) + 0.5f, reciprocal));
}

// Decides whether the footprint fits (block-uniform: every thread reads the
// same bounds). Footprint row r (source row row0 + r) is then staged at
// tile_line(r): bytes + r * pitch + the offset of the row's first byte in
// its aligned 16-byte chunk. Samples of 2 GiB or more are read from global
// memory: a staged tile's offsets in its sample are 32-bit. Every warp works
// out each tile's plan and copy set-up (H200, bilinear f16 NCHW: in 64-bit
// arithmetic about 200 SASS instructions a warp a tile, now about 145;
// alternated, stretch 0.740 -> 0.749 of a D2D copy, Resize(256)+CenterCrop
// 0.663 -> 0.687, RandomResizedCrop 0.593 -> 0.622, upscale 0.395 -> 0.423).
__device__ __forceinline__ SourceTile plan_tile(const ResampleSample& s, const TileBounds& bounds, int max_channel,
                                                int capacity) {
  const int r0 = bounds.v[0], r1 = bounds.v[1], c0 = bounds.v[2], c1 = bounds.v[3];
  // Worked out whatever the bounds (empty ones too: unsigned, so nothing
  // overflows), then judged at once, with no branches: in unsigned 32-bit
  // factors, their products 64-bit, as a footprint that fits has its pixel
  // stride and its rows each under `capacity`.
  using U = std::uint32_t;
  const U cap = static_cast<U>(capacity), rows = static_cast<U>(r1) - static_cast<U>(r0) + 1;
  const std::uint64_t span = std::uint64_t{static_cast<U>(c1) - static_cast<U>(c0)} * static_cast<U>(s.stride_w) +
                             static_cast<U>(max_channel + 1);
  const U pitch = staged_row_pitch(static_cast<U>(span));
  SourceTile t;
  t.row0 = r0, t.col0 = c0, t.rows = static_cast<int>(rows), t.pitch = static_cast<int>(pitch);
  t.staged = s.stride_c == 1 && r0 <= r1 && c0 <= c1 && s.extent <= INT_MAX && s.stride_w < capacity && rows <= cap &&
             span < cap && std::uint64_t{rows} * pitch <= cap;
  return t;
}

// The footprint's first byte (row row0, column col0): its offset in the
// sample (under 2^31: plan_tile).
__device__ __forceinline__ std::uint32_t tile_origin(const SourceTile& t, const ResampleSample& s) {
  using U = std::uint32_t;
  return static_cast<U>(t.row0) * static_cast<U>(s.stride_h) + static_cast<U>(t.col0) * static_cast<U>(s.stride_w);
}

// Where the sample's byte at `offset` lies in its aligned 16-byte chunk.
__device__ __forceinline__ std::uint32_t place_in_chunk(const ResampleSample& s, std::uint32_t offset) {
  return (static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(s.data)) + offset) & 15u;
}

// The shared-memory address where source row `row` starts in the staged
// tile (at `tile`).
__device__ __forceinline__ std::uint32_t tile_line(const SourceTile& t, const ResampleSample& s, const std::uint8_t* tile,
                                                   int row) {
  using U = std::uint32_t;
  const U first = tile_origin(t, s) + static_cast<U>(row - t.row0) * static_cast<U>(s.stride_h);
  return static_cast<U>(__cvta_generic_to_shared(tile)) + (row - t.row0) * t.pitch + place_in_chunk(s, first);
}

// The byte at shared-memory address a + K: the constant offset rides in the
// load instruction, not in an add before it.
template <int K>
__device__ __forceinline__ std::uint8_t shared_byte_at(std::uint32_t a) {
  unsigned short v;
  asm volatile("ld.shared.u8 %0, [%1+%2];" : "=h"(v) : "r"(a), "n"(K));
  return static_cast<std::uint8_t>(v);
}

// The byte at shared-memory address a. Loaded through its 32-bit address:
// indexing the tile's array instead made the compiler work out the array's
// shared window again at every row.
__device__ __forceinline__ std::uint8_t shared_byte(std::uint32_t a) {
  unsigned short v;
  asm volatile("ld.shared.u8 %0, [%1];" : "=h"(v) : "r"(a));
  return static_cast<std::uint8_t>(v);
}

// A chunk at the sample's first or last byte: only the sample's own bytes
// are read; the others are 0 (no tap reads them). Rare: out of line.
static __device__ __noinline__ void stage_edge_chunk(std::uintptr_t at, std::uintptr_t begin, std::uintptr_t end, std::uint8_t* to) {
  std::uint32_t w[4] = {0, 0, 0, 0};
  for (int b = 0; b < 16; ++b)
    if (at + b >= begin && at + b < end)
      w[b / 4] |= static_cast<std::uint32_t>(__ldg(reinterpret_cast<const std::uint8_t*>(at + b))) << (8 * (b % 4));
  *reinterpret_cast<uint4*>(to) = make_uint4(w[0], w[1], w[2], w[3]);
}

// Copies the 16 aligned bytes at `from` to shared-memory address `to`,
// asynchronously from sm_80 on (cp.async: committed and waited for with
// __pipeline_commit and __pipeline_wait_prior). Through a 32-bit shared
// address that a loop steps: __pipeline_memcpy_async, from a generic
// pointer, worked out its shared address again at each copy, and ptxas puts
// three no-op loads before each LDGSTS that follows a branch (the interior
// loop: 13 SASS instructions a chunk; in groups of four, 7).
__device__ __forceinline__ void copy_16_async(std::uint32_t to, std::uintptr_t from) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(from) : "memory");
#else
  *static_cast<uint4*>(__cvta_shared_to_generic(to)) = *reinterpret_cast<const uint4*>(from);
#endif
}

// Copies chunk `at` (16 aligned bytes of the source) to `to` in shared
// memory: asynchronously where the sample holds all 16 bytes.
__device__ __forceinline__ void copy_chunk(std::uintptr_t at, std::uint8_t* to, bool interior, std::uintptr_t begin,
                                           std::uintptr_t end) {
  if (interior || (at >= begin && at + 16 <= end))
    copy_16_async(static_cast<std::uint32_t>(__cvta_generic_to_shared(to)), at);
  else
    stage_edge_chunk(at, begin, end, to);
}

// Copies the footprint of a staged tile into shared memory, in aligned
// 16-byte chunks: chunk (r, q) is the q-th of footprint row r. A thread keeps
// its q and steps through the rows (a pointer increment a chunk; H200: the
// copy had cost about 30 instructions an output pixel of a bilinear
// downscale). Every chunk goes out as an asynchronous copy before any is
// waited for. Bytes outside [s.data, s.data + s.extent) are never read.
// Issues the copies and commits them: the caller waits (__pipeline_wait_prior)
// and meets a barrier before any thread reads the tile.
__device__ __forceinline__ void issue_tile_copy(const SourceTile& t, const ResampleSample& s, std::uint8_t* tile,
                                                int thread, int threads) {
  using U = std::uint32_t;  // offsets in the sample: under 2^31 (plan_tile)
  const int cpr = t.pitch >> 4;  // a multiple of 16
  const auto begin = reinterpret_cast<std::uintptr_t>(s.data), end = begin + static_cast<std::uintptr_t>(s.extent);
  const U origin = tile_origin(t, s), row_stride = static_cast<U>(s.stride_h);
  // Whether every chunk lies inside the sample (then none is checked): the
  // first row's first chunk and the last row's last, strides being positive.
  const U last = origin + static_cast<U>(t.rows - 1) * row_stride;
  const bool interior = place_in_chunk(s, origin) <= origin &&
                        last - place_in_chunk(s, last) + static_cast<U>(cpr) * 16 <= static_cast<U>(s.extent);
  if (cpr <= threads) {  // threads <= 256
    const int rows_per_pass = small_quotient(threads, cpr), r0 = small_quotient(thread, cpr), q = thread - r0 * cpr;
    if (r0 < rows_per_pass) {
      const std::uintptr_t step = static_cast<U>(rows_per_pass) * row_stride;
      const int to_step = rows_per_pass * t.pitch;
      std::uintptr_t first = begin + (origin + static_cast<U>(r0) * row_stride);
      std::uint8_t* to = tile + r0 * t.pitch + q * 16;
      if (interior) {  // the loop of nearly every tile: a chunk is its address and its copy
        // The chunk (first & ~15) + 16 q is (first + 16 q) & ~15: one mask a
        // chunk. Four chunks a step while four remain, so that their copies
        // follow one another with no test between them (H200, alternated:
        // stretch 0.726 -> 0.738 of a D2D copy, Resize+CenterCrop 0.659 ->
        // 0.664, RandomResizedCrop 0.594 -> 0.596, upscale 0.402 -> 0.396).
        std::uintptr_t chunk = first + q * 16;
        auto to_shared = static_cast<std::uint32_t>(__cvta_generic_to_shared(to));
        constexpr auto kMask = ~std::uintptr_t{15};
        int r = r0;
        for (; r + 3 * rows_per_pass < t.rows; r += 4 * rows_per_pass, chunk += 4 * step, to_shared += 4 * to_step) {
          copy_16_async(to_shared, chunk & kMask);
          copy_16_async(to_shared + to_step, (chunk + step) & kMask);
          copy_16_async(to_shared + 2 * to_step, (chunk + 2 * step) & kMask);
          copy_16_async(to_shared + 3 * to_step, (chunk + 3 * step) & kMask);
        }
        for (; r < t.rows; r += rows_per_pass, chunk += step, to_shared += to_step)
          copy_16_async(to_shared, chunk & kMask);
      } else {
        for (int r = r0; r < t.rows; r += rows_per_pass, first += step, to += to_step)
          copy_chunk((first & ~std::uintptr_t{15}) + q * 16, to, false, begin, end);
      }
    }
  } else {  // rows wider than the block: a row at a time
    for (int r = 0; r < t.rows; ++r) {
      const auto at = (begin + (origin + static_cast<U>(r) * row_stride)) & ~std::uintptr_t{15};
      for (int q = thread; q < cpr; q += threads) copy_chunk(at + q * 16, tile + r * t.pitch + q * 16, interior, begin, end);
    }
  }
  __pipeline_commit();
}

}  // namespace ferry::core::cuda_convert
