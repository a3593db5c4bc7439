// The staged pipeline's source footprint (core/stage/source_footprint.h): a
// resized batch from pageable memory stages only the bytes its taps read,
// and converts exactly as one staged whole. Over the host runtime, whose
// device memory comes poisoned (staged_pipeline_fixture.h), and whose
// input buffers carry the last chunk's bytes: a read outside the footprint
// changes the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/stage/source_footprint.h"
#include "tests/support/frame_cases.h"
#include "tests/support/variable_size_cases.h"
#include "tests/unit/stage/staged_pipeline_fixture.h"

namespace {

using namespace ferry;
using namespace ferry::test;
using core::BatchRoute;

std::uint64_t packed_bytes(const std::vector<ferry_sample_desc>& descs, std::int64_t c) {
  std::uint64_t total = 0;
  for (const ferry_sample_desc& d : descs) total += static_cast<std::uint64_t>(d.h * d.w * c);
  return total;
}

// n random h x w x c images packed one after another, and their source.
struct PackedImages {
  std::vector<std::uint8_t> pixels;
  ferry_source src{};
};
PackedImages packed_images(std::mt19937& rng, std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
  PackedImages k;
  k.pixels.resize(static_cast<std::size_t>(n * h * w * c));
  for (auto& p : k.pixels) p = static_cast<std::uint8_t>(rng());
  ferry_source_init(&k.src, sizeof k.src);
  k.src.data = k.pixels.data(), k.src.bytes = k.pixels.size();
  k.src.n = n, k.src.h = h, k.src.w = w, k.src.c = c;
  return k;
}

// Images of different sizes, each resized by a random interpolation and mode
// from a random window, mirrored or not, in either layout, with padded rows
// now and then: every batch converts as the reference does, and those whose
// taps read little of their images stage that little.
TEST_F(StagedPipeline, ResizedImagesStageOnlyWhatTheirTapsRead) {
  build(4 << 20);
  std::mt19937 rng(7);
  int staged_in_part = 0;
  for (int round = 0; round < 40; ++round) {
    ResizedVariableCase r = random_resized_case(rng, 260, 96, 8);
    VariableCase& k = r.k;
    const ferry_source src = variable_source(k.descs, k.c, k.layout);
    const std::uint64_t total = packed_bytes(k.descs, k.c);
    if (total <= core::kShortPathBytes) continue;  // the kernel reads a short batch where it lies
    auto b = submit(src, k.transform, nullptr, FERRY_SOURCE_STAGE, std::max<std::uint64_t>(1, total / 3));
    ASSERT_EQ(b->submitted.route, BatchRoute::kStaged);
    stager_->wait(*b);
    const core::SourceFootprint& f = b->footprint();
    if (f.on()) {
      ++staged_in_part;
      EXPECT_LT(f.row_bytes, total);
    }
    expect_matches(*b, src, k.transform);
    stager_->release(*b);
    if (HasFailure()) {
      ADD_FAILURE() << "round " << round << ": interpolation " << k.transform.interpolation << ", mode "
                    << k.transform.resize_mode << ", layout " << k.layout << ", c " << k.c << ", footprint "
                    << (f.on() ? "on" : "off");
      return;
    }
  }
  EXPECT_GE(staged_in_part, 10);
}

// A RandomResizedCrop-like batch: one size of image, a window per sample,
// bilinear to 64 x 64 with flips; the footprint is each window's rows and
// columns, and is what the staging threads copy.
TEST_F(StagedPipeline, CropWindowsStageTheirWindowsAlone) {
  build(4 << 20);
  std::mt19937 rng(11);
  const std::int64_t n = 12, h = 180, w = 200, c = 3;
  const PackedImages images = packed_images(rng, n, h, w, c);
  const ferry_source& src = images.src;
  std::vector<ferry_rectf> windows;
  std::vector<std::uint8_t> mirrors;
  for (std::int64_t i = 0; i < n; ++i) {
    const float ww = static_cast<float>(std::uniform_int_distribution<int>(20, 120)(rng));
    const float wh = static_cast<float>(std::uniform_int_distribution<int>(20, 120)(rng));
    windows.push_back({std::uniform_real_distribution<float>(0, static_cast<float>(w) - ww)(rng),
                       std::uniform_real_distribution<float>(0, static_cast<float>(h) - wh)(rng), ww, wh});
    mirrors.push_back(static_cast<std::uint8_t>(i % 2));
  }
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.resize_w = t.resize_h = 64;
  t.interpolation = FERRY_INTERP_LINEAR;
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.per_sample_window = windows.data();
  t.per_sample_mirror = mirrors.data();
  t.per_sample_count = n;
  auto b = submit(src, t, nullptr, FERRY_SOURCE_STAGE, images.pixels.size() / 4);
  stager_->wait(*b);
  const core::SourceFootprint& f = b->footprint();
  ASSERT_TRUE(f.on());
  std::uint64_t window_bytes = 0;  // each window's pixels, its fractional edges widened to whole pixels
  for (const ferry_rectf& r : windows) {
    const auto x0 = static_cast<std::int64_t>(r.x), y0 = static_cast<std::int64_t>(r.y);
    const auto x1 = static_cast<std::int64_t>(std::ceil(r.x + r.w));
    const auto y1 = static_cast<std::int64_t>(std::ceil(r.y + r.h));
    window_bytes += static_cast<std::uint64_t>((std::min(x1, w) - x0) * (std::min(y1, h) - y0) * c);
  }
  EXPECT_LE(f.row_bytes, window_bytes);
  EXPECT_GE(f.row_bytes, window_bytes / 2);
  expect_matches(*b, src, t);
  stager_->release(*b);
}

// The CPU converter's output for (src, t), read from the caller's memory
// with nothing staged: the reference for frames (convert_reference.h has
// no decoder).
std::vector<std::uint8_t> converted_in_place(core::Converter& converter, const ferry_source& src,
                                             const ferry_transform& t) {
  const core::ConvertPlan plan = core::make_convert_plan(api::to_core(src), api::to_core(t), nullptr);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(plan.out_extent), kPoison);
  converter.convert(plan, core::source_view_of(plan, api::to_core(src)), 0, plan.n, out.data(), nullptr);
  return out;
}

