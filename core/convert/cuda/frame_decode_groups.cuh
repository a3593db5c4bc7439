// One thread's share of the frame decoder (frame_decode_kernel.cu): the
// 8 x 2 pixels at (x, y), x a multiple of 8 and y even, as R, G, B bytes, for
// every format and chroma filter. Each pixel gives frame_color.h's bytes
// (what the CPU decoder gives); the work is on whole words where the frame
// allows them (Aligned: DecodeFrames::aligned, no per-thread checks), byte
// by byte with the frame's edges checked otherwise. A frame's last single
// row (odd heights) is decoded as row y + 1 too and never stored.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/convert/frame_color.h"

namespace ferry::core::cuda_convert::group {

constexpr int kPixels = 8;  // pixels of each of its two rows a thread decodes

// The group's R, G, B values, one int each, not yet clamped to 0..255
// (pack_rows clamps the formula's as it packs; frame_color.h's channel_of
// does both). Bayer's are bytes already.
using GroupValues = int[2][3 * kPixels];

__device__ __forceinline__ int byte_of(std::uint32_t word, int k) {
  return static_cast<int>(__byte_perm(word, 0, 0x4440 + k));
}
__host__ __device__ constexpr bool is_422(PixelFormat f) { return f == PixelFormat::YUYV || f == PixelFormat::UYVY; }
__host__ __device__ constexpr bool is_bayer(PixelFormat f) { return f >= PixelFormat::BayerRGGB; }

// How a group's values become bytes. Which is fastest was measured, each
// kernel beside the others on one H200 (64 1080p frames, x a D2D copy of the
// bytes): the saturating packs run on another pipe than the kernels' other
// integer work, which bounds them (YUYV 0.78 -> 0.82, NV12 with linear
// chroma 0.62 -> 0.66), except for 4:2:0 frames with nearest chroma (I420
// 0.77 -> 0.70; NV12 the same), whose values a clamp each and byte permutes
// pack fastest. Clamping pairs in 16-bit lanes (min.s16x2.relu) was slower
// than either.
enum class Packing { Bytes, ClampEach, SaturatingPack };

template <PixelFormat F, ChromaFilter C>
constexpr Packing packing_of() {
  if constexpr (is_bayer(F)) return Packing::Bytes;  // bytes already
  else if constexpr (!is_422(F) && C == ChromaFilter::Nearest) return Packing::ClampEach;
  else return Packing::SaturatingPack;
}

// a, b, c and d (bytes) as the bytes of a word, a first.
__device__ __forceinline__ std::uint32_t pack4(int a, int b, int c, int d) {
  return __byte_perm(__byte_perm(a, b, 0x0040), __byte_perm(c, d, 0x0040), 0x5410);
}
// The same, each clamped to 0..255 by two saturating packs (cvt.pack.sat, sm_72 on).
__device__ __forceinline__ std::uint32_t saturating_pack4(int a, int b, int c, int d) {
  std::uint32_t high, word;
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(high) : "r"(d), "r"(c), "r"(0));
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(word) : "r"(b), "r"(a), "r"(high));
  return word;
}
__device__ __forceinline__ int clamped(int v) { return frame::imax(0, frame::imin(v, 255)); }

// Each row's 24 values as three 8-byte words of bytes.
template <Packing P>
__device__ __forceinline__ void pack_rows(const GroupValues& values, uint2 (&rgb)[2][3]) {
  auto pack = [](const int* b) {
    if constexpr (P == Packing::SaturatingPack) return saturating_pack4(b[0], b[1], b[2], b[3]);
    else if constexpr (P == Packing::ClampEach)
      return pack4(clamped(b[0]), clamped(b[1]), clamped(b[2]), clamped(b[3]));
    else return pack4(b[0], b[1], b[2], b[3]);
  };
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int q = 0; q < 3; ++q) rgb[r][q] = make_uint2(pack(&values[r][8 * q]), pack(&values[r][8 * q + 4]));
}

