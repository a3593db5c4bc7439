// Camera and video frames (ferry_source.format): where a frame's planes are,
// validated from the caller's offsets and pitches, and the fixed-point colour
// coefficients of a matrix and range. include/ferry/pixel_format.h defines
// every format and the arithmetic. Pure C++.
#pragma once

#include <cstdint>

#include "core/convert/descriptors.h"

namespace ferry::core {

// One plane of a frame: `rows` rows of `row_bytes` bytes, `pitch` bytes
// apart, starting `offset` bytes from the frame's start.
struct PlaneRows {
  std::int64_t offset = 0, rows = 0, row_bytes = 0, pitch = 0;
};

// A frame's planes (count 0: not a frame), and the bytes from its start to
// the end of its farthest plane row.
struct FramePlanes {
  int count = 0;
  PlaneRows plane[3];
  std::uint64_t extent = 0;
};

// YUV to RGB in 20-bit fixed point (pixel_format.h): R = sat((y' + crv v +
// 2^19) >> 20) and so on, y' = max(0, Y - y_offset) * cy.
struct ColorCoefficients {
  std::int32_t cy = 0, crv = 0, cgu = 0, cgv = 0, cbu = 0, y_offset = 0;
};

// How the converter decodes the plan's frames (format Channels: no frames).
struct FrameDecode {
  PixelFormat format = PixelFormat::Channels;
  ChromaFilter chroma = ChromaFilter::Nearest;
  ColorCoefficients color;
};

inline bool is_frame_format(PixelFormat f) noexcept { return f != PixelFormat::Channels; }

// The validated format enum fields of a source (Status::InvalidArgument naming the field).
FrameDecode checked_frame_decode(const SourceDesc& s);

// A w x h frame's planes from the caller's plane_offset and plane_pitch (0s:
// the defaults of pixel_format.h), checked: Status::InvalidArgument naming
// `where`'s field ("source.plane_pitch[1]") and the plane.
FramePlanes frame_planes_of(PixelFormat f, std::int64_t h, std::int64_t w, const std::int64_t offset[3],
                            const std::int64_t pitch[3], const char* where);

// The same frame packed: planes back to back, each row's bytes only (how the
// stager sends a frame over the bus).
FramePlanes packed_frame_planes(PixelFormat f, std::int64_t h, std::int64_t w);

ColorCoefficients color_coefficients(ColorMatrix m, ColorRange r);

}  // namespace ferry::core
