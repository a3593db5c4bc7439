// ferry_augment in the C ABI: its defaults, its reading into core's Augment
// (with the report that writes `drawn`), and ferry_augment_draw.
#include <algorithm>
#include <cstring>
#include <vector>

#include "c_api/api_guard.h"
#include "c_api/augment_convert.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/convert/augment.h"
#include "ferry/augment.h"

using namespace ferry;

namespace ferry::api {
namespace {

ferry_augment_params params_of(const core::AugmentDraw& d) {
  ferry_augment_params p;
  std::memset(static_cast<void*>(&p), 0, sizeof p);
  p.crop = ferry_rect{d.crop.x, d.crop.y, d.crop.w, d.crop.h};
  p.flip = d.flip;
  p.grayscale = d.grayscale ? 1 : 0;
  p.brightness = d.factor[0], p.contrast = d.factor[1], p.saturation = d.factor[2], p.hue = d.factor[3];
  std::copy(d.order, d.order + 4, p.jitter_order);
  p.erased = d.erased ? 1 : 0;
  p.erase = d.erased ? ferry_rect{d.erase.x, d.erase.y, d.erase.w, d.erase.h} : ferry_rect{0, 0, 0, 0};
  return p;
}

// Writes n draws `stride` bytes apart (as much of each entry as the stride holds).
void write_draws(ferry_augment_params* out, std::size_t stride, const core::AugmentDraw* draws, std::int64_t n) {
  if (stride == 0) stride = sizeof(ferry_augment_params);
  auto* bytes = reinterpret_cast<unsigned char*>(out);
  for (std::int64_t i = 0; i < n; ++i) {
    const ferry_augment_params p = params_of(draws[i]);
    std::memcpy(bytes + static_cast<std::size_t>(i) * stride, &p, std::min(stride, sizeof p));
  }
}

// core::Augment::report for a caller's `drawn` array; `user` is its ferry_augment.
void report_drawn(void* user, const core::AugmentDraw* draws, std::int64_t n) {
  const auto* a = static_cast<const ferry_augment*>(user);
  write_draws(a->drawn, a->drawn_stride, draws, n);
}

ferry_augment to_c(const core::Augment& d) {
  ferry_augment a;
  std::memset(static_cast<void*>(&a), 0, sizeof a);
  a.struct_size = sizeof a;
  a.seed = d.seed, a.step = d.step, a.first_index = d.first_index;
  a.crop = static_cast<ferry_augment_crop>(d.crop);
  std::copy(d.scale, d.scale + 2, a.scale);
  std::copy(d.ratio, d.ratio + 2, a.ratio);
  a.padding = d.padding;
  a.flip_x_probability = d.flip_x_probability, a.flip_y_probability = d.flip_y_probability;
  std::copy(d.brightness, d.brightness + 2, a.brightness);
  std::copy(d.contrast, d.contrast + 2, a.contrast);
  std::copy(d.saturation, d.saturation + 2, a.saturation);
  std::copy(d.hue, d.hue + 2, a.hue);
  a.grayscale_probability = d.grayscale_probability;
  a.erase_probability = d.erase_probability;
  std::copy(d.erase_scale, d.erase_scale + 2, a.erase_scale);
  std::copy(d.erase_ratio, d.erase_ratio + 2, a.erase_ratio);
  a.erase_fill = static_cast<ferry_erase_fill>(d.erase_fill);
  std::copy(d.erase_value, d.erase_value + 4, a.erase_value);
  return a;
}

core::Augment to_core(const ferry_augment& a) {
  core::Augment d;
  d.seed = a.seed, d.step = a.step, d.first_index = a.first_index;
  d.crop = static_cast<core::AugmentCrop>(enum_field_value(a.crop));
  std::copy(a.scale, a.scale + 2, d.scale);
  std::copy(a.ratio, a.ratio + 2, d.ratio);
  d.padding = a.padding;
  d.flip_x_probability = a.flip_x_probability, d.flip_y_probability = a.flip_y_probability;
  std::copy(a.brightness, a.brightness + 2, d.brightness);
  std::copy(a.contrast, a.contrast + 2, d.contrast);
  std::copy(a.saturation, a.saturation + 2, d.saturation);
  std::copy(a.hue, a.hue + 2, d.hue);
  d.grayscale_probability = a.grayscale_probability;
  d.erase_probability = a.erase_probability;
  std::copy(a.erase_scale, a.erase_scale + 2, d.erase_scale);
  std::copy(a.erase_ratio, a.erase_ratio + 2, d.erase_ratio);
  d.erase_fill = static_cast<core::EraseFill>(enum_field_value(a.erase_fill));
  std::copy(a.erase_value, a.erase_value + 4, d.erase_value);
  return d;
}

const ferry_augment& augment_defaults() {
  static const ferry_augment defaults = to_c(core::Augment{});
  return defaults;
}

}  // namespace

void read_augment(const ferry_augment* in, core::Transform& out) {
  if (in == nullptr) return;
  const ferry_augment a = read_struct(in, "transform.augment", augment_defaults());
  out.has_augment = true;
  out.augment = to_core(a);
  if (a.drawn != nullptr) {
    FERRY_EXPECT(a.drawn_stride == 0 || a.drawn_stride >= sizeof(ferry_rect), Status::InvalidArgument,
                 "transform.augment->drawn_stride is ", a.drawn_stride, ": 0 or at least ", sizeof(ferry_rect));
    out.augment.report = report_drawn;
    out.augment.report_user = const_cast<ferry_augment*>(in);
  }
}

}  // namespace ferry::api

extern "C" {

FERRY_API ferry_status ferry_augment_init(ferry_augment* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::augment_defaults(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_augment_draw(const ferry_augment* augment, int64_t n, const int64_t* h, const int64_t* w,
                                          int64_t out_w, int64_t out_h, ferry_augment_params* out, size_t out_stride) {
  FERRY_API_BEGIN
  api::require(augment, "augment");
  FERRY_EXPECT(n >= 0, Status::InvalidArgument, "n is ", n, ": expected n >= 0");
  FERRY_EXPECT(n == 0 || (h != nullptr && w != nullptr && out != nullptr), Status::InvalidArgument,
               "h, w and out must be non-NULL for n = ", n);
  FERRY_EXPECT(out_w > 0 && out_h > 0 && out_w <= (std::int64_t{1} << 30) && out_h <= (std::int64_t{1} << 30),
               Status::InvalidArgument, "out_w x out_h is ", out_w, "x", out_h, ": expected 1 .. 2^30 each");
  FERRY_EXPECT(out_stride == 0 || out_stride >= sizeof(ferry_rect), Status::InvalidArgument, "out_stride is ",
               out_stride, ": 0 or at least ", sizeof(ferry_rect));
  core::Transform holder;
  api::read_augment(augment, holder);
  core::check_augment(holder.augment);
  std::vector<core::AugmentDraw> draws(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    FERRY_EXPECT(h[i] > 0 && w[i] > 0 && h[i] <= (std::int64_t{1} << 30) && w[i] <= (std::int64_t{1} << 30),
                 Status::InvalidArgument, "h[", i, "] x w[", i, "] is ", h[i], "x", w[i], ": expected 1 .. 2^30 each");
    draws[static_cast<std::size_t>(i)] =
        core::draw_augment(holder.augment, i, w[i], h[i], out_w, out_h);
  }
  api::write_draws(out, out_stride, draws.data(), n);
  FERRY_API_END
}

}  // extern "C"