// The T at p (aligned to T), read through the read-only data path: the
// frames are never written while a kernel reads them, and the loads of a
// generic pointer were slower (H200, each kernel beside the other: NV12 with
// linear chroma 0.70 -> 0.74 of a D2D copy, I420 0.63 -> 0.71, YUYV 0.82 ->
// 0.85; nearest 4:2:0 the same).
template <typename T>
__device__ __forceinline__ T word_at(const std::uint8_t* p) {
  if constexpr (sizeof(T) == 1) return __ldg(p);
  else if constexpr (std::is_same_v<T, std::uint16_t>) return __ldg(reinterpret_cast<const unsigned short*>(p));
  else if constexpr (std::is_same_v<T, std::uint32_t>) return __ldg(reinterpret_cast<const unsigned int*>(p));
  else return __ldg(reinterpret_cast<const T*>(p));
}

// n (<= 16) bytes from src as four words, the rest 0.
__device__ __forceinline__ uint4 load_bytes(const std::uint8_t* src, int n) {
  std::uint32_t w[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; ++k) w[k >> 2] |= static_cast<std::uint32_t>(src[k]) << (8 * (k & 3));
  return make_uint4(w[0], w[1], w[2], w[3]);
}
__device__ __forceinline__ uint2 low_half(uint4 w) { return make_uint2(w.x, w.y); }

// I420's U plane is 1, YV12's (V first) 2; the other chroma plane is 3 less it.
constexpr int u_plane_of(PixelFormat f) { return f == PixelFormat::I420 ? 1 : 2; }

// The 4:2:0 luma words of rows y and y + rows - 1 at x (a last single row
// reads its row twice).
template <bool Aligned>
__device__ __forceinline__ void load_luma_420(const frame::FrameRef& f, int x, int y, int rows, uint2 (&l)[2]) {
  const std::uint8_t* luma[2] = {f.row(0, y) + x, f.row(0, y + rows - 1) + x};
  const int n = Aligned ? kPixels : min(kPixels, f.w - x);
#pragma unroll
  for (int r = 0; r < 2; ++r) l[r] = Aligned ? word_at<uint2>(luma[r]) : low_half(load_bytes(luma[r], n));
}

// The eight lumas of four 4:2:2 macropixels: Y0 U Y1 V (YUYV) or U Y0 V Y1 (UYVY).
template <PixelFormat F>
__device__ __forceinline__ uint2 macropixel_lumas(uint4 w) {
  constexpr unsigned kLumas = F == PixelFormat::YUYV ? 0x6420 : 0x7531;
  return make_uint2(__byte_perm(w.x, w.y, kLumas), __byte_perm(w.z, w.w, kLumas));
}

// ---- 4:2:0 and 4:2:2, nearest chroma: a chroma sample's terms shared by the pixels it covers.

// The luma words of rows y and y + rows - 1 at x (load_luma_420) and each
// row's four chroma samples' U and V words.
template <PixelFormat F, bool Aligned>
__device__ __forceinline__ void load_nearest(const frame::FrameRef& f, int x, int y, int rows, uint2 (&l)[2],
                                             std::uint32_t (&u)[2], std::uint32_t (&v)[2]) {
  const int last = y + rows - 1;
  const int samples = Aligned ? 4 : min(4, ((f.w + 1) >> 1) - (x >> 1));
  if constexpr (is_422(F)) {
    // Four macropixels a row (16 bytes): Y0 U Y1 V (YUYV) or U Y0 V Y1 (UYVY).
    constexpr bool kYuyv = F == PixelFormat::YUYV;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const std::uint8_t* m = f.row(0, r == 0 ? y : last) + 2 * x;
      const uint4 w = Aligned ? word_at<uint4>(m) : load_bytes(m, 4 * samples);
      const unsigned us = kYuyv ? 0x0051 : 0x0040, vs = kYuyv ? 0x0073 : 0x0062;
      l[r] = macropixel_lumas<F>(w);
      u[r] = __byte_perm(__byte_perm(w.x, w.y, us), __byte_perm(w.z, w.w, us), 0x5410);
      v[r] = __byte_perm(__byte_perm(w.x, w.y, vs), __byte_perm(w.z, w.w, vs), 0x5410);
    }
    return;
  }
  load_luma_420<Aligned>(f, x, y, rows, l);
  if constexpr (F == PixelFormat::NV12 || F == PixelFormat::NV21) {
    const std::uint8_t* pairs = f.row(1, y >> 1) + x;  // U V U V ... (NV21: V U)
    const uint2 w = Aligned ? word_at<uint2>(pairs) : low_half(load_bytes(pairs, 2 * samples));
    const std::uint32_t even = __byte_perm(w.x, w.y, 0x6420), odd = __byte_perm(w.x, w.y, 0x7531);
    u[0] = F == PixelFormat::NV12 ? even : odd;
    v[0] = F == PixelFormat::NV12 ? odd : even;
  } else {
    const std::uint8_t* us = f.row(u_plane_of(F), y >> 1) + (x >> 1);
    const std::uint8_t* vs = f.row(3 - u_plane_of(F), y >> 1) + (x >> 1);
    u[0] = Aligned ? word_at<std::uint32_t>(us) : load_bytes(us, samples).x;
    v[0] = Aligned ? word_at<std::uint32_t>(vs) : load_bytes(vs, samples).x;
  }
  u[1] = u[0], v[1] = v[0];  // 4:2:0: both rows share the chroma row
}

