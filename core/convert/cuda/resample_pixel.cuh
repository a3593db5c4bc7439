// One output pixel of the resample kernel (resample_kernel.cuh): where
// its column and row read (Column, RowTaps) and its N mapped channels from
// global memory or from the block's source tile (resample_tile.cuh), with
// resize::resample's arithmetic in its order (core/convert/resize_taps.h).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "core/convert/cuda/resample_params.h"
#include "core/convert/cuda/resample_tile.cuh"
#include "core/convert/frame_color.h"
#include "core/convert/resize_taps.h"

namespace ferry::core::cuda_convert {

// The exact float of byte b: (0x4B000000 | b) - 2^23, without the slow I2F.
__device__ __forceinline__ float byte_value(std::uint8_t b) {
  return __fsub_rn(__uint_as_float(0x4B000000u | b), 8388608.0f);
}

// A tap's weight w, and -w * 2^23 (exact: a power of two) for byte_product.
struct TapWeight {
  float w = 0.0f, shifted = 0.0f;
  __device__ __forceinline__ void set(float weight) { w = weight, shifted = -weight * 8388608.0f; }
};

// resize::mul(w, byte b) in one instruction: fma(w, 2^23 + b, -w * 2^23).
// The fma rounds the exact w * (2^23 + b) - w * 2^23 = w * b once, as the
// product does. The one difference is the sign of a zero: for b = 0 and
// w < 0 (a cubic's outer taps) the product is -0 and the fma +0. A sum of
// such terms still ends with the same bits (a sum that is zero so far is
// zero in both, and the first term of positive weight, which every axis has,
// makes it +0 in both; a non-zero sum or term does not see a zero's sign).
__device__ __forceinline__ float byte_product(const TapWeight& t, std::uint8_t b) {
  return __fmaf_rn(t.w, __uint_as_float(0x4B000000u | b), t.shifted);
}

// The interpolations with a fixed number of taps per axis (no normalization).
template <Sampler S>
inline constexpr int kFixedTaps = S == Sampler::Nearest ? 1 : S == Sampler::Linear ? 2 : S == Sampler::Cubic ? 4 : 0;

// What every column of output row y shares: its y taps, as byte offsets of
// source rows and weights (Copy: the source row), or that the row is fill or
// letterbox. Worked out once per block and row into shared memory. The
// weights and lines first, 16-byte aligned: a bilinear row of a staged tile
// reads both in one 16-byte load.
template <int T>
struct alignas(16) RowTaps {
  float weight[T];
  std::uint32_t line[T];  // the shared-memory addresses where those rows start in the block's source tile, once staged
  std::int64_t offset[T];
  int index[T];  // the source rows
  int inside;
};

template <Sampler S, int T>
__device__ __forceinline__ RowTaps<T> row_taps(const ResampleParams& p, const ResampleSample& s, int y) {
  RowTaps<T> r{};
  const int my = (s.mirror & kMirrorY) ? p.oh - 1 - y : y;
  if constexpr (S == Sampler::Copy) {
    const int sy = s.y + my;
    r.inside = y < p.oh && sy >= 0 && sy < s.h;
    r.offset[0] = static_cast<std::int64_t>(sy) * s.stride_h;
  } else {
    const int ry = my + s.axes.y.offset;
    r.inside = y < p.oh && ry >= 0 && ry < s.axes.y.length;
    int t = 0;
    constexpr auto M = static_cast<Interpolation>(static_cast<int>(S));
    resize::for_each_tap<M>(s.axes.y, r.inside ? ry : 0, [&](int i, float w) {
      r.offset[t] = static_cast<std::int64_t>(i) * s.stride_h;
      r.index[t] = i;
      r.weight[t] = w;
      ++t;
    });
  }
  return r;
}

// Where channel k of a pixel lies from the pixel's first byte.
__device__ __forceinline__ std::int64_t channel_offset(const ResampleParams& p, const ResampleSample& s, int k) {
  return static_cast<std::int64_t>(p.channel_map[k]) * s.stride_c;
}

// One thread's output column x of sample s: what every row of that column
// shares, worked out once per sample. Only what the loop over rows needs
// stays in registers (the bilinear kernel is capped at 64 a thread).
//  - Copy: the source column's pixel pointers (mirror and window applied).
//  - Nearest, Linear, Cubic: the column's x taps, a source column and a
//    weight each; a row then costs its loads and sums (value_from_tile,
//    value_from below).
//  - Area, LinearAntialias (a tap count that depends on the scale): value()
//    runs resize::resample itself.
template <Sampler S, int N>
struct Column {
  static constexpr int T = kFixedTaps<S> > 0 ? kFixedTaps<S> : 1;
  const std::uint8_t* pixel[N];  // Copy: the column's channel k in row 0
  TapWeight weight[T];
  int index[T];         // the taps' source columns
  int rx = 0;           // the resized column (interpolations)
  bool inside = false;  // whether the column shows the image at all

