// One RGB pixel of a camera or video frame, exactly as
// include/ferry/pixel_format.h defines it, for the CPU decoder and the CUDA
// kernel alike: integer arithmetic only, so both give the same bytes.
#pragma once

#include <cstdint>

#include "core/convert/frame_format.h"

#if defined(__CUDACC__)
#define FERRY_FRAME_FN __host__ __device__ __forceinline__
#else
#define FERRY_FRAME_FN inline
#endif

namespace ferry::core::frame {

// Where one frame is: its start and its planes' offsets and pitches.
struct FrameRef {
  const std::uint8_t* base = nullptr;
  std::int64_t offset[3] = {0, 0, 0};
  std::int64_t pitch[3] = {0, 0, 0};
  std::int32_t h = 0, w = 0;

  FERRY_FRAME_FN const std::uint8_t* row(int p, int y) const { return base + offset[p] + y * pitch[p]; }
};

FERRY_FRAME_FN int imin(int a, int b) { return a < b ? a : b; }
FERRY_FRAME_FN int imax(int a, int b) { return a > b ? a : b; }

// A chroma sample's share of R, G and B, worked out once for the pixels
// that share the sample.
struct ChromaTerms {
  int r, g, b;
};
// From U and V less 128 (the GPU's linear chroma works them out so), and from U and V.
FERRY_FRAME_FN ChromaTerms centred_chroma_terms(const ColorCoefficients& c, int cu, int cv) {
  return {c.crv * cv, c.cgu * cu + c.cgv * cv, c.cbu * cu};
}
FERRY_FRAME_FN ChromaTerms chroma_terms(const ColorCoefficients& c, int u, int v) {
  return centred_chroma_terms(c, u - 128, v - 128);
}
// y' of the formula with the rounding half (added once here, not to each of
// the three channels), and one channel from it and the chroma's term, before
// and after its clamp to 0..255: the pieces that luma_to_rgb puts together,
// for the GPU's word-wise kernel (which clamps as it packs).
FERRY_FRAME_FN int scaled_luma(const ColorCoefficients& c, int y) {
  return imax(0, y - c.y_offset) * c.cy + (1 << 19);
}
FERRY_FRAME_FN int unclamped_channel(int luma, int term) { return (luma + term) >> 20; }
FERRY_FRAME_FN int channel_of(int luma, int term) { return imax(0, imin(unclamped_channel(luma, term), 255)); }
FERRY_FRAME_FN void luma_to_rgb(const ColorCoefficients& c, const ChromaTerms& t, int y, std::uint8_t* rgb) {
  const int luma = scaled_luma(c, y);
  rgb[0] = static_cast<std::uint8_t>(channel_of(luma, t.r));
  rgb[1] = static_cast<std::uint8_t>(channel_of(luma, t.g));
  rgb[2] = static_cast<std::uint8_t>(channel_of(luma, t.b));
}
FERRY_FRAME_FN void yuv_to_rgb(const ColorCoefficients& c, int y, int u, int v, std::uint8_t* rgb) {
  luma_to_rgb(c, chroma_terms(c, u, v), y, rgb);
}

// U and V of chroma sample (cx, cy) of a 4:2:0 frame.
FERRY_FRAME_FN void chroma_420(PixelFormat f, const FrameRef& r, int cx, int cy, int& u, int& v) {
  switch (f) {
    case PixelFormat::NV12: u = r.row(1, cy)[2 * cx], v = r.row(1, cy)[2 * cx + 1]; break;
    case PixelFormat::NV21: v = r.row(1, cy)[2 * cx], u = r.row(1, cy)[2 * cx + 1]; break;
    case PixelFormat::I420: u = r.row(1, cy)[cx], v = r.row(2, cy)[cx]; break;
    default: v = r.row(1, cy)[cx], u = r.row(2, cy)[cx]; break;  // YV12
  }
}

// U and V of chroma sample cx of row y of a 4:2:2 packed frame, and the luma of pixel x.
FERRY_FRAME_FN void chroma_422(PixelFormat f, const FrameRef& r, int cx, int y, int& u, int& v) {
  const std::uint8_t* m = r.row(0, y) + 4 * cx;
  if (f == PixelFormat::YUYV) u = m[1], v = m[3];
  else u = m[0], v = m[2];
}
FERRY_FRAME_FN int luma_422(PixelFormat f, const FrameRef& r, int x, int y) {
  const std::uint8_t* m = r.row(0, y) + 4 * (x >> 1);
  return f == PixelFormat::YUYV ? m[2 * (x & 1)] : m[1 + 2 * (x & 1)];
}

// Bayer: the colour (0 R, 1 G, 2 B) at (x, y), and a pixel with the frame reflected at its edges.
FERRY_FRAME_FN int bayer_colour(PixelFormat f, int x, int y) {
  const int site = ((y & 1) << 1) | (x & 1);
  switch (f) {
    case PixelFormat::BayerRGGB: return site == 0 ? 0 : site == 3 ? 2 : 1;
    case PixelFormat::BayerBGGR: return site == 0 ? 2 : site == 3 ? 0 : 1;
    case PixelFormat::BayerGRBG: return site == 1 ? 0 : site == 2 ? 2 : 1;
    default: return site == 1 ? 2 : site == 2 ? 0 : 1;  // GBRG
  }
}
FERRY_FRAME_FN int reflect(int i, int n) { return i < 0 ? -i : i >= n ? 2 * n - 2 - i : i; }
FERRY_FRAME_FN int bayer_at(const FrameRef& r, int x, int y) {
  return r.row(0, reflect(y, r.h))[reflect(x, r.w)];
}

FERRY_FRAME_FN void demosaic(PixelFormat f, const FrameRef& r, int x, int y, std::uint8_t* rgb) {
  const int own = bayer_colour(f, x, y);
  rgb[own] = static_cast<std::uint8_t>(bayer_at(r, x, y));
  if (own != 1) {
    const int cross = bayer_at(r, x - 1, y) + bayer_at(r, x + 1, y) + bayer_at(r, x, y - 1) + bayer_at(r, x, y + 1);
    const int diagonal = bayer_at(r, x - 1, y - 1) + bayer_at(r, x + 1, y - 1) + bayer_at(r, x - 1, y + 1) +
                         bayer_at(r, x + 1, y + 1);
    rgb[1] = static_cast<std::uint8_t>((cross + 2) >> 2);
    rgb[2 - own] = static_cast<std::uint8_t>((diagonal + 2) >> 2);
    return;
  }
  const int across = bayer_colour(f, x + 1, y), down = bayer_colour(f, x, y + 1);
  rgb[across] = static_cast<std::uint8_t>((bayer_at(r, x - 1, y) + bayer_at(r, x + 1, y) + 1) >> 1);
  rgb[down] = static_cast<std::uint8_t>((bayer_at(r, x, y - 1) + bayer_at(r, x, y + 1) + 1) >> 1);
}

// Pixel (x, y) of a frame as R, G, B.
FERRY_FRAME_FN void decode_pixel(const FrameDecode& d, const FrameRef& r, int x, int y, std::uint8_t* rgb) {
  const PixelFormat f = d.format;
  if (f >= PixelFormat::BayerRGGB) {
    demosaic(f, r, x, y, rgb);
    return;
  }
  const int cw = (r.w + 1) >> 1, cx = x >> 1;
  int u = 0, v = 0, luma = 0;
  if (f == PixelFormat::YUYV || f == PixelFormat::UYVY) {
    luma = luma_422(f, r, x, y);
    chroma_422(f, r, cx, y, u, v);
    if (d.chroma == ChromaFilter::Linear) {
      int u1 = u, v1 = v;
      if (x & 1) chroma_422(f, r, imin(cx + 1, cw - 1), y, u1, v1);
      u = (u + u1 + 1) >> 1, v = (v + v1 + 1) >> 1;
    }
  } else {
    luma = r.row(0, y)[x];
    const int cy = y >> 1;
    chroma_420(f, r, cx, cy, u, v);
    if (d.chroma == ChromaFilter::Linear) {
      // Chroma sits on the even columns and between the two rows: weights
      // 1/2 across (odd columns), 3/4 for the block's row and 1/4 for the
      // nearer other, edges repeated.
      const int ch = (r.h + 1) >> 1, nx = (x & 1) ? imin(cx + 1, cw - 1) : cx;
      const int ny = (y & 1) ? imin(cy + 1, ch - 1) : imax(cy - 1, 0);
      int u1, v1, u2, v2, u3, v3;
      chroma_420(f, r, nx, cy, u1, v1);
      chroma_420(f, r, cx, ny, u2, v2);
      chroma_420(f, r, nx, ny, u3, v3);
      u = (3 * (u + u1) + u2 + u3 + 4) >> 3;
      v = (3 * (v + v1) + v2 + v3 + 4) >> 3;
    }
  }
  yuv_to_rgb(d.color, luma, u, v, rgb);
}

}  // namespace ferry::core::frame