// 4:2:0 passes the same chroma words for both rows; the compiler works their terms out once.
template <PixelFormat F, bool Aligned>
__device__ __forceinline__ void decode_nearest(const ColorCoefficients& c, const frame::FrameRef& f, int x, int y,
                                               int rows, GroupValues& values) {
  uint2 l[2];
  std::uint32_t u[2], v[2];
  load_nearest<F, Aligned>(f, x, y, rows, l, u, v);
#pragma unroll
  for (int k = 0; k < 4; ++k)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const frame::ChromaTerms t = frame::chroma_terms(c, byte_of(u[r], k), byte_of(v[r], k));
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int p = 2 * k + e;
        const int luma = frame::scaled_luma(c, byte_of(p < 4 ? l[r].x : l[r].y, p & 3));
        values[r][3 * p] = frame::unclamped_channel(luma, t.r);
        values[r][3 * p + 1] = frame::unclamped_channel(luma, t.g);
        values[r][3 * p + 2] = frame::unclamped_channel(luma, t.b);
      }
    }
}

// ---- 4:2:0 and 4:2:2, linear chroma: each pixel's own U and V, as frame_color.h's decode_pixel mixes them.

// U and V of chroma columns cx .. cx + 4 of 4:2:0 chroma row cy, columns
// past the frame's edge repeating its last. Aligned: cx + 3 is inside (the
// group is whole), only the fifth is checked.
template <PixelFormat F, bool Aligned>
__device__ __forceinline__ void chroma_run_420(const frame::FrameRef& f, int cx, int cy, int (&u)[5], int (&v)[5]) {
  const int last = ((f.w + 1) >> 1) - 1;
  if constexpr (!Aligned) {
#pragma unroll
    for (int k = 0; k < 5; ++k) frame::chroma_420(F, f, min(cx + k, last), cy, u[k], v[k]);
    return;
  }
  const int next = min(cx + 4, last);
  if constexpr (F == PixelFormat::NV12 || F == PixelFormat::NV21) {
    const std::uint8_t* pairs = f.row(1, cy);
    const uint2 w = word_at<uint2>(pairs + 2 * cx);
    const std::uint32_t tail = word_at<std::uint16_t>(pairs + 2 * next);
    constexpr int kU = F == PixelFormat::NV12 ? 0 : 1;  // the U byte of a pair
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t word = k < 2 ? w.x : w.y;
      u[k] = byte_of(word, 2 * (k & 1) + kU), v[k] = byte_of(word, 2 * (k & 1) + 1 - kU);
    }
    u[4] = byte_of(tail, kU), v[4] = byte_of(tail, 1 - kU);
  } else {
    const std::uint8_t* us = f.row(u_plane_of(F), cy);
    const std::uint8_t* vs = f.row(3 - u_plane_of(F), cy);
    const std::uint32_t uw = word_at<std::uint32_t>(us + cx);
    const std::uint32_t vw = word_at<std::uint32_t>(vs + cx);
#pragma unroll
    for (int k = 0; k < 4; ++k) u[k] = byte_of(uw, k), v[k] = byte_of(vw, k);
    u[4] = word_at<std::uint8_t>(us + next), v[4] = word_at<std::uint8_t>(vs + next);
  }
}