  __device__ __forceinline__ Column(const ResampleParams& p, const ResampleSample& s, int x) {
    const int mx = (s.mirror & kMirrorX) ? p.ow - 1 - x : x;
    if constexpr (S == Sampler::Copy) {
      const int sx = s.x + mx;
      inside = sx >= 0 && sx < s.w;
#pragma unroll
      for (int k = 0; k < N; ++k) pixel[k] = s.data + static_cast<std::int64_t>(sx) * s.stride_w + channel_offset(p, s, k);
    } else {
      rx = mx + s.axes.x.offset;
      inside = rx >= 0 && rx < s.axes.x.length;
      if constexpr (kFixedTaps<S> > 0) {
        int t = 0;
        constexpr auto M = static_cast<Interpolation>(static_cast<int>(S));
        resize::for_each_tap<M>(s.axes.x, inside ? rx : 0, [&](int j, float w) {
          index[t] = j;
          weight[t].set(w);
          ++t;
        });
      }
    }
  }

  // Row y's channels for the interpolations whose tap count depends on the
  // scale (Area, LinearAntialias): resize::resample itself. The others read
  // their rows from the block's table (value_from, value_from_tile).
  __device__ __forceinline__ bool value(const ResampleParams& p, const ResampleSample& s, int y, float (&v)[N]) const {
    static_assert(kFixedTaps<S> == 0 && S != Sampler::Copy, "the other samplers take their rows from a table");
    if (!inside) return false;
    const int my = (s.mirror & kMirrorY) ? p.oh - 1 - y : y;
    const int ry = my + s.axes.y.offset;
    if (ry < 0 || ry >= s.axes.y.length) return false;
    constexpr auto M = static_cast<Interpolation>(static_cast<int>(S));
    resize::resample<M, N>(s.axes, ry, rx, [&](int i, int j, float (&px)[N]) {
      const std::uint8_t* at = s.data + static_cast<std::int64_t>(i) * s.stride_h + static_cast<std::int64_t>(j) * s.stride_w;
#pragma unroll
      for (int k = 0; k < N; ++k) px[k] = byte_value(__ldg(at + channel_offset(p, s, k)));
    }, v);
    return true;
  }
};

// Row taps in a table: Copy and the fixed-tap interpolations.
template <Sampler S>
inline constexpr bool kRowTable = S == Sampler::Copy || kFixedTaps<S> > 0;

// V = the sum over the y taps of wy * H, H = the sum over the x taps of
// wx * the bytes pixel(ty, tx, b) gives (b[k]: channel k), in tap order:
// resize::resample's arithmetic for the fixed-tap interpolations. resample
// starts each sum from 0; starting from the first term instead gives the
// same bits and saves an add per sum: 0 + t differs from t only for t = -0,
// and a sum of these terms never stays -0 to its end (t = -0 needs a
// negative weight and a zero byte or H, and each axis has a positive weight,
// whose term is +0 or more: -0 + +0 = +0, and a non-zero term absorbs
// either zero).
// SkipZero (non-negative weights only: linear): the taps after the first
// whose weight is +0 are not read. Such a tap adds +0 to a sum that is +0 or
// more, which leaves its bits as they are. A linear axis has them wherever
// its fraction is 0, at every pixel of an odd whole downscale (a 1080p frame
// letterboxed to 640 reads one source pixel an output pixel) or an unscaled
// window. Worth its branches where a tap is costly: a frame's taps are each
// a decode (value_from_frame).
template <int N, int T, bool SkipZero = false, typename Pixel>
__device__ __forceinline__ void separable_sum(const TapWeight (&wx)[T], const float (&wy)[T], Pixel&& pixel,
                                              float (&v)[N]) {
#pragma unroll
  for (int ty = 0; ty < T; ++ty) {
    if (SkipZero && ty > 0 && wy[ty] == 0.0f) continue;
    float h[N];
    std::uint8_t b[N];
    pixel(ty, 0, b);
#pragma unroll
    for (int k = 0; k < N; ++k) h[k] = byte_product(wx[0], b[k]);
#pragma unroll
    for (int tx = 1; tx < T; ++tx) {
      if (SkipZero && wx[tx].w == 0.0f) continue;
      pixel(ty, tx, b);
#pragma unroll
      for (int k = 0; k < N; ++k) h[k] = resize::add(h[k], byte_product(wx[tx], b[k]));
    }
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = ty == 0 ? resize::mul(wy[0], h[k]) : resize::add(v[k], resize::mul(wy[ty], h[k]));
  }
}

// The N mapped channels of this column in the row of `row` (its taps from
// the block's table), from global memory; false where the pixel is fill or
// letterbox. The path of footprints too large for the source tile, and of
// planar sources: tap addresses are worked out at each load.
// The same for a 4:2:0 frame with nearest chroma (p.frame): each tap's pixel
// decoded from its luma and chroma bytes (three loads, as an RGB pixel's
// three channels), so no decoded image is written and read again; taps of
// weight 0 are not decoded (separable_sum's SkipZero).
template <Sampler S, int N, int T>
__device__ __forceinline__ bool value_from_frame(const ResampleParams& p, const ResampleSample& s, const Column<S, N>& c,
                                                 const RowTaps<T>& row, float (&v)[N]) {
  if (!c.inside || !row.inside) return false;
  const PixelFormat f = p.frame.format;
  const bool semi_planar = f == PixelFormat::NV12 || f == PixelFormat::NV21;
  const bool v_first = f == PixelFormat::NV21 || f == PixelFormat::YV12;
  static_assert(S == Sampler::Linear, "frames are resampled with linear taps, whose weights are never negative");
  separable_sum<N, T, true>(c.weight, row.weight, [&](int ty, int tx, std::uint8_t (&b)[N]) {
    const int y = row.index[ty], x = c.index[tx];
    const int luma = __ldg(s.data + s.plane_offset[0] + static_cast<std::int64_t>(y) * s.plane_pitch[0] + x);
    const std::uint8_t* c1 = s.data + s.plane_offset[1] + static_cast<std::int64_t>(y >> 1) * s.plane_pitch[1];
    int u, w;
    if (semi_planar) {
      u = __ldg(c1 + (x & ~1) + (v_first ? 1 : 0)), w = __ldg(c1 + (x & ~1) + (v_first ? 0 : 1));
    } else {
      const std::uint8_t* c2 = s.data + s.plane_offset[2] + static_cast<std::int64_t>(y >> 1) * s.plane_pitch[2];
      u = __ldg((v_first ? c2 : c1) + (x >> 1)), w = __ldg((v_first ? c1 : c2) + (x >> 1));
    }
    std::uint8_t rgb[3];
    frame::yuv_to_rgb(p.frame.color, luma, u, w, rgb);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const int m = p.channel_map[k];
      b[k] = m == 0 ? rgb[0] : m == 1 ? rgb[1] : rgb[2];
    }
  }, v);
  return true;
}

