// The resample kernel: converts samples that are resized or of different
// sizes. A block covers a 32-column tile of one sample's output, 32 rows
// (four warps) or 64 (eight: tile_h in resample_kernels.h); a thread one
// column of it (all its channels), every 4th or 8th row. Each pixel's
// value comes from the arithmetic of resize::resample
// (core/convert/resize_taps.h) with the same roundings as the CPU backend,
// so both backends give bit-identical output: uint8 from the resampled value
// rounded half to even, floats from __fadd_rn(__fmul_rn(v, alpha), beta) and
// the dtype's round to nearest even.
//
// Why a thread per column: the column's x taps (pointers and weights) are
// worked out once per sample and serve every row; a row's y taps once per
// block (a table in shared memory); for linear and cubic, the source bytes
// the tile reads are first copied into shared memory (resample_tile.cuh);
// the lanes of a warp write 32 consecutive pixels of a row, so its stores
// are contiguous in either layout. What a pixel costs is the byte loads and
// the tap arithmetic: bench/resize_bench.cpp measures it against a
// device-to-device copy.
//
// Measured with ncu on an H200 (bilinear RGB 400 -> 224, f16 NCHW): about
// 130 instructions a pixel (204 before the fma products, the asynchronous
// tile copy, 32-bit shared addresses, the whole-tile loops and the ordered
// loads; since the pad channels are stored apart, store_pads, a row's own
// part is about 80 by cuobjdump, 100 before), issuing 0.68-0.73 of the
// cycles; the rest of the time the block waits for its tile's source
// (barrier and copy stalls, a quarter of the samples). So the four-warp
// blocks pipeline their tiles (kPipelined below): the stretch 0.68-0.69 ->
// 0.71 of a D2D copy, issuing 0.79 of the cycles. Since then (2026-12-02)
// whole tiles' rows take about 75 instructions a pixel and a tile's plan
// and copy fewer (resample_tile.cuh): about 116 a pixel, the stretch 0.75,
// issuing 0.70 of the cycles. Tried and slower
// there: 48 registers for 5 blocks a SM (spills), a tile's source in two
// halves with the first half worked out while the second arrives (the
// copy's setup twice), reading whole tiles from global
// memory instead (0.53 -> 0.44 of a D2D copy), consecutive rows a thread
// with the H of a shared source row kept (spills; no gain for upscales),
// 56 registers for 9 blocks, warp 0 planning the tile for the others
// (fewer instructions, a longer wait at the barrier; PERF_NOTES.md).
//
// Instantiated per sampler (Copy and the five interpolations), mapped
// channels (1..4) and output dtype: resample_kernel_for<S> in a file of its
// own per sampler (convert_resample_<sampler>.cu), frames in
// convert_resample_frames.cu, so that the build compiles them side by side
// (one file held about 124 kernels x 8 architectures: 44 minutes on two
// cores). convert_resample_kernel.cu launches them.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "core/convert/cuda/early_start.cuh"
#include "core/convert/cuda/resample_kernels.h"
#include "core/convert/cuda/resample_params.h"
#include "core/convert/cuda/resample_pixel.cuh"
#include "core/convert/cuda/resample_store.cuh"
#include "core/convert/cuda/resample_tile.cuh"
#include "core/convert/resize_taps.h"

