// Augmented pixels on the CPU backend, bit for bit against the scalar
// reference of tests/support/augment_reference.h, for uint8, float32,
// float16 and bfloat16 output poisoned first: each colour operation alone and all four in
// their drawn orders, grayscale, hue's edge cases, RANDOM crops with padding
// (zeros, then jittered), CENTER crops of smaller images, RANDOM_RESIZED with
// LINEAR, flips, erasing with a value and with noise; and ferry_batch_submit
// in chunks gives what ferry_transform_apply gives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/augment_reference.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

const ferry_dtype kDtypes[] = {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16};

class AugmentPixels : public ::testing::Test {
 protected:
  void SetUp() override { ctx_ = make_test_context(FERRY_DEVICE_CPU, 2); }
  void TearDown() override { ferry_context_destroy(ctx_); }

  // Converts the case for each dtype and compares it with the reference.
  void expect_reference(PixelCase& c, const std::string& what) {
    for (ferry_dtype d : kDtypes) {
      c.transform.out_dtype = d;
      const bool u8 = d == FERRY_DTYPE_UINT8;
      c.transform.scale = 1.0f / 255;
      for (int k = 0; k < 4; ++k) {
        c.transform.mean[k] = u8 ? 0.0f : 0.45f + 0.01f * static_cast<float>(k);
        c.transform.std[k] = u8 ? 1.0f : 0.225f + 0.005f * static_cast<float>(k);
      }
      const std::vector<std::uint8_t> got = c.applied(ctx_);
      EXPECT_EQ(first_difference(got, c.reference(), d), "") << what << " dtype " << d;
    }
  }

  ferry_context_t ctx_ = nullptr;
};

void set_range(float (&r)[2], float lo, float hi) { r[0] = lo, r[1] = hi; }

// All four colour operations on: factors 1 +- spread, hue +- hue.
void jitter_all(ferry_augment& a, float spread, float hue) {
  set_range(a.brightness, 1 - spread, 1 + spread);
  set_range(a.contrast, 1 - spread, 1 + spread);
  set_range(a.saturation, 1 - spread, 1 + spread);
  set_range(a.hue, -hue, hue);
}

}  // namespace

TEST_F(AugmentPixels, EachColourOperationAlone) {
  for (int op = 0; op < 4; ++op)
    for (bool resized : {false, true}) {
      PixelCase c(100 + op, {9, 12, 7}, {11, 8, 13});
      if (resized) {
        c.transform.resize_w = 10, c.transform.resize_h = 7;
        c.transform.interpolation = FERRY_INTERP_LINEAR;
      } else {  // one size for the unresized output: a crop of each
        c.transform.crop = {1, 0, 6, 7};
      }
      ferry_augment& a = c.augment;
      if (op == FERRY_JITTER_BRIGHTNESS) set_range(a.brightness, 0.3f, 1.8f);
      if (op == FERRY_JITTER_CONTRAST) set_range(a.contrast, 0.2f, 1.9f);
      if (op == FERRY_JITTER_SATURATION) set_range(a.saturation, 0.0f, 2.5f);
      if (op == FERRY_JITTER_HUE) set_range(a.hue, -0.5f, 0.5f);
      expect_reference(c, "op " + std::to_string(op) + (resized ? " resized" : " unresized"));
    }
}