template <Sampler S, int N, int T>
__device__ __forceinline__ bool value_from(const ResampleParams& p, const ResampleSample& s, const Column<S, N>& c,
                                           const RowTaps<T>& row, float (&v)[N]) {
  if (!c.inside || !row.inside) return false;
  if constexpr (S == Sampler::Copy) {
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = byte_value(__ldg(c.pixel[k] + row.offset[0]));
  } else {
    separable_sum<N, T>(c.weight, row.weight, [&](int ty, int tx, std::uint8_t (&b)[N]) {
      const std::uint8_t* at = s.data + row.offset[ty] + static_cast<std::int64_t>(c.index[tx]) * s.stride_w;
#pragma unroll
      for (int k = 0; k < N; ++k) b[k] = __ldg(at + channel_offset(p, s, k));
    }, v);
  }
  return true;
}

// How a sample's mapped channels lie in its pixels, for the loads from the
// source tile: any way (Mapped), or next to each other in the order of the
// output channels (Ascending: RGB from RGB) or the reverse (Descending: RGB
// from BGR). The last two load with the channel's offset in the instruction.
enum class ChannelOrder { Mapped, Ascending, Descending };

template <int N>
__device__ __forceinline__ ChannelOrder channel_order(const ResampleParams& p) {
  bool ascending = true, descending = true;
#pragma unroll
  for (int k = 1; k < N; ++k) {
    ascending = ascending && p.channel_map[k] == p.channel_map[0] + k;
    descending = descending && p.channel_map[k] == p.channel_map[0] - k;
  }
  return ascending ? ChannelOrder::Ascending : descending ? ChannelOrder::Descending : ChannelOrder::Mapped;
}

