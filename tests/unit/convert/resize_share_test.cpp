// ConvertPlan::resize_source_share: the share of the source a resize's taps
// touch, which decides whether the stager reads one image in place over the
// bus (Stager::reads_in_place). Worked out by hand for a detector's letterbox,
// of RGB images and of 4:2:0 frames decoded at each tap.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/convert/convert_plan.h"
#include "core/convert/resize_taps.h"

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

double frame_share_of(ferry::core::PixelFormat format, std::int64_t h, std::int64_t w, std::int64_t out,
                      Interpolation interpolation, ferry::core::ChromaFilter chroma) {
  static std::vector<std::uint8_t> frame;
  frame.assign(static_cast<std::size_t>(h * w * 2), 0);  // more than any 4:2:0 frame of h x w needs
  ferry::core::SourceDesc source;
  source.data = frame.data();
  source.bytes = frame.size();
  source.n = 1, source.h = h, source.w = w;
  source.format = format;
  source.chroma_filter = chroma;
  ferry::core::Transform t;
  t.resize_w = t.resize_h = out;
  t.interpolation = interpolation;
  t.resize_mode = ResizeMode::Letterbox;
  return ferry::core::make_convert_plan(source, t, nullptr).resize_source_share();
}

TEST(ResizeSourceShare, FramesDecodedAtTapsReadTheLumaRowsOfTapsWeighingMoreThanZeroAndTheirChroma) {
  using ferry::core::ChromaFilter;
  using ferry::core::PixelFormat;
  // 1080p by 3: each output row's second tap weighs 0, so 360 luma rows and
  // 360 of the 540 chroma rows (rows 3r + 1 halved are all different), of
  // 1620 rows of 1920 bytes.
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::NV21, PixelFormat::I420, PixelFormat::YV12})
    EXPECT_NEAR(frame_share_of(f, 1080, 1920, 640, Interpolation::Linear, ChromaFilter::Nearest), 720.0 / 1620.0, 1e-9)
        << "format " << static_cast<int>(f);
  // 720p by 2: the taps' fraction is 0.5, two luma rows a shown row: every row.
  EXPECT_EQ(frame_share_of(PixelFormat::NV12, 720, 1280, 640, Interpolation::Linear, ChromaFilter::Nearest), 1.0);
  // 4K by 6 (even: fraction 0.5): 720 luma rows of 2160 and 720 chroma rows of 1080.
  EXPECT_NEAR(frame_share_of(PixelFormat::NV12, 2160, 3840, 640, Interpolation::Linear, ChromaFilter::Nearest),
              1440.0 / 3240.0, 1e-9);
  // Frames the decoder converts whole into RGB first: linear chroma, another
  // interpolation, a packed or Bayer format.
  EXPECT_EQ(frame_share_of(PixelFormat::NV12, 1080, 1920, 640, Interpolation::Linear, ChromaFilter::Linear), 1.0);
  EXPECT_EQ(frame_share_of(PixelFormat::NV12, 1080, 1920, 640, Interpolation::Nearest, ChromaFilter::Nearest), 1.0);
  EXPECT_EQ(frame_share_of(PixelFormat::YUYV, 1080, 1920, 640, Interpolation::Linear, ChromaFilter::Nearest), 1.0);
  EXPECT_EQ(frame_share_of(PixelFormat::BayerRGGB, 1080, 1920, 640, Interpolation::Linear, ChromaFilter::Nearest), 1.0);
}

// linear_taps_are_single against for_each_tap itself: wherever it says so,
// every resized index's second tap weighs exactly 0.
TEST(ResizeSourceShare, SingleLinearTapsAreThoseOfAZeroSecondWeight) {
  using ferry::core::ResizeAxis;
  auto second_weights_zero = [](const ResizeAxis& a) {
    bool zero = true;
    for (int r = 0; r < a.length; ++r) {
      int t = 0;
      ferry::core::resize::for_each_tap<Interpolation::Linear>(a, r, [&](int, float w) {
        if (t++ == 1) zero = zero && w == 0.0f;
      });
    }
    return zero;
  };
  struct Case {
    float origin, scale;
    int length;
    bool single;
  };
  for (const Case& c : {Case{0, 3, 640, true}, Case{7, 5, 100, true}, Case{0, 1, 300, true}, Case{0, 2, 320, false},
                        Case{0.5f, 3, 100, false}, Case{0, 3.5f, 100, false}, Case{0, 0.5f, 100, false},
                        Case{0, 3, 3000000, false}}) {
    ResizeAxis a;
    a.origin = c.origin, a.scale = c.scale, a.length = c.length;
    a.lo = 0, a.hi = static_cast<int>(c.origin + c.scale * static_cast<float>(c.length));
    const std::string axis = "origin " + std::to_string(c.origin) + " scale " + std::to_string(c.scale);
    EXPECT_EQ(ferry::core::resize::linear_taps_are_single(a), c.single) << axis;
    if (c.single) EXPECT_TRUE(second_weights_zero(a)) << axis;
    if (!c.single && c.length < 1000) EXPECT_FALSE(second_weights_zero(a)) << axis;
  }
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
