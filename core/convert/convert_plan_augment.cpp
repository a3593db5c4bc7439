// ConvertPlan's augmentation (transform.augment): each sample's parameters
// drawn (core/convert/augment.h), its crop turned into resize axes, its flip
// into the mirror, its colour and erase parameters into plan.sample_color.
#include <cstring>
#include <utility>

#include "core/convert/augment.h"
#include "core/convert/convert_plan_checks.h"
#include "core/error.h"

namespace ferry::core::plan_checks {
namespace {

// An axis that shows source pixels [start, start + length) 1:1, those outside
// [0, image) as 0 (RANDOM and CENTER crops, and colour on an unresized window).
ResizeAxis unscaled_axis(std::int64_t start, std::int64_t length, std::int64_t image) {
  const std::int64_t first = std::max<std::int64_t>(start, 0), last = std::min(start + length, image);
  ResizeAxis a;
  a.scale = 1.0f;
  if (last <= first) {  // the window lies in the padding alone
    a.origin = 0.0f, a.offset = static_cast<std::int32_t>(-length - 1), a.length = 0, a.lo = 0, a.hi = 0;
    return a;
  }
  a.origin = static_cast<float>(first);
  a.offset = static_cast<std::int32_t>(start - first);
  a.length = static_cast<std::int32_t>(last - first);
  a.lo = static_cast<std::int32_t>(first);
  a.hi = static_cast<std::int32_t>(last - 1);
  return a;
}

// Output pixels that show the sample's image (or a crop's zero padding).
std::int64_t shown(const ResizeAxis& a, std::int64_t out) {
  const std::int64_t first = std::max<std::int64_t>(0, -a.offset), last = std::min<std::int64_t>(out, a.length - a.offset);
  return last > first ? last - first : 0;
}

augment::SampleColor color_of(const ConvertPlan& plan, const Augment& a, const AugmentDraw& d, std::int64_t index,
                              const ResizeAxes& axes) {
  augment::SampleColor c;
  c.ops = d.ops;
  for (int i = 0; i < 4; ++i) {
    c.order[i] = d.order[i];
    if (i < d.ops && d.order[i] == kContrast) c.contrast_at = i;
  }
  for (int k = 0; k < 4; ++k) {
    c.factor[k] = d.factor[k];
    c.complement[k] = static_cast<float>(1.0 - static_cast<double>(d.factor[k]));
  }
  c.grayscale = d.grayscale ? 1 : 0;
  c.mean_count = plan.zero_outside ? plan.out_w * plan.out_h : shown(axes.x, plan.out_w) * shown(axes.y, plan.out_h);
  if (c.mean_count == 0) c.mean_count = 1;  // no pixel shows the image: the mean is 0
  if (d.erased) {
    c.erase_x0 = static_cast<std::int32_t>(d.erase.x), c.erase_y0 = static_cast<std::int32_t>(d.erase.y);
    c.erase_x1 = static_cast<std::int32_t>(d.erase.x + d.erase.w);
    c.erase_y1 = static_cast<std::int32_t>(d.erase.y + d.erase.h);
  }
  c.erase_random = a.erase_fill == EraseFill::Random ? 1 : 0;
  if (!c.erase_random)
    for (int k = 0; k < plan.out_channels; ++k)
      c.erase_bits[k] = value_bits(plan.dtype, a.erase_value[k], "augment.erase_value");
  c.seed = a.seed, c.step = a.step, c.index = static_cast<std::uint64_t>(index);
  return c;
}

}  // namespace

void check_augment_fields(ConvertPlan& plan, const Transform& t) {
  if (!t.has_augment) return;
  const Augment& a = t.augment;
  check_augment(a);
  const bool colours = a.colours();
  FERRY_EXPECT(!colours || plan.out_channels == 3, Status::InvalidArgument, "transform.out_channels maps ",
               plan.out_channels, " channels: augment's colour operations need 3 (R, G, B)");
  if (a.crop != AugmentCrop::None) {
    FERRY_EXPECT(plan.resize, Status::InvalidArgument, "augment.crop is ", static_cast<int>(a.crop),
                 ": a crop needs the output size in transform.resize_w and resize_h");
    FERRY_EXPECT(t.resize_mode == ResizeMode::Stretch, Status::InvalidArgument, "transform.resize_mode is ",
                 static_cast<int>(t.resize_mode), ": augment.crop draws the window, so the mode must be STRETCH");
    const bool windows = t.per_sample_window || t.per_sample_crop || t.window.w != 0 || t.window.h != 0 ||
                         t.crop.w != 0 || t.crop.h != 0;
    FERRY_EXPECT(!windows, Status::InvalidArgument,
                 "transform.crop or window is set: augment.crop draws each sample's window, so set only one");
  }
  FERRY_EXPECT(!plan.any_outside || plan.resize, Status::Unsupported,
               "transform.pad_outside windows reach outside the image: not with augment; use augment.crop "
               "FERRY_AUGMENT_CROP_RANDOM with padding");
  plan.zero_outside = a.crop == AugmentCrop::Random || a.crop == AugmentCrop::Center;
  // Those crops are the output's size: every axis unscaled, every tap exact.
  // Nearest reads one tap where linear would read four with weights 1 and 0
  // (the same values: a uint8 times 0 adds nothing).
  if (plan.zero_outside) plan.interpolation = Interpolation::Nearest;
  const bool per_pixel = colours || a.erase_probability > 0.0f;
  // Such crops with nothing per pixel (RandomCrop + flips, CIFAR's recipe) are
  // plain windows, mirrored, reaching into the zero padding: the window
  // kernels, which take the padding as pixels of value 0 (zero_outside), not
  // the resample kernel. Samples of different sizes stay on the resample path.
  const bool window_crops = plan.zero_outside && !per_pixel && !plan.variable_sizes();
  const bool caller_tables = !plan.sample_crop.empty() || !plan.sample_mirror.empty();
  if (!per_pixel && !plan.variable_sizes() && !caller_tables &&
      (window_crops || (a.crop == AugmentCrop::None && !plan.resize)))
    plan.window_draws = ConvertPlan::WindowDraws{true,    a.crop, a.padding, a.flip_x_probability, a.flip_y_probability,
                                                 a.seed, a.step, a.first_index};
  if (window_crops) {
    plan.resize = false;
    plan.sample_resize.clear();
    plan.sample_crop.assign(static_cast<std::size_t>(plan.n), Rect{});
    plan.pad_outside = true;
  } else if (!plan.resize && (per_pixel || a.crop != AugmentCrop::None)) {
    // Colour on an unresized window: the resample path at scale 1 (every tap exact).
    plan.resize = true;
    plan.interpolation = Interpolation::Nearest;
    plan.sample_resize.resize(static_cast<std::size_t>(plan.n));
    for (std::int64_t g = 0; g < plan.n; ++g) {
      const Rect w = plan.window_of(g);
      plan.sample_resize[static_cast<std::size_t>(g)] =
          ResizeAxes{unscaled_axis(w.x, w.w, plan.w_of(g)), unscaled_axis(w.y, w.h, plan.h_of(g))};
    }
  }
  // The draws are kept only to be reported (augment.report).
  std::vector<AugmentDraw> reported(a.report != nullptr ? static_cast<std::size_t>(plan.n) : 0);
  if (plan.sample_mirror.empty()) plan.sample_mirror.assign(static_cast<std::size_t>(plan.n), static_cast<std::uint8_t>(plan.mirror));
  if (per_pixel) plan.sample_color.resize(static_cast<std::size_t>(plan.n));
  Transform fitted = t;
  fitted.augment = Augment{};
  for (std::int64_t g = 0; g < plan.n; ++g) {
    const std::int64_t index = a.first_index + g;
    const std::int64_t image_w = plan.w_of(g), image_h = plan.h_of(g);
    AugmentDraw d = draw_augment(a, g, image_w, image_h, plan.out_w, plan.out_h);
    // Only flips on an unresized window: no axes (the fast kernels take the mirror).
    ResizeAxes unresized;
    ResizeAxes& axes = plan.resize ? plan.sample_resize[static_cast<std::size_t>(g)] : unresized;
    switch (a.crop) {
      case AugmentCrop::None: {
        const Rect w = plan.window_of(g);
        d.crop = w.w > 0 ? w : Rect{0, 0, image_w, image_h};
        break;
      }
      case AugmentCrop::RandomResized: {
        const RectF win{static_cast<float>(d.crop.x), static_cast<float>(d.crop.y), static_cast<float>(d.crop.w),
                        static_cast<float>(d.crop.h)};
        axes = resize_axes_of(win, fitted);
        break;
      }
      case AugmentCrop::Random:
      case AugmentCrop::Center:
        if (window_crops) {
          plan.sample_crop[static_cast<std::size_t>(g)] = d.crop;
          plan.any_outside |= d.crop.x < 0 || d.crop.y < 0 || d.crop.x + d.crop.w > image_w ||
                              d.crop.y + d.crop.h > image_h;
          break;
        }
        axes = ResizeAxes{unscaled_axis(d.crop.x, d.crop.w, image_w), unscaled_axis(d.crop.y, d.crop.h, image_h)};
        break;
    }
    plan.sample_mirror[static_cast<std::size_t>(g)] ^= static_cast<std::uint8_t>(d.flip);
    if (per_pixel) {
      augment::SampleColor& c = plan.sample_color[static_cast<std::size_t>(g)];
      c = color_of(plan, a, d, index, axes);
      plan.contrast_mean = plan.contrast_mean || c.contrast_at >= 0;
    }
    if (a.report != nullptr) reported[static_cast<std::size_t>(g)] = d;
  }
  if (a.report != nullptr) plan.pending_draws = std::move(reported);  // reported once the whole plan is valid
}

}  // namespace ferry::core::plan_checks