TEST_F(AugmentPixels, AllFourInTheirDrawnOrdersThenGrayscale) {
  PixelCase c(7, std::vector<std::int64_t>(24, 10), std::vector<std::int64_t>(24, 9));
  c.transform.resize_w = 8, c.transform.resize_h = 6;
  c.transform.out_layout = FERRY_LAYOUT_NHWC;
  jitter_all(c.augment, 0.4f, 0.1f);
  c.augment.grayscale_probability = 0.3f;
  expect_reference(c, "all four, 30% gray");
  std::set<std::vector<int>> orders;
  int gray = 0;
  for (const auto& d : c.drawn) {
    orders.insert(std::vector<int>(d.jitter_order, d.jitter_order + 4));
    gray += d.grayscale;
  }
  EXPECT_GE(orders.size(), 10u) << "the batch covers many orders";
  EXPECT_GT(gray, 0);
  EXPECT_LT(gray, 24);

  PixelCase g(8, {5, 6}, {7, 4});
  g.augment.grayscale_probability = 1.0f;
  g.transform.crop = {0, 0, 4, 5};
  g.transform.out_channels = 3;  // BGR source to RGB: colour sees the mapped channels
  g.transform.channel_map[0] = 2, g.transform.channel_map[1] = 1, g.transform.channel_map[2] = 0;
  expect_reference(g, "grayscale alone, channel map");
  for (ferry_dtype d : {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32}) {  // R = G = B
    g.transform.out_dtype = d;
    g.transform.out_layout = FERRY_LAYOUT_NHWC;
    g.transform.mean[0] = g.transform.mean[1] = g.transform.mean[2] = 0;
    g.transform.std[0] = g.transform.std[1] = g.transform.std[2] = 1;
    g.transform.scale = 1.0f / 255;
    const auto out = g.applied(ctx_);
    const std::size_t e = d == FERRY_DTYPE_UINT8 ? 1 : 4;
    for (std::size_t p = 0; p < out.size(); p += 3 * e)
      ASSERT_TRUE(std::memcmp(&out[p], &out[p + e], e) == 0 && std::memcmp(&out[p], &out[p + 2 * e], e) == 0) << p;
  }
}

TEST_F(AugmentPixels, HueOfGrayPixelsAndPureColours) {
  // Gray pixels (0, 255, in between) and the pure and mixed primaries.
  const std::uint8_t colours[][3] = {{0, 0, 0},     {255, 255, 255}, {77, 77, 77},  {255, 0, 0},   {0, 255, 0},
                                     {0, 0, 255},   {255, 255, 0},   {0, 255, 255}, {255, 0, 255}, {128, 0, 0},
                                     {1, 0, 0},     {254, 255, 255}, {10, 200, 10}, {200, 10, 10}, {3, 3, 4},
                                     {255, 128, 0}};
  for (float h : {-0.5f, -1.0f / 3, -0.25f, -1e-3f, 1e-3f, 1.0f / 6, 1.0f / 3, 0.5f}) {
    PixelCase c(21, {1, 1}, {16, 16});
    for (auto& p : c.pixels)
      for (int i = 0; i < 16; ++i) std::memcpy(&p[static_cast<std::size_t>(i * 3)], colours[i], 3);
    set_range(c.augment.hue, h, h);
    expect_reference(c, "hue " + std::to_string(h));
    // Gray pixels keep their value, whatever the shift (uint8 and float).
    c.transform.out_dtype = FERRY_DTYPE_UINT8;
    c.transform.out_layout = FERRY_LAYOUT_NHWC;
    c.transform.scale = 1.0f / 255, c.transform.mean[0] = c.transform.mean[1] = c.transform.mean[2] = 0;
    c.transform.std[0] = c.transform.std[1] = c.transform.std[2] = 1;
    const auto out = c.applied(ctx_);
    for (int i : {0, 1, 2})
      EXPECT_EQ(0, std::memcmp(&out[static_cast<std::size_t>(i * 3)], colours[i], 3))
          << "gray pixel " << i << " hue " << h;
    if (h == 1.0f / 3) {  // red to green, green to blue, blue to red, within 1
      const int to[3][3] = {{0, 255, 0}, {0, 0, 255}, {255, 0, 0}};
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(out[static_cast<std::size_t>((3 + i) * 3 + k)], to[i][k], 1) << i;
    }
  }
}