// U and V of the macropixels cx .. cx + 4 of a 4:2:2 row and its eight lumas.
template <PixelFormat F, bool Aligned>
__device__ __forceinline__ void run_422(const frame::FrameRef& f, int x, int y, uint2& l, int (&u)[5], int (&v)[5]) {
  constexpr bool kYuyv = F == PixelFormat::YUYV;
  const int cx = x >> 1, last = ((f.w + 1) >> 1) - 1;
  const std::uint8_t* row = f.row(0, y);
  const std::uint8_t* m = row + 4 * cx;
  const uint4 w = Aligned ? word_at<uint4>(m) : load_bytes(m, 4 * min(4, last + 1 - cx));
  l = macropixel_lumas<F>(w);
  const std::uint32_t words[4] = {w.x, w.y, w.z, w.w};
  constexpr int kU = kYuyv ? 1 : 0;  // U's byte in a macropixel; V two on
#pragma unroll
  for (int k = 0; k < 4; ++k) u[k] = byte_of(words[k], kU), v[k] = byte_of(words[k], kU + 2);
  if constexpr (Aligned) {
    const std::uint32_t next = word_at<std::uint32_t>(row + 4 * min(cx + 4, last));
    u[4] = byte_of(next, kU), v[4] = byte_of(next, kU + 2);
  } else {
    // Macropixels past the edge repeat its last (their pixels are never stored; the odd columns before them mix it).
#pragma unroll
    for (int k = 1; k < 5; ++k)
      if (cx + k > last) u[k] = u[k - 1], v[k] = v[k - 1];
    if (cx + 4 <= last) frame::chroma_422(F, f, cx + 4, y, u[4], v[4]);
  }
}

// Each pixel's chroma from the terms of its own U and V, each less 128.
__device__ __forceinline__ void decode_each(const ColorCoefficients& c, const uint2 (&l)[2],
                                            const int (&cu)[2][kPixels], const int (&cv)[2][kPixels],
                                            GroupValues& values) {
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int p = 0; p < kPixels; ++p) {
      const frame::ChromaTerms t = frame::centred_chroma_terms(c, cu[r][p], cv[r][p]);
      const int luma = frame::scaled_luma(c, byte_of(p < 4 ? l[r].x : l[r].y, p & 3));
      values[r][3 * p] = frame::unclamped_channel(luma, t.r);
      values[r][3 * p + 1] = frame::unclamped_channel(luma, t.g);
      values[r][3 * p + 2] = frame::unclamped_channel(luma, t.b);
    }
}

// frame_color.h's mixes with the 128 taken off inside them (a shift each
// where a shift and a subtraction were; the kernel is bound by such
// instructions): for 4:2:2, (a + b + 1) >> 1 less 128 is ((a - 128) + (b -
// 128) + 1) >> 1; for 4:2:0, with m = 3 (own - 170) + far, each column mixed
// down its rows less 510, (3 own + far + 2) >> 2 less 128 is m >> 2 and
// (3 (own + own') + far + far' + 4) >> 3 less 128 is (m + m') >> 3.
template <PixelFormat F, bool Aligned>
__device__ __forceinline__ void decode_linear(const ColorCoefficients& c, const frame::FrameRef& f, int x, int y,
                                              int rows, GroupValues& values) {
  uint2 l[2];
  int cu[2][kPixels], cv[2][kPixels];
  if constexpr (is_422(F)) {
    // Even columns sit on their sample, odd ones halfway to the next.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      int su[5], sv[5];
      run_422<F, Aligned>(f, x, y + (r == 0 ? 0 : rows - 1), l[r], su, sv);
#pragma unroll
      for (int k = 0; k < 5; ++k) su[k] -= 128, sv[k] -= 128;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        cu[r][2 * k] = su[k], cv[r][2 * k] = sv[k];
        cu[r][2 * k + 1] = (su[k] + su[k + 1] + 1) >> 1, cv[r][2 * k + 1] = (sv[k] + sv[k + 1] + 1) >> 1;
      }
    }
  } else {
    load_luma_420<Aligned>(f, x, y, rows, l);
    // Chroma sits between the two rows: 3/4 of their own chroma row, 1/4 of
    // the nearer other (above for row y, below for row y + 1), edges repeated.
    const int cx = x >> 1, cy = y >> 1, ch = (f.h + 1) >> 1;
    int own_u[5], own_v[5], far_u[2][5], far_v[2][5];
    chroma_run_420<F, Aligned>(f, cx, cy, own_u, own_v);
    chroma_run_420<F, Aligned>(f, cx, max(cy - 1, 0), far_u[0], far_v[0]);
    chroma_run_420<F, Aligned>(f, cx, min(cy + 1, ch - 1), far_u[1], far_v[1]);
#pragma unroll
    for (int k = 0; k < 5; ++k) own_u[k] -= 170, own_v[k] -= 170;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      int mu[5], mv[5];
#pragma unroll
      for (int k = 0; k < 5; ++k) mu[k] = 3 * own_u[k] + far_u[r][k], mv[k] = 3 * own_v[k] + far_v[r][k];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        cu[r][2 * k] = mu[k] >> 2, cv[r][2 * k] = mv[k] >> 2;
        cu[r][2 * k + 1] = (mu[k] + mu[k + 1]) >> 3, cv[r][2 * k + 1] = (mv[k] + mv[k + 1]) >> 3;
      }
    }
  }
  decode_each(c, l, cu, cv, values);
}