namespace ferry::core::cuda_convert {
namespace resample_detail {

// Resident threads per SM asked of ptxas (its register cap): 1024 (64
// registers) keeps the linear kernels' issue slots fed (measured on an H200:
// 80 registers, 768 threads, issued 0.62 of the cycles); cubic's 16 taps
// spill at 64, so it gets 512 (128 registers); the augmented kernels (A) 768,
// 80 registers around the calls of colour_pixels. TH: the block's warps.
template <Sampler S, bool A, int TH>
inline constexpr int kMinBlocksOf = (S == Sampler::Cubic ? 512 : A ? 768 : 1024) / (kTileW * TH);

// A block covers kTileW columns and TH * R rows of one sample's output;
// each thread one column, every TH-th row of the tile (the warps of a block
// on neighbouring rows: their taps share source rows in L1).
// Frames: the samples are 4:2:0 frames decoded at each tap (value_from_frame).
// A (three channels only): augmented (p.augment), its rows coloured in
// groups of kColourGroup.
// TH: the block's warps (tile_h in resample_kernels.h); R: the rows a thread
// (rows_per_thread there).
template <Sampler S, int N, DType D, bool Frames = false, bool A = false, int TH = kMaxTileH, int R = kRowsPerThread>
__global__ void __launch_bounds__(kTileW * TH, kMinBlocksOf<S, A, TH>) resample_kernel(const __grid_constant__ ResampleParams p) {
  constexpr int T = Column<S, N>::T;
  constexpr int kTileRows = TH * R;
  // The source tile in shared memory, where it fits: for linear and cubic
  // (H200: bilinear crops 0.27 -> 0.30 of a D2D copy, upscale 0.20 -> 0.23);
  // nearest reads one byte per channel and ran slower through it (0.50 -> 0.43).
  constexpr bool kStaged = kFixedTaps<S> >= 2 && !Frames;
  static_assert(!kStaged || R == kRowsPerThread, "a staged tile is sized for kRowsPerThread rows a thread");
  // Pipelined (four warps, 32-row tiles, not augmented): tile n + 1's rows,
  // plan and source copy are under way while tile n is converted, one
  // barrier a tile. Its row table in three slots, its bounds in two, its
  // source in two tiles of p.tile_capacity bytes of dynamic shared memory.
  constexpr bool kPipelined = pipelined(S, A, Frames, TH);
  static_assert(!kPipelined || kTileRows == kPipelinedTileRows, "the host sizes pipelined tiles for these rows");
  constexpr int kRowSlots = kPipelined ? 3 : 1;
  __shared__ RowTaps<T> row_slots[kRowSlots][kRowTable<S> ? kTileRows : 1];
  __shared__ __align__(16) std::uint8_t tile_bytes[kStaged && !kPipelined ? tile_bytes_of(TH) : 16];
  extern __shared__ __align__(16) std::uint8_t pipelined_tiles[];
  // The warps that work out the row table (kTileRows rows, a thread each)
  // store the tile's bounds, one slot each (warp 0 with the columns).
  __shared__ TileBounds warp_bounds[kPipelined ? 2 : kRowTable<S> && kStaged ? kTileRows / 32 : 1];
  if constexpr (kPipelined) allow_next_launch();  // early_start: the next call's blocks may be resident now
  int max_channel = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) max_channel = max(max_channel, p.channel_map[k]);
  const ChannelOrder order = channel_order<N>(p);
  const int x = static_cast<int>(blockIdx.x) * kTileW + static_cast<int>(threadIdx.x);
  const bool active = x < p.ow;  // the others still fill the row table and meet the barriers
  const int thread = static_cast<int>(threadIdx.y) * kTileW + static_cast<int>(threadIdx.x);
  // The grid (launch_resample): x the tile's columns, y the samples (a block
  // walks every gridDim.y-th), z the block's tiles (it walks every
  // gridDim.z-th). z varies slowest, so the blocks of the first tiles,
  // which may walk one tile more (7 tiles in 2: 4 and 3), run first and a
  // launch ends on shorter blocks.
  const int first_tile = static_cast<int>(blockIdx.z) * kTileRows, tile_step = static_cast<int>(gridDim.z) * kTileRows;
  for (std::int64_t i = blockIdx.y; i < p.count; i += gridDim.y) {
    // Sample i's row read once into registers (else reread after every store); one geometry: row 0, data + stride * i.
    const std::int64_t row = p.one_geometry_stride != 0 ? 0 : i;
    ResampleSample s = p.table != nullptr ? p.table[i] : p.inline_samples[row];
    s.data += p.one_geometry_stride * i;
    const augment::SampleColor& color = p.table != nullptr ? p.table[i].color : p.inline_samples[row].color;
    const float mean = p.gray_sums != nullptr ? augment::mean_of(color, static_cast<long long>(p.gray_sums[i])) : 0.0f;
    long long gray = 0;  // the mean pass: this thread's gray sum of sample i
    const Column<S, N> column(p, s, active ? x : 0);
    // Whether each column of the warp reads its taps from neighbouring
    // pixels of N bytes (a packed source, no tap clamped at an edge): its
    // whole tiles then take tile_value's Neighbours loads.
    bool neighbour_taps = false;
    if constexpr (kStaged) {
      const bool mine = s.stride_w == N && column.index[T - 1] - column.index[0] == T - 1;
      neighbour_taps = __all_sync(0xffffffffu, !active || mine);
    }
    std::int64_t column_out = (p.first + i) * p.out_n + static_cast<std::int64_t>(x) * p.out_w;
    // Opaque to the compiler, so it keeps the offset in a register rather
    // than working it out again from the parameters at every row (ptxas did,
    // about 20 instructions a bilinear pixel, to stay within 64 registers).
    asm("" : "+l"(column_out));
    // Row `tile + thread` of the tile into `rows` (threads below kTileRows,
    // whole warps where staged), and where staged its warp's bounds into
    // `bounds` (warp 0 with the columns).
    auto work_out_rows = [&](int tile, RowTaps<T>* rows, TileBounds* bounds) {
      if constexpr (kRowTable<S>) {
        const RowTaps<T> r = row_taps<S, T>(p, s, tile + thread);
        rows[thread] = r;
        if constexpr (kStaged) {
          TileBounds mine = empty_bounds();
          if (r.inside)
            mine.v[0] = r.index[0], mine.v[1] = r.index[T - 1];
          else
            mine.partial = tile + thread < p.oh;
          if (threadIdx.y == 0 && active) {  // warp 0: the tile's columns too
            if (column.inside)
              mine.v[2] = column.index[0], mine.v[3] = column.index[T - 1];
            else
              mine.partial = 1;
          }
          store_warp_bounds(bounds[threadIdx.y], mine);
        }
      }
    };
    // A staged tile's plan from its bounds; where it fits `capacity` bytes at
    // `to`, its rows' lines set and its source copy issued (not waited for).
    auto plan_and_copy = [&](const TileBounds& bounds, RowTaps<T>* rows, std::uint8_t* to, int capacity) {
      const SourceTile source = plan_tile(s, bounds, max_channel, capacity);
      if (source.staged) {
        if (thread < kTileRows && rows[thread].inside)
#pragma unroll
          for (int t = 0; t < T; ++t) rows[thread].line[t] = tile_line(source, s, to, rows[thread].index[t]);
        issue_tile_copy(source, s, to, thread, kTileW * TH);
      }
      return source;
    };
    // Converts this thread's pixels of the tile whose rows are `rows`, from
    // its staged source (`source`) or global memory; `whole`: every pixel of
    // it shows the image.
    auto convert_tile = [&](int tile, const RowTaps<T>* rows, const SourceTile& source, bool whole) {
      if (!active) return;
      // The tile's rows of this column: value(row, y, v) gives the pixel's
      // channels, or false where it shows fill or letterbox. One loop per
      // source path, so the path is not chosen again at every row.
      // rows_inside (std::true_type): every row of the tile is an output row,
      // so the loop does not test for the output's end at each.
      auto each_row = [&](auto&& value, auto rows_inside) {
        const int first_row = static_cast<int>(threadIdx.y);
        std::uint8_t* out = p.out + column_out + static_cast<std::int64_t>(tile + first_row) * p.out_h;
        const std::int64_t out_step = TH * p.out_h;
        if constexpr (A) {
          static_assert(N == 3 && R % kColourGroup == 0, "augmented kernels colour three channels, whole groups");
          // A group's values first (0 for rows past the output and for pixels
          // of a padded crop outside the image), then their colour (or the
          // mean pass's gray sum) in one call, then the stores.
#pragma unroll
          for (int first = 0; first < R; first += kColourGroup) {
            float v[kColourGroup][N];
            unsigned shown = 0;  // bit g: the group's pixel g shows the image (or reads 0 where a crop padded)
#pragma unroll
            for (int g = 0; g < kColourGroup; ++g) {
              const int row = (first + g) * TH + first_row;
#pragma unroll
              for (int k = 0; k < N; ++k) v[g][k] = 0.0f;
              if (tile + row >= p.oh) continue;
              // value() writes v[g] only where it returns true: elsewhere it stays 0.
              const bool inside = static_cast<bool>(value(row, tile + row, v[g]));
              if (inside || (p.augment & kAugmentZeroOutside)) shown |= 1u << g;
            }
            if (p.mean_pass) {
              if (color.contrast_at >= 0 && shown != 0) gray += gray_pixels(&color, v, shown);
              continue;
            }
            if ((p.augment & kAugmentColor) && shown != 0) colour_pixels(&color, v, mean);
#pragma unroll
            for (int g = 0; g < kColourGroup; ++g) {
              const int y = tile + (first + g) * TH + first_row;
              if (y >= p.oh) break;
              store_augmented_pixel<S, D, N>(p, s, color, out + (first + g) * out_step, shown >> g & 1u, v[g], x, y);
            }
          }
        } else {
#pragma unroll
          for (int r = 0; r < R; ++r, out += out_step) {
            const int row = r * TH + first_row;
            const int y = tile + row;
            if (!decltype(rows_inside)::value && y >= p.oh) break;
            float v[N];
            const auto inside = value(row, y, v);  // AlwaysInside where it always is
            if (N != 3 && p.augment != 0)
              store_augmented<S, D, N>(p, s, color, out, static_cast<bool>(inside), v, x, y);
            else
              store_pixel<S, D, N>(p, s, out, inside, v);
          }
        }
      };
      if constexpr (kStaged) {
        if (source.staged) {
          int offset[T][N];  // the taps' bytes within a footprint row of the staged tile
#pragma unroll
          for (int t = 0; t < T; ++t)
#pragma unroll
            for (int k = 0; k < N; ++k)
              offset[t][k] = static_cast<int>((column.index[t] - source.col0) * s.stride_w) + p.channel_map[k];
          // No pixel to check for fill or letterbox: the loops of nearly
          // every tile. `fast` (std::true_type): neighbouring taps and every
          // row an output row; bilinear f16 NCHW 80 -> 75 SASS instructions
          // a pixel (cuobjdump); H200, alternated: stretch 0.715 -> 0.724,
          // RandomResizedCrop 0.577 -> 0.592, Resize+CenterCrop 0.638 -> 0.655.
          using Asc = std::integral_constant<ChannelOrder, ChannelOrder::Ascending>;
          using Desc = std::integral_constant<ChannelOrder, ChannelOrder::Descending>;
          auto whole_tile = [&](auto order, auto fast) {
            each_row([&](int row, int, float (&v)[N]) {
              tile_value<decltype(order)::value, N, T, S, decltype(fast)::value>(column, rows[row], offset, v);
              return AlwaysInside{};
            }, fast);
          };
          const bool fast = whole && neighbour_taps && tile + kTileRows <= p.oh;
          if (fast && order == ChannelOrder::Ascending)
            whole_tile(Asc{}, std::true_type{});
          else if (fast && order == ChannelOrder::Descending)
            whole_tile(Desc{}, std::true_type{});
          else if (whole && order == ChannelOrder::Ascending)
            whole_tile(Asc{}, std::false_type{});
          else if (whole && order == ChannelOrder::Descending)
            whole_tile(Desc{}, std::false_type{});
          else if (whole)
            whole_tile(std::integral_constant<ChannelOrder, ChannelOrder::Mapped>{}, std::false_type{});
          else
            each_row([&](int row, int, float (&v)[N]) {
              return value_from_tile<S, N, T>(column, rows[row], offset, v);
            }, std::false_type{});
        } else {
          each_row([&](int row, int, float (&v)[N]) { return value_from<S, N, T>(p, s, column, rows[row], v); },
                   std::false_type{});
        }
      } else if constexpr (Frames) {
        each_row([&](int row, int, float (&v)[N]) { return value_from_frame<S, N, T>(p, s, column, rows[row], v); },
                 std::false_type{});
      } else if constexpr (kRowTable<S>) {
        each_row([&](int row, int, float (&v)[N]) { return value_from<S, N, T>(p, s, column, rows[row], v); },
                 std::false_type{});
      } else {
        each_row([&](int, int y, float (&v)[N]) { return column.value(p, s, y, v); }, std::false_type{});
      }
      if (p.oct > N && !p.mean_pass)
        store_pads<D, N, TH, R>(p, p.out + column_out, tile + static_cast<int>(threadIdx.y));
    };
    if constexpr (kPipelined) {
      int tile = first_tile;
      if (tile >= p.oh) continue;  // the block's: blockIdx.z
      __syncthreads();  // the previous sample's tiles are converted: every slot is free
      if (threadIdx.y == 0) work_out_rows(tile, row_slots[0], &warp_bounds[0]);
      __syncthreads();
      wait_for_previous_launch();  // early_start: only then read sources or write outputs
      bool whole = warp_bounds[0].partial == 0;
      SourceTile source = plan_and_copy(warp_bounds[0], row_slots[0], pipelined_tiles, p.tile_capacity);
      for (int n = 0; tile < p.oh; ++n, tile += tile_step) {
        const int next = tile + tile_step;
        // Slots: rows n % 3, bounds and source n % 2. Tile n + 1's rows and
        // bounds go where no warp reads any more: tile n - 2's rows and tile
        // n - 1's bounds were last read before iteration n - 1's barrier,
        // which warp 0 has passed; its source where tile n - 1's was, after
        // this iteration's barrier.
        if (next < p.oh && threadIdx.y == 0) work_out_rows(next, row_slots[(n + 1) % 3], &warp_bounds[(n + 1) % 2]);
        __pipeline_wait_prior(0);
        __syncthreads();  // tile n's source is in, tile n + 1's rows and bounds written, tile n - 1 converted
        SourceTile next_source;
        bool next_whole = false;
        if (next < p.oh) {  // into the buffer that tile n - 1 read
          const TileBounds& bounds = warp_bounds[(n + 1) % 2];
          next_whole = bounds.partial == 0;
          next_source = plan_and_copy(bounds, row_slots[(n + 1) % 3], pipelined_tiles + ((n + 1) % 2) * p.tile_capacity,
                                      p.tile_capacity);
        }
        convert_tile(tile, row_slots[n % 3], source, whole);
        source = next_source, whole = next_whole;
      }
    } else {
      RowTaps<T>* rows = row_slots[0];
      for (int tile = first_tile; tile < p.oh; tile += tile_step) {
        SourceTile source;
        bool whole = false;  // staged samplers: every pixel of the tile shows the image
        if constexpr (kRowTable<S>) {
          __syncthreads();  // the previous tile's rows, bounds and source are read by now
          if (thread < kTileRows) work_out_rows(tile, rows, warp_bounds);
          __syncthreads();
          if constexpr (kStaged) {
            const TileBounds bounds = merged_bounds(warp_bounds);
            whole = bounds.partial == 0;
            source = plan_and_copy(bounds, rows, tile_bytes, tile_bytes_of(TH));
            if (source.staged) {
              __pipeline_wait_prior(0);
              __syncthreads();
            }
          }
        }
        convert_tile(tile, rows, source, whole);
      }
    }
    if (p.mean_pass) {  // every thread of the block reaches here: the tile loop is the block's
#pragma unroll
      for (int d = 16; d > 0; d /= 2) gray += __shfl_down_sync(0xffffffffu, gray, d);
      if ((threadIdx.x & 31) == 0 && gray != 0) atomicAdd(&p.gray_out[i], static_cast<unsigned long long>(gray));
    }
  }
}

template <Sampler S, int N, bool Frames = false, bool A = false, int TH = kMaxTileH, int R = kRowsPerThread>
const void* kernel_for_dtype(DType dtype) {
  switch (dtype) {
    case DType::UInt8: return reinterpret_cast<const void*>(resample_kernel<S, N, DType::UInt8, Frames, A, TH, R>);
    case DType::Float32: return reinterpret_cast<const void*>(resample_kernel<S, N, DType::Float32, Frames, A, TH, R>);
    case DType::Float16: return reinterpret_cast<const void*>(resample_kernel<S, N, DType::Float16, Frames, A, TH, R>);
    case DType::BFloat16:
      return reinterpret_cast<const void*>(resample_kernel<S, N, DType::BFloat16, Frames, A, TH, R>);
  }
  return nullptr;
}

// The plain kernel of N channels in blocks of `warps` warps: four exist for
// Linear only (tile_h), so that the other samplers' files compile no more.
template <Sampler S, int N>
const void* plain_kernel_for(DType dtype, int warps) {
  if constexpr (S == Sampler::Linear)
    if (warps == 4) return kernel_for_dtype<S, N, false, false, 4>(dtype);
  return kernel_for_dtype<S, N>(dtype);
}

}  // namespace resample_detail

// Three channels augmented (colour): the A kernels; the others the plain
// ones, in blocks of `warps` warps (tile_h).
template <Sampler S>
const void* resample_kernel_for(int channels, DType dtype, bool augmented, int warps) {
  using resample_detail::kernel_for_dtype;
  using resample_detail::plain_kernel_for;
  switch (channels) {
    case 1: return plain_kernel_for<S, 1>(dtype, warps);
    case 2: return plain_kernel_for<S, 2>(dtype, warps);
    case 3: return augmented ? kernel_for_dtype<S, 3, false, true>(dtype) : plain_kernel_for<S, 3>(dtype, warps);
    case 4: return plain_kernel_for<S, 4>(dtype, warps);
    default: return nullptr;
  }
}

}  // namespace ferry::core::cuda_convert
