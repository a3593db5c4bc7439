// ConvertPlan::resize_source_share: the share of the source a resize's taps
// touch, which decides whether the stager reads one image in place over the
// bus (Stager::reads_in_place). Worked out by hand for a detector's letterbox.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/convert/convert_plan.h"

namespace {

using ferry::core::ConvertPlan;
using ferry::core::Interpolation;
using ferry::core::ResizeMode;

double share_of(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t out, Interpolation interpolation,
                ResizeMode mode) {
  static std::vector<std::uint8_t> image;
  image.assign(static_cast<std::size_t>(n * h * w * 3), 0);
  ferry::core::SourceDesc source;
  source.data = image.data();
  source.bytes = image.size();
  source.n = n, source.h = h, source.w = w, source.c = 3;
  ferry::core::Transform t;
  t.resize_w = t.resize_h = out;
  t.interpolation = interpolation;
  t.resize_mode = mode;
  return ferry::core::make_convert_plan(source, t, nullptr).resize_source_share();
}

TEST(ResizeSourceShare, LetterboxOfA1080pFrameTouchesTwoThirdsOfItsRowsWithLinearTaps) {
  // 1920 x 1080 to 640: scale 3, 360 rows shown, 2 taps a row: 720 of 1080 rows, every column.
  EXPECT_NEAR(share_of(1, 1080, 1920, 640, Interpolation::Linear, ResizeMode::Letterbox), 720.0 / 1080.0, 1e-9);
  EXPECT_NEAR(share_of(1, 1080, 1920, 640, Interpolation::Nearest, ResizeMode::Letterbox), 360.0 / 1080.0, 1e-9);
  // Four taps a row: 1440 rows, more than the image has.
  EXPECT_EQ(share_of(1, 1080, 1920, 640, Interpolation::Cubic, ResizeMode::Letterbox), 1.0);
}

TEST(ResizeSourceShare, FiltersThatReadEveryPixelAndUpscalesReadAll) {
  EXPECT_EQ(share_of(1, 1080, 1920, 640, Interpolation::Area, ResizeMode::Letterbox), 1.0);
  EXPECT_EQ(share_of(1, 1080, 1920, 640, Interpolation::LinearAntialias, ResizeMode::Stretch), 1.0);
  EXPECT_EQ(share_of(2, 200, 200, 448, Interpolation::Linear, ResizeMode::Stretch), 1.0);
}

TEST(ResizeSourceShare, NoResizeReadsAll) {
  EXPECT_EQ(share_of(1, 64, 64, 0, Interpolation::Linear, ResizeMode::Stretch), 1.0);
}

}  // namespace
