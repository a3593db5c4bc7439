// Camera and video frames (ferry_source.format) for the tests: random frames
// of every format, packed in one buffer, with padded pitches, or with their
// planes apart; and a reference decoder written from the standards'
// coefficients in double (include/ferry/pixel_format.h's definitions, not its
// fixed-point form). Shared by the CPU tests (tests/c_abi/frame_formats_test.cpp)
// and the GPU tests against the CPU backend (tests/gpu/frame_gpu_test.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ferry/ferry.h"

namespace ferry::test {

inline const ferry_pixel_format all_frame_formats[] = {
    FERRY_FORMAT_NV12,       FERRY_FORMAT_NV21,       FERRY_FORMAT_I420,       FERRY_FORMAT_YV12,
    FERRY_FORMAT_YUYV,       FERRY_FORMAT_UYVY,       FERRY_FORMAT_BAYER_RGGB, FERRY_FORMAT_BAYER_BGGR,
    FERRY_FORMAT_BAYER_GRBG, FERRY_FORMAT_BAYER_GBRG};

inline bool is_bayer(ferry_pixel_format f) { return f >= FERRY_FORMAT_BAYER_RGGB; }
inline bool is_422(ferry_pixel_format f) { return f == FERRY_FORMAT_YUYV || f == FERRY_FORMAT_UYVY; }

// How a test frame's planes lie in its buffer.
enum class PlaneLayout { packed, padded, apart };

struct FramePlane {
  std::int64_t offset = 0, rows = 0, row_bytes = 0, pitch = 0;
};

// One frame: its bytes and its planes' places in them.
struct TestFrame {
  ferry_pixel_format format = FERRY_FORMAT_NV12;
  std::int64_t h = 0, w = 0;
  std::vector<std::uint8_t> bytes;
  std::vector<FramePlane> planes;
  bool explicit_offsets = false;  // the planes apart: the source gives plane_offset

  const std::uint8_t* at(int p, std::int64_t y, std::int64_t x) const {
    return bytes.data() + planes[p].offset + y * planes[p].pitch + x;
  }
};

// The planes' rows and row bytes of a w x h frame (pixel_format.h).
inline std::vector<FramePlane> plane_shapes(ferry_pixel_format f, std::int64_t h, std::int64_t w) {
  const std::int64_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (f == FERRY_FORMAT_NV12 || f == FERRY_FORMAT_NV21) return {{0, h, w, 0}, {0, ch, 2 * cw, 0}};
  if (f == FERRY_FORMAT_I420 || f == FERRY_FORMAT_YV12) return {{0, h, w, 0}, {0, ch, cw, 0}, {0, ch, cw, 0}};
  if (is_422(f)) return {{0, h, 4 * cw, 0}};
  return {{0, h, w, 0}};
}

// A random frame. packed: planes back to back, pitch = row; padded: plane 0's
// pitch padded (the chroma pitches their defaults from it); apart: every plane
// at a gap from the last, plane 0 too, each with its own padded pitch.
inline TestFrame random_frame(std::mt19937& rng, ferry_pixel_format f, std::int64_t h, std::int64_t w,
                              PlaneLayout layout) {
  TestFrame t;
  t.format = f, t.h = h, t.w = w;
  t.planes = plane_shapes(f, h, w);
  std::int64_t at = 0;
  for (std::size_t p = 0; p < t.planes.size(); ++p) {
    FramePlane& pl = t.planes[p];
    if (layout == PlaneLayout::apart) {
      at += 3 + static_cast<std::int64_t>(p) * 5;
      pl.pitch = pl.row_bytes + 1 + static_cast<std::int64_t>(p);
    } else if (layout == PlaneLayout::padded) {
      const std::int64_t pitch0 = t.planes[0].row_bytes + 6;
      pl.pitch = p == 0 ? pitch0
                        : std::max(pl.row_bytes, t.planes.size() == 2 ? pitch0 : (pitch0 + 1) / 2);
    } else {
      pl.pitch = pl.row_bytes;
    }
    pl.offset = at;
    at += pl.rows * pl.pitch;
  }
  t.explicit_offsets = layout == PlaneLayout::apart;
  t.bytes.resize(static_cast<std::size_t>(at));
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& b : t.bytes) b = static_cast<std::uint8_t>(byte(rng));
  return t;
}

