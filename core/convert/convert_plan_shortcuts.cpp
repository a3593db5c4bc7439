// What a plan lets the converter skip: whole rows it may copy as runs, an
// output that is the source's bytes (a copy), frames' RGB bytes (decoded
// straight into it) or their RGB image (decoded at each tap). Part of
// ConvertPlan (convert_plan.h).
#include "core/convert/convert_plan.h"

namespace ferry::core {

bool ConvertPlan::full_width_unmirrored() const noexcept {
  if (resize || any_outside || mirror != 0) return false;
  for (std::uint8_t m : sample_mirror)
    if (m != 0) return false;
  if (out_w != w) return false;  // a narrower window skips columns
  if (sample_crop.empty()) return crop.x == 0;
  for (const Rect& r : sample_crop)
    if (r.x != 0) return false;
  return true;
}

namespace {

// uint8 output of the plan's c source channels as they are, in `layout`:
// in order, whole images (each sample the output's size), nothing mirrored,
// resized or padded, rows packed.
bool shows_pixels_unchanged(const ConvertPlan& p, Layout layout) noexcept {
  if (p.dtype != DType::UInt8 || p.resize || p.out_layout != layout) return false;
  if (p.out_channels != p.c || p.out_channels_total != p.c || !p.sample_crop.empty() || !p.sample_mirror.empty() ||
      p.mirror != 0)
    return false;
  for (int k = 0; k < p.c; ++k)
    if (p.channel_map[k] != k) return false;
  if (p.crop.x != 0 || p.crop.y != 0) return false;
  if (!p.variable_sizes() && (p.w != p.out_w || p.h != p.out_h)) return false;
  for (const SampleSource& s : p.sample_sources)
    if (s.w != p.out_w || s.h != p.out_h) return false;
  const bool nhwc = layout == Layout::NHWC;
  const std::int64_t pixel = nhwc ? p.c : 1, row = nhwc ? p.out_w * p.c : p.out_w, plane = nhwc ? 1 : p.out_h * p.out_w;
  return p.out_strides.w == pixel && p.out_strides.h == row && p.out_strides.c == plane;
}

}  // namespace

bool ConvertPlan::copies_bytes() const noexcept {
  return !is_frame() && !variable_sizes() && shows_pixels_unchanged(*this, source_layout) &&
         out_strides.n == h * w * c;
}

bool ConvertPlan::decodes_into_output() const noexcept {
  return is_frame() && c == 3 && shows_pixels_unchanged(*this, Layout::NHWC);
}

bool ConvertPlan::decodes_at_taps() const noexcept {
  const PixelFormat f = frame.format;
  const bool yuv420 =
      f == PixelFormat::NV12 || f == PixelFormat::NV21 || f == PixelFormat::I420 || f == PixelFormat::YV12;
  return yuv420 && frame.chroma == ChromaFilter::Nearest && resize && interpolation == Interpolation::Linear &&
         out_channels == 3;
}

}  // namespace ferry::core