TEST_F(AugmentPixels, RandomCropWithPaddingIsZerosThenJittered) {
  PixelCase c(31, {10, 10, 10, 10, 10, 10}, {8, 8, 8, 8, 8, 8});
  c.augment.crop = FERRY_AUGMENT_CROP_RANDOM;
  c.augment.padding = 3;
  c.transform.resize_w = 8, c.transform.resize_h = 10;
  set_range(c.augment.brightness, 0.5f, 1.5f);
  set_range(c.augment.contrast, 0.3f, 1.7f);
  set_range(c.augment.hue, -0.2f, 0.2f);
  c.augment.flip_x_probability = 0.5f;
  for (ferry_interpolation m : {FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC, FERRY_INTERP_AREA})
    c.transform.interpolation = m, expect_reference(c, "RANDOM padded, interpolation " + std::to_string(m));
  int padded = 0;
  for (const auto& d : c.drawn) padded += d.crop.x != 0 || d.crop.y != 0;
  EXPECT_GE(padded, 4);
  // Without colour the padding reads 0 exactly.
  set_range(c.augment.brightness, 1, 1), set_range(c.augment.contrast, 1, 1), set_range(c.augment.hue, 0, 0);
  expect_reference(c, "RANDOM padded, no colour");
  // Padding wider than the crop: some windows lie in the padding alone (all 0, contrast's mean 0).
  PixelCase wide(33, std::vector<std::int64_t>(12, 3), std::vector<std::int64_t>(12, 4));
  wide.augment.crop = FERRY_AUGMENT_CROP_RANDOM;
  wide.augment.padding = 6;
  wide.transform.resize_w = 4, wide.transform.resize_h = 3;
  set_range(wide.augment.contrast, 0.5f, 1.5f);
  expect_reference(wide, "RANDOM, windows in the padding alone");
  int alone = 0;
  for (const auto& d : wide.drawn) alone += d.crop.x + 4 <= 0 || d.crop.x >= 4 || d.crop.y + 3 <= 0 || d.crop.y >= 3;
  EXPECT_GT(alone, 0);
}

// One size and nothing per pixel (CIFAR's RandomCrop + flip): plain windows
// on the window kernels, the padding converted as bytes of value 0, in both
// layouts and every dtype, equal to the reference.
TEST_F(AugmentPixels, RandomCropsOfOneSizeAreWindowsOverZeroPadding) {
  PixelCase c(37, std::vector<std::int64_t>(9, 12), std::vector<std::int64_t>(9, 10));
  c.augment.crop = FERRY_AUGMENT_CROP_RANDOM;
  c.augment.padding = 4;
  c.augment.flip_x_probability = 0.5f, c.augment.flip_y_probability = 0.5f;
  c.transform.resize_w = 10, c.transform.resize_h = 12;
  std::vector<const void*> pointers;
  for (const auto& p : c.pixels) pointers.push_back(p.data());
  ferry_source one_size = c.source;  // the same images as pointers to samples of one size
  one_size.sample_descs = nullptr;
  one_size.samples = pointers.data();
  one_size.sample_bytes = c.pixels[0].size();
  one_size.h = 12, one_size.w = 10;
  for (ferry_layout layout : {FERRY_LAYOUT_NCHW, FERRY_LAYOUT_NHWC})
    for (ferry_dtype d : kDtypes) {
      c.transform.out_layout = layout;
      c.transform.out_dtype = d;
      for (int k = 0; k < 3; ++k)  // per-channel normalization: the padding is each channel's own value
        c.transform.mean[k] = d == FERRY_DTYPE_UINT8 ? 0.0f : 0.4f + 0.05f * static_cast<float>(k),
        c.transform.std[k] = d == FERRY_DTYPE_UINT8 ? 1.0f : 0.2f + 0.03f * static_cast<float>(k);
      std::vector<std::uint8_t> got(c.output_bytes(), 0xA5);
      ferry_output o;
      ferry_output_init(&o, sizeof o);
      o.data = got.data(), o.bytes = got.size();
      ASSERT_EQ(ferry_transform_apply(ctx_, &one_size, &c.transform, &o, nullptr), FERRY_OK) << ferry_last_error();
      EXPECT_EQ(first_difference(got, c.reference(), d), "") << "layout " << layout << " dtype " << d;
    }
  int padded = 0, flipped = 0;
  for (const auto& d : c.drawn) padded += d.crop.x != 0 || d.crop.y != 0, flipped += d.flip != 0;
  EXPECT_GE(padded, 5);
  EXPECT_GE(flipped, 3);
}