// The batch's output equals converted_in_place's.
void expect_converted_in_place(const core::Batch& b, core::Converter& converter, const ferry_source& src,
                               const ferry_transform& t) {
  const std::vector<std::uint8_t> expected = converted_in_place(converter, src, t);
  ASSERT_EQ(b.submitted.info.bytes, expected.size());
  EXPECT_EQ(first_difference(static_cast<const std::uint8_t*>(b.submitted.info.data), expected.data(), expected.size()),
            -1);
}

// Frames of every format, resized: each plane staged by the rows its decoder
// reads for the image rows the taps read (Bayer and linear chroma one more
// each side), and decoded as the reference does.
TEST_F(StagedPipeline, ResizedFramesStageThePlaneRowsTheirDecoderReads) {
  build(4 << 20);
  std::mt19937 rng(5);
  int staged_in_part = 0;
  for (const ferry_pixel_format format : all_frame_formats) {
    for (const int chroma : {0, 1}) {
      std::vector<TestFrame> frames;
      for (int i = 0; i < 6; ++i)
        frames.push_back(random_frame(rng, format, std::uniform_int_distribution<int>(150, 241)(rng),
                                      std::uniform_int_distribution<int>(150, 333)(rng),
                                      i % 2 ? PlaneLayout::padded : PlaneLayout::packed));
      const std::vector<ferry_sample_desc> descs = frame_descs(frames);
      ferry_source src = frames_source(format, descs);
      src.chroma_filter = static_cast<ferry_chroma_filter>(chroma);
      ferry_transform t;
      ferry_transform_init(&t, sizeof t);
      t.resize_w = 40, t.resize_h = 36;
      t.interpolation = chroma ? FERRY_INTERP_NEAREST : FERRY_INTERP_LINEAR;
      t.out_dtype = FERRY_DTYPE_UINT8;
      auto b = submit(src, t, nullptr, FERRY_SOURCE_STAGE, 300 << 10);
      stager_->wait(*b);
      if (b->footprint().on()) ++staged_in_part;
      expect_converted_in_place(*b, *converter_, src, t);
      stager_->release(*b);
      if (HasFailure()) {
        ADD_FAILURE() << "format " << format << ", chroma filter " << chroma;
        return;
      }
    }
  }
  EXPECT_GE(staged_in_part, 16);
}

// 4:2:0 frames letterboxed by exactly 3: the kernel that decodes at each tap
// reads rows 3r + 1 only (the second taps weigh 0), so only those rows and
// their chroma rows are staged, 0.44 of the frames; with linear chroma the
// decoder converts whole frames and the taps' both rows are staged.
TEST_F(StagedPipeline, FramesLetterboxedByThreeStageOnlyTheRowsOfWeightedTaps) {
  build(4 << 20);
  std::mt19937 rng(9);
  const int h = 240, w = 480, n = 4;
  for (const ferry_pixel_format format : {FERRY_FORMAT_NV12, FERRY_FORMAT_NV21, FERRY_FORMAT_I420, FERRY_FORMAT_YV12}) {
    for (const int chroma : {0, 1}) {
      std::vector<TestFrame> frames;
      for (int i = 0; i < n; ++i) frames.push_back(random_frame(rng, format, h, w, PlaneLayout::packed));
      const std::vector<ferry_sample_desc> descs = frame_descs(frames);
      ferry_source src = frames_source(format, descs);
      src.chroma_filter = static_cast<ferry_chroma_filter>(chroma);
      ferry_transform t;
      ferry_transform_init(&t, sizeof t);
      t.resize_w = t.resize_h = w / 3;
      t.resize_mode = FERRY_RESIZE_LETTERBOX;
      t.out_dtype = FERRY_DTYPE_FLOAT16;
      auto b = submit(src, t, nullptr, FERRY_SOURCE_STAGE, 400 << 10);
      stager_->wait(*b);
      const std::uint64_t weighted_rows = static_cast<std::uint64_t>(n) * (h / 3) * w * 2;  // luma + chroma rows
      if (chroma == 0)
        EXPECT_EQ(b->footprint().row_bytes, weighted_rows) << "format " << format;
      else
        EXPECT_TRUE(!b->footprint().on() || b->footprint().row_bytes > weighted_rows * 3 / 2)
            << "format " << format << ", linear chroma: " << b->footprint().row_bytes << " bytes staged";
      expect_converted_in_place(*b, *converter_, src, t);
      stager_->release(*b);
      if (HasFailure()) {
        ADD_FAILURE() << "format " << format << ", chroma filter " << chroma;
        return;
      }
    }
  }
}