// The source of one frame (n = 1): format and planes set, the rest default.
inline ferry_source frame_source(const TestFrame& t) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.format = t.format;
  s.data = t.bytes.data(), s.bytes = t.bytes.size();
  s.n = 1, s.h = t.h, s.w = t.w;
  for (std::size_t p = 0; p < t.planes.size(); ++p) {
    s.plane_pitch[p] = t.planes[p].pitch;
    if (t.explicit_offsets) s.plane_offset[p] = t.planes[p].offset;
  }
  return s;
}

// Frames of different sizes (source.sample_descs): each frame's description
// (its plane 0 pitch as stride_h, the planes following one another), and the
// source of them all.
inline std::vector<ferry_sample_desc> frame_descs(const std::vector<TestFrame>& frames) {
  std::vector<ferry_sample_desc> descs;
  for (const TestFrame& fr : frames) {
    ferry_sample_desc d{};
    d.data = fr.bytes.data(), d.bytes = fr.bytes.size(), d.h = fr.h, d.w = fr.w;
    d.stride_h = fr.planes[0].pitch;
    descs.push_back(d);
  }
  return descs;
}
inline ferry_source frames_source(ferry_pixel_format f, const std::vector<ferry_sample_desc>& descs) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.format = f;
  s.n = static_cast<std::int64_t>(descs.size());
  s.sample_descs = descs.data();
  return s;
}

// The decoded frame as it is: uint8 R, G, B interleaved.
inline ferry_transform rgb_u8_transform() {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_UINT8;
  t.out_layout = FERRY_LAYOUT_NHWC;
  return t;
}

struct ColorOptions {
  ferry_color_matrix matrix = FERRY_COLOR_BT601;
  ferry_color_range range = FERRY_RANGE_LIMITED;
  ferry_chroma_filter chroma = FERRY_CHROMA_NEAREST;
};

inline double round_half_up(double v) { return std::floor(v + 0.5); }
inline int clamp_index(std::int64_t i, std::int64_t n) { return static_cast<int>(std::min(std::max<std::int64_t>(i, 0), n - 1)); }

