// ConvertPlan::sample_resize: each sample's axes are the ones resize_axes_of
// gives for its window, whether the plan works them out once (samples of one
// size with one window between them) or per sample (windows of their own).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/convert/convert_plan.h"
#include "core/convert/resize_geometry.h"

namespace {

using ferry::core::ConvertPlan;
using ferry::core::Rect;
using ferry::core::RectF;
using ferry::core::ResizeAxes;
using ferry::core::ResizeAxis;
using ferry::core::ResizeMode;
using ferry::core::Transform;

constexpr std::int64_t kN = 5, kH = 300, kW = 500;

ConvertPlan plan_of(const Transform& t) {
  static std::vector<std::uint8_t> images(static_cast<std::size_t>(kN * kH * kW * 3));
  ferry::core::SourceDesc source;
  source.data = images.data();
  source.bytes = images.size();
  source.n = kN, source.h = kH, source.w = kW, source.c = 3;
  return ferry::core::make_convert_plan(source, t, nullptr);
}

void expect_axis(const ResizeAxis& have, const ResizeAxis& want, std::int64_t sample) {
  EXPECT_EQ(have.origin, want.origin) << "sample " << sample;
  EXPECT_EQ(have.scale, want.scale) << "sample " << sample;
  EXPECT_EQ(have.offset, want.offset) << "sample " << sample;
  EXPECT_EQ(have.length, want.length) << "sample " << sample;
  EXPECT_EQ(have.lo, want.lo) << "sample " << sample;
  EXPECT_EQ(have.hi, want.hi) << "sample " << sample;
}

void expect_axes(const ConvertPlan& plan, std::int64_t sample, const RectF& window, const Transform& t) {
  const ResizeAxes want = ferry::core::resize_axes_of(window, t);
  const ResizeAxes& have = plan.sample_resize.at(static_cast<std::size_t>(sample));
  expect_axis(have.x, want.x, sample);
  expect_axis(have.y, want.y, sample);
}

Transform resize_to(std::int64_t side, ResizeMode mode) {
  Transform t;
  t.resize_w = t.resize_h = side;
  t.resize_mode = mode;
  if (mode == ResizeMode::ShorterSide) t.resize_shorter = 256;
  return t;
}

TEST(ResizePlanAxes, SamplesWithNoWindowOfTheirOwnGetTheWholeImagesAxes) {
  for (const ResizeMode mode : {ResizeMode::Stretch, ResizeMode::Letterbox, ResizeMode::ShorterSide}) {
    const Transform t = resize_to(224, mode);
    const ConvertPlan plan = plan_of(t);
    ASSERT_EQ(plan.sample_resize.size(), static_cast<std::size_t>(kN));
    for (std::int64_t i = 0; i < kN; ++i) expect_axes(plan, i, RectF{0, 0, kW, kH}, t);
  }
}

TEST(ResizePlanAxes, ABatchWindowOrCropGivesEverySampleItsAxes) {
  Transform t = resize_to(128, ResizeMode::Stretch);
  t.window = RectF{10.5f, 20.25f, 300.0f, 150.0f};
  ConvertPlan plan = plan_of(t);
  for (std::int64_t i = 0; i < kN; ++i) expect_axes(plan, i, t.window, t);
  t = resize_to(128, ResizeMode::Letterbox);
  t.crop = Rect{30, 40, 200, 100};
  plan = plan_of(t);
  for (std::int64_t i = 0; i < kN; ++i) expect_axes(plan, i, RectF{30, 40, 200, 100}, t);
}

TEST(ResizePlanAxes, WindowsOfTheirOwnKeepTheirOwnAxes) {
  std::vector<RectF> windows;
  for (std::int64_t i = 0; i < kN; ++i)
    windows.push_back(RectF{static_cast<float>(7 * i), static_cast<float>(3 * i), 100.0f + 40.0f * static_cast<float>(i),
                            90.0f + 10.0f * static_cast<float>(i)});
  Transform t = resize_to(96, ResizeMode::Stretch);
  t.per_sample_window = windows.data();
  t.per_sample_count = kN;
  const ConvertPlan plan = plan_of(t);
  for (std::int64_t i = 0; i < kN; ++i) expect_axes(plan, i, windows[static_cast<std::size_t>(i)], t);
  std::vector<Rect> crops;
  for (std::int64_t i = 0; i < kN; ++i) crops.push_back(Rect{11 * i, 5 * i, 120 + 30 * i, 80 + 20 * i});
  Transform c = resize_to(64, ResizeMode::Letterbox);
  c.per_sample_crop = crops.data();
  c.per_sample_count = kN;
  const ConvertPlan cropped = plan_of(c);
  for (std::int64_t i = 0; i < kN; ++i) {
    const Rect& r = crops[static_cast<std::size_t>(i)];
    expect_axes(cropped, i, RectF{static_cast<float>(r.x), static_cast<float>(r.y), static_cast<float>(r.w),
                                  static_cast<float>(r.h)}, c);
  }
}

}  // namespace