// Random augmentation (include/ferry/augment.h): RandomResizedCrop and
// CenterCrop windows drawn per sample, flips, ColorJitter with contrast (its
// mean over each resized image), erasing; staged by the windows' footprint.
TEST_F(StagedPipeline, AugmentedBatchesStageTheirDrawnWindows) {
  build(4 << 20);
  std::mt19937 rng(21);
  int staged_in_part = 0;
  for (const ferry_augment_crop crop : {FERRY_AUGMENT_CROP_RANDOM_RESIZED, FERRY_AUGMENT_CROP_CENTER}) {
    std::vector<VariableSample> samples;
    std::vector<ferry_sample_desc> descs;
    for (int i = 0; i < 16; ++i) {
      samples.push_back(random_sample(rng, std::uniform_int_distribution<int>(120, 260)(rng),
                                      std::uniform_int_distribution<int>(120, 260)(rng), 3, FERRY_LAYOUT_NHWC));
      descs.push_back(samples.back().desc());
    }
    ferry_augment a;
    ferry_augment_init(&a, sizeof a);
    a.seed = 99, a.step = 3, a.crop = crop;
    a.flip_x_probability = 0.5f;
    a.brightness[0] = a.contrast[0] = a.saturation[0] = 0.6f;
    a.brightness[1] = a.contrast[1] = a.saturation[1] = 1.4f;
    a.hue[0] = -0.1f, a.hue[1] = 0.1f;
    a.erase_probability = 0.5f;
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.resize_w = t.resize_h = 96;
    t.out_dtype = FERRY_DTYPE_FLOAT16;
    t.augment = &a;
    const ferry_source src = variable_source(descs, 3, FERRY_LAYOUT_NHWC);
    auto b = submit(src, t, nullptr, FERRY_SOURCE_STAGE, 256 << 10);
    stager_->wait(*b);
    if (b->footprint().on()) ++staged_in_part;
    SCOPED_TRACE(crop == FERRY_AUGMENT_CROP_CENTER ? "CenterCrop" : "RandomResizedCrop");
    expect_converted_in_place(*b, *converter_, src, t);
    stager_->release(*b);
  }
  EXPECT_EQ(staged_in_part, 2);
}

// Crops without a resize: each window's rows and columns inside its image
// (a window reaching outside padded with the fill), in either layout.
TEST_F(StagedPipeline, CropsStageTheirWindowsAlone) {
  build(4 << 20);
  std::mt19937 rng(17);
  for (const ferry_layout layout : {FERRY_LAYOUT_NHWC, FERRY_LAYOUT_NCHW}) {
    const std::int64_t n = 16, h = 120, w = 150, c = 3;
    PackedImages images = packed_images(rng, n, h, w, c);
    images.src.layout = layout;
    std::vector<ferry_rect> windows;
    std::vector<std::uint8_t> mirrors;
    for (std::int64_t i = 0; i < n; ++i) {
      windows.push_back(ferry_rect{std::uniform_int_distribution<std::int64_t>(-20, 120)(rng),
                                   std::uniform_int_distribution<std::int64_t>(-20, 90)(rng), 64, 48});
      mirrors.push_back(static_cast<std::uint8_t>(i % 4));
    }
    const ferry_transform t = crops_transform(windows, mirrors, FERRY_DTYPE_FLOAT32, -1.0f);
    auto b = submit(images.src, t, nullptr, FERRY_SOURCE_STAGE, images.pixels.size() / 3);
    stager_->wait(*b);
    ASSERT_TRUE(b->footprint().on()) << "layout " << layout;
    EXPECT_LE(b->footprint().row_bytes, static_cast<std::uint64_t>(n * 64 * 48 * c));
    expect_matches(*b, images.src, t);
    stager_->release(*b);
  }
}

// Where the taps read about everything (an upscale of whole images), or
// the whole images are converted, whole samples are staged.
TEST_F(StagedPipeline, BatchesThatReadEverythingStageWholeSamples) {
  build(4 << 20);
  std::mt19937 rng(3);
  const PackedImages images = packed_images(rng, 8, 100, 120, 3);
  const ferry_source& src = images.src;
  for (const bool resized : {true, false}) {
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    if (resized) t.resize_w = 300, t.resize_h = 250;
    auto b = submit(src, t, nullptr, FERRY_SOURCE_STAGE);
    stager_->wait(*b);
    EXPECT_FALSE(b->footprint().on());
    expect_matches(*b, src, t);
    stager_->release(*b);
  }
}

}  // namespace