// ---- Bayer, bilinear: frame_color.h's demosaic on a window held in registers.

// Rows y - 1 .. y + 2 and columns x - 1 .. x + 8, reflected at the frame's
// edges (frames are at least 2 x 2; rows and columns beyond the one past the
// edge serve only pixels never stored, and are kept inside the frame).
template <bool Aligned>
__device__ __forceinline__ void bayer_window(const frame::FrameRef& f, int x, int y, int (&win)[4][kPixels + 2]) {
  auto inside = [](int i, int n) { return max(frame::reflect(i, n), 0); };
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const std::uint8_t* row = f.row(0, inside(y - 1 + j, f.h));
    if constexpr (Aligned) {
      const uint2 w = word_at<uint2>(row + x);
#pragma unroll
      for (int k = 0; k < kPixels; ++k) win[j][k + 1] = byte_of(k < 4 ? w.x : w.y, k & 3);
      win[j][0] = word_at<std::uint8_t>(row + (x == 0 ? 1 : x - 1));
      win[j][kPixels + 1] = word_at<std::uint8_t>(row + (x + kPixels < f.w ? x + kPixels : f.w - 2));
    } else {
#pragma unroll
      for (int k = 0; k < kPixels + 2; ++k) win[j][k] = row[inside(x - 1 + k, f.w)];
    }
  }
}

template <PixelFormat F, bool Aligned>
__device__ __forceinline__ void decode_bayer(const frame::FrameRef& f, int x, int y, GroupValues& values) {
  int win[4][kPixels + 2];
  bayer_window<Aligned>(f, x, y, win);
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int k = 0; k < kPixels; ++k) {
      // x and y are even: the site's colours are the format's, known here.
      const int own = frame::bayer_colour(F, k, r), at = win[r + 1][k + 1];
      const int left = win[r + 1][k], right = win[r + 1][k + 2], up = win[r][k + 1], down = win[r + 2][k + 1];
      int* rgb = &values[r][3 * k];
      rgb[own] = at;
      if (own != 1) {
        rgb[1] = (left + right + up + down + 2) >> 2;
        rgb[2 - own] = (win[r][k] + win[r][k + 2] + win[r + 2][k] + win[r + 2][k + 2] + 2) >> 2;
      } else {
        rgb[frame::bayer_colour(F, k + 1, r)] = (left + right + 1) >> 1;
        rgb[frame::bayer_colour(F, k, r + 1)] = (up + down + 1) >> 1;
      }
    }
}

// The group at (x, y) of a frame of format F with chroma filter C.
template <PixelFormat F, ChromaFilter C, bool Aligned>
__device__ __forceinline__ void decode_group(const ColorCoefficients& c, const frame::FrameRef& f, int x, int y,
                                             int rows, GroupValues& values) {
  if constexpr (is_bayer(F))
    decode_bayer<F, Aligned>(f, x, y, values);
  else if constexpr (C == ChromaFilter::Linear)
    decode_linear<F, Aligned>(c, f, x, y, rows, values);
  else
    decode_nearest<F, Aligned>(c, f, x, y, rows, values);
}

}  // namespace ferry::core::cuda_convert::group