// The frame's R, G, B as doubles (h x w x 3), from the standards' coefficients.
inline std::vector<double> reference_rgb(const TestFrame& t, const ColorOptions& o) {
  const std::int64_t h = t.h, w = t.w, cw = (w + 1) / 2, ch = (h + 1) / 2;
  std::vector<double> out(static_cast<std::size_t>(h * w * 3));
  const ferry_pixel_format f = t.format;
  if (is_bayer(f)) {
    // Colour of a site: 0 R, 1 G, 2 B, from the 2x2 tile's pattern.
    const int tiles[4][4] = {{0, 1, 1, 2}, {2, 1, 1, 0}, {1, 0, 2, 1}, {1, 2, 0, 1}};
    const int* tile = tiles[f - FERRY_FORMAT_BAYER_RGGB];
    auto colour = [&](std::int64_t x, std::int64_t y) { return tile[((y & 1) << 1) | (x & 1)]; };
    auto reflect = [](std::int64_t i, std::int64_t n) { return i < 0 ? -i : i >= n ? 2 * n - 2 - i : i; };
    auto pixel = [&](std::int64_t x, std::int64_t y) { return static_cast<double>(*t.at(0, reflect(y, h), reflect(x, w))); };
    const int straight[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}}, diagonal[4][2] = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    for (std::int64_t y = 0; y < h; ++y)
      for (std::int64_t x = 0; x < w; ++x)
        for (int k = 0; k < 3; ++k) {
          // Colour k: the pixel's own, else the mean of its straight neighbours of that colour, else of its diagonal ones.
          double value = pixel(x, y);
          if (colour(x, y) != k) {
            double sum = 0;
            int count = 0;
            for (const auto* ring : {straight, diagonal}) {
              if (count != 0) break;
              for (int d = 0; d < 4; ++d)
                if (colour(x + ring[d][0], y + ring[d][1]) == k) sum += pixel(x + ring[d][0], y + ring[d][1]), ++count;
            }
            value = round_half_up(sum / count);
          }
          out[static_cast<std::size_t>((y * w + x) * 3 + k)] = value;
        }
    return out;
  }
  double kr = 0.299, kb = 0.114;
  if (o.matrix == FERRY_COLOR_BT709) kr = 0.2126, kb = 0.0722;
  if (o.matrix == FERRY_COLOR_BT2020) kr = 0.2627, kb = 0.0593;
  const double kg = 1 - kr - kb;
  const bool limited = o.range == FERRY_RANGE_LIMITED;
  const double ys = limited ? 255.0 / 219.0 : 1.0, cs = limited ? 255.0 / 224.0 : 1.0, yo = limited ? 16 : 0;
  auto chroma = [&](std::int64_t cx, std::int64_t cy, std::int64_t row, double& u, double& v) {
    switch (f) {
      case FERRY_FORMAT_NV12: u = *t.at(1, cy, 2 * cx), v = *t.at(1, cy, 2 * cx + 1); break;
      case FERRY_FORMAT_NV21: v = *t.at(1, cy, 2 * cx), u = *t.at(1, cy, 2 * cx + 1); break;
      case FERRY_FORMAT_I420: u = *t.at(1, cy, cx), v = *t.at(2, cy, cx); break;
      case FERRY_FORMAT_YV12: v = *t.at(1, cy, cx), u = *t.at(2, cy, cx); break;
      case FERRY_FORMAT_YUYV: u = *t.at(0, row, 4 * cx + 1), v = *t.at(0, row, 4 * cx + 3); break;
      default: u = *t.at(0, row, 4 * cx), v = *t.at(0, row, 4 * cx + 2); break;  // UYVY
    }
  };
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x) {
      double Y = 0;
      if (f == FERRY_FORMAT_YUYV) Y = *t.at(0, y, 4 * (x / 2) + 2 * (x & 1));
      else if (f == FERRY_FORMAT_UYVY) Y = *t.at(0, y, 4 * (x / 2) + 1 + 2 * (x & 1));
      else Y = *t.at(0, y, x);
      double u = 0, v = 0;
      if (o.chroma == FERRY_CHROMA_NEAREST) {
        chroma(x / 2, y / 2, y, u, v);
      } else if (is_422(f)) {
        // Chroma on the even columns: an odd column is halfway to the next sample.
        double u0, v0, u1, v1;
        chroma(x / 2, 0, y, u0, v0);
        chroma(clamp_index(x / 2 + (x & 1), cw), 0, y, u1, v1);
        u = round_half_up((u0 + u1) / 2), v = round_half_up((v0 + v1) / 2);
      } else {
        // Chroma sample (i, j) sits at luma (2i, 2j + 0.5): bilinear in those coordinates, edges repeated.
        const double px = static_cast<double>(x) / 2.0, py = (static_cast<double>(y) - 0.5) / 2.0;
        const std::int64_t x0 = static_cast<std::int64_t>(std::floor(px)), y0 = static_cast<std::int64_t>(std::floor(py));
        const double fx = px - static_cast<double>(x0), fy = py - static_cast<double>(y0);
        double su = 0, sv = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) {
            double cu, cv;
            chroma(clamp_index(x0 + dx, cw), clamp_index(y0 + dy, ch), 0, cu, cv);
            const double weight = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy);
            su += weight * cu, sv += weight * cv;
          }
        u = round_half_up(su), v = round_half_up(sv);
      }
      const double luma = ys * std::max(0.0, Y - yo), cu = cs * (u - 128), cv = cs * (v - 128);
      const double rgb[3] = {luma + 2 * (1 - kr) * cv, luma - 2 * kb * (1 - kb) / kg * cu - 2 * kr * (1 - kr) / kg * cv,
                             luma + 2 * (1 - kb) * cu};
      for (int k = 0; k < 3; ++k)
        out[static_cast<std::size_t>((y * w + x) * 3 + k)] = std::min(255.0, std::max(0.0, rgb[k]));
    }
  return out;
}

}  // namespace ferry::test
