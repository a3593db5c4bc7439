#include "core/convert/frame_format.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/checked_math.h"
#include "core/enum_field.h"
#include "core/error.h"

namespace ferry::core {
namespace {

// The planes of a w x h frame: their rows and row bytes (pixel_format.h).
FramePlanes plane_shapes(PixelFormat f, std::int64_t h, std::int64_t w) {
  const std::int64_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  FramePlanes p;
  auto add = [&](std::int64_t rows, std::int64_t row_bytes) {
    p.plane[p.count].rows = rows;
    p.plane[p.count].row_bytes = row_bytes;
    ++p.count;
  };
  switch (f) {
    case PixelFormat::NV12:
    case PixelFormat::NV21: add(h, w), add(ch, 2 * cw); break;
    case PixelFormat::I420:
    case PixelFormat::YV12: add(h, w), add(ch, cw), add(ch, cw); break;
    case PixelFormat::YUYV:
    case PixelFormat::UYVY: add(h, 4 * cw); break;
    default: add(h, w); break;  // Bayer
  }
  return p;
}

const char* plane_name(PixelFormat f, int p) {
  switch (f) {
    case PixelFormat::NV12: return p == 0 ? "Y" : "UV";
    case PixelFormat::NV21: return p == 0 ? "Y" : "VU";
    case PixelFormat::I420: return p == 0 ? "Y" : p == 1 ? "U" : "V";
    case PixelFormat::YV12: return p == 0 ? "Y" : p == 1 ? "V" : "U";
    case PixelFormat::YUYV:
    case PixelFormat::UYVY: return "packed YUV";
    default: return "Bayer";
  }
}

std::uint64_t end_of(const PlaneRows& r) {
  const std::uint64_t last_row = checked_mul(static_cast<std::uint64_t>(r.rows - 1),
                                             static_cast<std::uint64_t>(r.pitch), "frame plane extent");
  return checked_add(checked_add(static_cast<std::uint64_t>(r.offset), last_row, "frame plane extent"),
                     static_cast<std::uint64_t>(r.row_bytes), "frame plane extent");
}

}  // namespace

FrameDecode checked_frame_decode(const SourceDesc& s) {
  FrameDecode d;
  d.format = checked_enum_field(
      s.format,
      {PixelFormat::Channels, PixelFormat::NV12, PixelFormat::NV21, PixelFormat::I420, PixelFormat::YV12,
       PixelFormat::YUYV, PixelFormat::UYVY, PixelFormat::BayerRGGB, PixelFormat::BayerBGGR, PixelFormat::BayerGRBG,
       PixelFormat::BayerGBRG},
      "source.format", "a ferry_pixel_format, FERRY_FORMAT_CHANNELS (0) to FERRY_FORMAT_BAYER_GBRG (10)");
  const ColorMatrix m = checked_enum_field(s.color_matrix, {ColorMatrix::BT601, ColorMatrix::BT709, ColorMatrix::BT2020},
                                           "source.color_matrix",
                                           "FERRY_COLOR_BT601 (0), FERRY_COLOR_BT709 (1) or FERRY_COLOR_BT2020 (2)");
  const ColorRange r = checked_enum_field(s.color_range, {ColorRange::Limited, ColorRange::Full}, "source.color_range",
                                          "FERRY_RANGE_LIMITED (0) or FERRY_RANGE_FULL (1)");
  d.chroma = checked_enum_field(s.chroma_filter, {ChromaFilter::Nearest, ChromaFilter::Linear}, "source.chroma_filter",
                                "FERRY_CHROMA_NEAREST (0) or FERRY_CHROMA_LINEAR (1)");
  d.color = color_coefficients(m, r);
  return d;
}

FramePlanes frame_planes_of(PixelFormat f, std::int64_t h, std::int64_t w, const std::int64_t offset[3],
                            const std::int64_t pitch[3], const char* where) {
  const bool bayer = f >= PixelFormat::BayerRGGB;
  FERRY_EXPECT(!bayer || (h >= 2 && w >= 2), Status::InvalidArgument, where, " is a ", w, "x", h,
               " Bayer frame: demosaicing needs at least 2x2 pixels");
  FramePlanes p = plane_shapes(f, h, w);
  const bool explicit_offsets = offset[0] != 0 || offset[1] != 0 || offset[2] != 0;
  for (int k = p.count; k < 3; ++k) {
    FERRY_EXPECT(offset[k] == 0 && pitch[k] == 0, Status::InvalidArgument, where, ".plane_offset/plane_pitch[", k,
                 "] is ", offset[k], "/", pitch[k], ": the format has ", p.count, p.count == 1 ? " plane" : " planes",
                 "; leave the others 0");
  }
  std::uint64_t next = 0;  // where a default plane starts: after the previous one
  for (int k = 0; k < p.count; ++k) {
    PlaneRows& r = p.plane[k];
    if (pitch[k] != 0) {
      r.pitch = pitch[k];
    } else if (k == 0) {
      r.pitch = r.row_bytes;
    } else {
      const std::int64_t luma = p.plane[0].pitch;
      r.pitch = std::max(r.row_bytes, p.count == 2 ? luma : (luma + 1) / 2);
    }
    FERRY_EXPECT(r.pitch >= r.row_bytes, Status::InvalidArgument, where, ".plane_pitch[", k, "] is ", r.pitch,
                 ": the ", plane_name(f, k), " plane's rows are ", r.row_bytes, " bytes");
    FERRY_EXPECT(offset[k] >= 0, Status::InvalidArgument, where, ".plane_offset[", k, "] is ", offset[k],
                 ": planes lie at or after the frame's start");
    r.offset = explicit_offsets ? offset[k] : static_cast<std::int64_t>(next);
    const std::uint64_t end = end_of(r);
    next = checked_add(static_cast<std::uint64_t>(r.offset),
                       checked_mul(static_cast<std::uint64_t>(r.rows), static_cast<std::uint64_t>(r.pitch), "frame"),
                       "frame");
    p.extent = std::max(p.extent, end);
  }
  return p;
}

FramePlanes packed_frame_planes(PixelFormat f, std::int64_t h, std::int64_t w) {
  FramePlanes p = plane_shapes(f, h, w);
  std::int64_t at = 0;
  for (int k = 0; k < p.count; ++k) {
    p.plane[k].pitch = p.plane[k].row_bytes;
    p.plane[k].offset = at;
    at += p.plane[k].rows * p.plane[k].row_bytes;
  }
  p.extent = static_cast<std::uint64_t>(at);
  return p;
}

ColorCoefficients color_coefficients(ColorMatrix m, ColorRange r) {
  double kr = 0.299, kb = 0.114;
  if (m == ColorMatrix::BT709) kr = 0.2126, kb = 0.0722;
  if (m == ColorMatrix::BT2020) kr = 0.2627, kb = 0.0593;
  const bool limited = r == ColorRange::Limited;
  const double ys = limited ? 255.0 / 219.0 : 1.0, cs = limited ? 255.0 / 224.0 : 1.0, kg = 1.0 - kr - kb;
  auto fixed = [](double v) { return static_cast<std::int32_t>(std::lround(v * (1 << 20))); };
  ColorCoefficients c;
  c.cy = fixed(ys);
  c.crv = fixed(2.0 * cs * (1.0 - kr));
  c.cgu = fixed(-2.0 * cs * kb * (1.0 - kb) / kg);
  c.cgv = fixed(-2.0 * cs * kr * (1.0 - kr) / kg);
  c.cbu = fixed(2.0 * cs * (1.0 - kb));
  c.y_offset = limited ? 16 : 0;
  return c;
}

}  // namespace ferry::core