TEST_F(AugmentPixels, CenterCropOfASmallerImage) {
  PixelCase c(41, {5, 14, 7}, {6, 9, 15});
  c.augment.crop = FERRY_AUGMENT_CROP_CENTER;
  c.transform.resize_w = 10, c.transform.resize_h = 9;
  set_range(c.augment.saturation, 0.2f, 1.8f);
  set_range(c.augment.contrast, 0.5f, 1.5f);
  c.augment.flip_y_probability = 0.5f;
  const std::uint8_t mirrors[3] = {FERRY_MIRROR_X, FERRY_MIRROR_Y, FERRY_MIRROR_X | FERRY_MIRROR_Y};
  c.transform.per_sample_mirror = mirrors;  // the drawn flips on top of each sample's own
  c.transform.per_sample_count = 3;
  expect_reference(c, "CENTER");
  EXPECT_EQ(c.drawn[0].crop.x, -2);
  EXPECT_EQ(c.drawn[0].crop.y, -2);
}

TEST_F(AugmentPixels, RandomResizedWithLinearAndFlips) {
  PixelCase c(51, {40, 33, 24, 50}, {30, 41, 24, 17});
  c.augment.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  c.augment.flip_x_probability = 0.5f, c.augment.flip_y_probability = 0.5f;
  c.transform.resize_w = 12, c.transform.resize_h = 10;
  c.transform.mirror = FERRY_MIRROR_X;  // the drawn flip on top
  for (ferry_interpolation m : {FERRY_INTERP_LINEAR, FERRY_INTERP_LINEAR_ANTIALIAS}) {
    c.transform.interpolation = m;
    expect_reference(c, "RRC flips, interpolation " + std::to_string(m));
    set_range(c.augment.brightness, 0.7f, 1.3f);
    expect_reference(c, "RRC flips brightness, interpolation " + std::to_string(m));
    set_range(c.augment.brightness, 1, 1);
  }
}

// CUBIC overshoots 0..255 at edges: the first operation sees the value as
// resampled, each clamps its result.
TEST_F(AugmentPixels, RandomResizedCubicOvershootThroughEveryOperation) {
  PixelCase c(55, std::vector<std::int64_t>(16, 9), std::vector<std::int64_t>(16, 8));
  for (auto& p : c.pixels)  // a checkerboard of 0 and 255: the largest overshoot
    for (std::size_t b = 0; b < p.size(); ++b) p[b] = ((b / 3) + (b / 24)) % 2 ? 255 : 0;
  c.augment.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  c.transform.resize_w = 23, c.transform.resize_h = 19;
  c.transform.interpolation = FERRY_INTERP_CUBIC;
  jitter_all(c.augment, 0.4f, 0.3f);
  expect_reference(c, "CUBIC, all four");
}

// The contrast mean's fixed-point sum: the same bits whatever the threads
// and however the rows are split among them.
TEST_F(AugmentPixels, ContrastIsTheSameOnAnyNumberOfThreads) {
  PixelCase c(57, {120, 100}, {90, 130});
  c.augment.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  c.transform.resize_w = 96, c.transform.resize_h = 96;  // several row chunks per sample
  set_range(c.augment.contrast, 0.2f, 1.8f);
  set_range(c.augment.saturation, 0.5f, 1.5f);
  expect_reference(c, "contrast, 2 threads");
  const auto two = c.applied(ctx_);
  for (int threads : {1, 5}) {
    ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, threads);
    EXPECT_EQ(c.applied(ctx), two) << threads << " threads";
    ferry_context_destroy(ctx);
  }
}

TEST_F(AugmentPixels, ColourWithLetterboxBarsLeavesTheBars) {
  PixelCase c(61, {12, 6}, {6, 12});
  c.transform.resize_w = 8, c.transform.resize_h = 8;
  c.transform.resize_mode = FERRY_RESIZE_LETTERBOX;
  c.transform.letterbox_value[0] = c.transform.letterbox_value[1] = c.transform.letterbox_value[2] = 3.0f;
  set_range(c.augment.contrast, 0.5f, 1.5f);
  set_range(c.augment.brightness, 0.5f, 1.5f);
  expect_reference(c, "letterbox, contrast's mean over the shown pixels");
  // Erasing covers bars and image alike; the padded fourth channel keeps pad_value.
  c.augment.erase_probability = 1.0f;
  c.augment.erase_value[0] = 1, c.augment.erase_value[1] = 2, c.augment.erase_value[2] = 250;
  c.transform.pad_channels_to_4 = 1;
  c.transform.pad_value = 9;
  expect_reference(c, "letterbox, erase, 4 channels");
}