// b[k] = the byte at a + Base + K[k] (Ascending: K = 0, 1, ..; Descending: N-1, N-2, ..).
template <ChannelOrder O, int N, int Base, int... K>
__device__ __forceinline__ void load_ordered(std::uint32_t a, std::uint8_t (&b)[N], std::integer_sequence<int, K...>) {
  ((b[K] = shared_byte_at<Base + (O == ChannelOrder::Ascending ? K : N - 1 - K)>(a)), ...);
}

// The same for tap `tx` (a constant once the taps' loop is unrolled) of
// taps on neighbouring pixels of N bytes: its pixel N * tx bytes after tap
// 0's at a, the offset in the loads.
template <ChannelOrder O, int N, int Tap = 0>
__device__ __forceinline__ void load_neighbour(std::uint32_t a, int tx, std::uint8_t (&b)[N]) {
  if constexpr (Tap < 3) {
    if (tx != Tap) return load_neighbour<O, N, Tap + 1>(a, tx, b);
  }
  load_ordered<O, N, Tap * N>(a, b, std::make_integer_sequence<int, N>{});
}

// The N mapped channels of a pixel that shows the image, from the block's
// source tile in shared memory: row.line[t] is where tap t's row starts
// there, offset[t][k] tap t's channel k within it. Neighbours (ordered
// channels only): the column's taps are neighbouring pixels of N bytes, so
// that a row's taps load from one address (two fewer adds a bilinear pixel).
template <ChannelOrder O, int N, int T, Sampler S, bool Neighbours = false>
__device__ __forceinline__ void tile_value(const Column<S, N>& c, const RowTaps<T>& row, const int (&offset)[T][N],
                                           float (&v)[N]) {
  static_assert(!Neighbours || O != ChannelOrder::Mapped, "neighbouring taps load ordered channels");
  constexpr int first = O == ChannelOrder::Ascending ? 0 : N - 1;  // the channel that lies first in the pixel
  separable_sum<N, T>(c.weight, row.weight, [&](int ty, int tx, std::uint8_t (&b)[N]) {
    if constexpr (O == ChannelOrder::Mapped) {
#pragma unroll
      for (int k = 0; k < N; ++k) b[k] = shared_byte(row.line[ty] + offset[tx][k]);
    } else if constexpr (Neighbours) {
      load_neighbour<O, N>(row.line[ty] + offset[0][first], tx, b);
    } else {
      load_ordered<O, N, 0>(row.line[ty] + offset[tx][first], b, std::make_integer_sequence<int, N>{});
    }
  }, v);
}

// The same for any pixel of the tile; false where it is fill or letterbox.
template <Sampler S, int N, int T>
__device__ __forceinline__ bool value_from_tile(const Column<S, N>& c, const RowTaps<T>& row, const int (&offset)[T][N],
                                                float (&v)[N]) {
  if (!c.inside || !row.inside) return false;
  tile_value<ChannelOrder::Mapped, N, T>(c, row, offset, v);
  return true;
}

}  // namespace ferry::core::cuda_convert