TEST_F(AugmentPixels, EraseWithAValue) {
  PixelCase c(71, std::vector<std::int64_t>(6, 16), std::vector<std::int64_t>(6, 20));
  c.augment.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  c.transform.resize_w = 20, c.transform.resize_h = 16;
  c.augment.erase_probability = 1.0f;
  c.augment.erase_value[0] = 10, c.augment.erase_value[1] = 20, c.augment.erase_value[2] = 30;
  set_range(c.augment.saturation, 0.5f, 1.5f);
  expect_reference(c, "erase value");
  int erased = 0;
  for (const auto& d : c.drawn) erased += d.erased;
  EXPECT_GE(erased, 5);
  c.augment.erase_value[0] = -1.5f, c.augment.erase_value[1] = 0.25f, c.augment.erase_value[2] = 2.0f;
  for (ferry_dtype d : {FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16}) {
    c.transform.out_dtype = d;
    EXPECT_EQ(first_difference(c.applied(ctx_), c.reference(), d), "") << "float erase value, dtype " << d;
  }
}

// Erasing alone needs no 3 channels: a gray image, and RGBA kept as 4 channels.
TEST_F(AugmentPixels, EraseOnOneAndFourChannels) {
  for (int channels : {1, 4}) {
    PixelCase c(75, std::vector<std::int64_t>(5, 12), std::vector<std::int64_t>(5, 14));
    for (std::size_t i = 0; i < c.pixels.size(); ++i) {  // the same bytes read as c channels
      c.pixels[i].resize(static_cast<std::size_t>(12 * 14 * channels));
      c.descs[i].data = c.pixels[i].data(), c.descs[i].bytes = c.pixels[i].size();
    }
    c.source.c = channels;
    c.transform.resize_w = 9, c.transform.resize_h = 10;
    c.augment.erase_probability = 1.0f;
    c.augment.erase_value[0] = 4, c.augment.erase_value[3] = 200;
    c.augment.flip_x_probability = 0.5f;
    expect_reference(c, std::to_string(channels) + " channels");
  }
}

TEST_F(AugmentPixels, EraseWithNoiseWritesOnlyTheBoxAndIsDeterministic) {
  for (ferry_dtype d : kDtypes) {
    PixelCase c(81, std::vector<std::int64_t>(8, 16), std::vector<std::int64_t>(8, 16));
    c.transform.out_dtype = d;
    c.transform.out_layout = FERRY_LAYOUT_NHWC;
    c.transform.resize_w = 16, c.transform.resize_h = 16;
    c.augment.erase_probability = 1.0f;
    c.augment.erase_fill = FERRY_ERASE_RANDOM;
    set_range(c.augment.brightness, 0.5f, 1.5f);
    const auto first = c.applied(ctx_, 0xA5), second = c.applied(ctx_, 0x5A);
    EXPECT_EQ(first, second) << "every byte written, the same noise twice; dtype " << d;
    // Outside the boxes: the reference (which leaves the boxes poisoned).
    const auto want = c.reference();
    const std::size_t e = d == FERRY_DTYPE_FLOAT32 ? 4 : d == FERRY_DTYPE_UINT8 ? 1 : 2;
    std::size_t boxed = 0, outside_differs = 0;
    std::set<std::uint32_t> values;
    double sum = 0, squares = 0;
    for (std::size_t i = 0; i < c.drawn.size(); ++i) {
      const ferry_augment_params& p = c.drawn[i];
      for (std::int64_t y = 0; y < 16; ++y)
        for (std::int64_t x = 0; x < 16; ++x)
          for (std::size_t k = 0; k < 3; ++k) {
            const auto pixel = (i * 16 + static_cast<std::size_t>(y)) * 16 + static_cast<std::size_t>(x);
            const std::size_t b = (pixel * 3 + k) * e;
            const bool in = p.erased && x >= p.erase.x && x < p.erase.x + p.erase.w && y >= p.erase.y &&
                            y < p.erase.y + p.erase.h;
            if (!in) {
              outside_differs += std::memcmp(&first[b], &want[b], e) != 0;
              continue;
            }
            ++boxed;
            std::uint32_t bits = 0;
            std::memcpy(&bits, &first[b], e);
            values.insert(bits);
            if (d == FERRY_DTYPE_FLOAT32) {
              float f;
              std::memcpy(&f, &first[b], 4);
              ASSERT_TRUE(std::isfinite(f));
              sum += f, squares += static_cast<double>(f) * f;
            }
          }
    }
    EXPECT_EQ(outside_differs, 0u) << "dtype " << d;
    EXPECT_GT(boxed, 200u) << "dtype " << d;
    EXPECT_GT(values.size(), std::min<std::size_t>(boxed / 4, 200)) << "noise, not one value; dtype " << d;
    if (d == FERRY_DTYPE_FLOAT32) {  // standard normals
      const double mean = sum / static_cast<double>(boxed);
      EXPECT_LT(std::fabs(mean), 5.0 / std::sqrt(static_cast<double>(boxed)));
      EXPECT_NEAR(squares / static_cast<double>(boxed) - mean * mean, 1.0, 0.2);
    }
  }
}

TEST_F(AugmentPixels, SubmitInChunksEqualsApply) {
  PixelCase c(91, {20, 17, 31, 24, 16, 22, 19, 28, 25, 18, 21, 30}, {26, 19, 15, 24, 33, 21, 27, 16, 20, 29, 23, 18});
  c.augment.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  c.augment.flip_x_probability = 0.5f;
  jitter_all(c.augment, 0.4f, 0.1f);
  c.augment.grayscale_probability = 0.2f;
  c.augment.erase_probability = 0.5f;
  c.augment.erase_fill = FERRY_ERASE_RANDOM;
  c.transform.resize_w = 14, c.transform.resize_h = 12;
  // And one size in the samples form (pointers): its own staging path.
  PixelCase same(92, std::vector<std::int64_t>(12, 20), std::vector<std::int64_t>(12, 26));
  std::vector<const void*> pointers;
  for (const auto& p : same.pixels) pointers.push_back(p.data());
  same.source.sample_descs = nullptr;
  same.source.samples = pointers.data(), same.source.sample_bytes = 20 * 26 * 3;
  same.source.h = 20, same.source.w = 26;
  same.augment = c.augment;
  same.augment.drawn = same.drawn.data();
  same.transform = c.transform;
  same.transform.augment = &same.augment;
  for (PixelCase* pc : {&c, &same}) {
    pc->transform.out_dtype = FERRY_DTYPE_FLOAT16;
    const auto want = pc->applied(ctx_);
    for (std::uint64_t chunk : {std::uint64_t{1}, std::uint64_t{3 * 20 * 26 * 3}, std::uint64_t{0}}) {
      std::vector<std::uint8_t> got(want.size(), 0x5A);
      ferry_output o;
      ferry_output_init(&o, sizeof o);
      o.data = got.data(), o.bytes = got.size();
      ferry_submit_options options;
      ferry_submit_options_init(&options, sizeof options);
      options.chunk_bytes = chunk;
      ferry_batch_t batch = nullptr;
      ASSERT_EQ(ferry_batch_submit(&batch, ctx_, &pc->source, &pc->transform, &o, &options), FERRY_OK)
          << ferry_last_error();
      EXPECT_EQ(ferry_batch_wait(batch), FERRY_OK) << ferry_last_error();
      ferry_batch_release(batch);
      EXPECT_EQ(first_difference(got, want, FERRY_DTYPE_FLOAT16), "")
          << (pc == &c ? "sample_descs" : "samples") << " chunk_bytes " << chunk;
    }
  }
}
