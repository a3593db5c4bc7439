// Camera and video frames (ferry_source.format, issue 15) on the CPU backend:
// every format decodes within 1 of a reference written from the standards'
// coefficients (Bayer and the chroma filters exactly), for odd and even sizes,
// every matrix and range, frames packed, padded or with their planes apart;
// a frame through the whole transform (resize, letterbox, mirror, normalize,
// f16 NCHW) equals its decoded RGB image through the same transform; the
// pipeline gives what ferry_transform_apply gives, for batches in one buffer,
// sample pointers and frames of different sizes; bad descriptions are refused
// with their own status and a message naming the field.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/frame_cases.h"
#include "tests/support/host_outputs.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

constexpr std::uint8_t poison = 0xAB;

// Resize with letterbox, mirror X, channel map to BGR, normalize, f16 NCHW.
ferry_transform detector_transform() {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.resize_w = 12, t.resize_h = 9;
  t.resize_mode = FERRY_RESIZE_LETTERBOX;
  t.mirror = FERRY_MIRROR_X;
  t.out_channels = 3;
  t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
  t.mean[0] = 0.4f, t.mean[1] = 0.45f, t.mean[2] = 0.5f;
  t.std[0] = 0.2f, t.std[1] = 0.25f, t.std[2] = 0.3f;
  t.letterbox_value[0] = t.letterbox_value[1] = t.letterbox_value[2] = 0.5f;
  return t;
}

void set_colour(ferry_source& s, const ColorOptions& o) {
  s.color_matrix = o.matrix, s.color_range = o.range, s.chroma_filter = o.chroma;
}

class FrameFormats : public ::testing::Test {
 protected:
  void SetUp() override { ctx_ = make_test_context(FERRY_DEVICE_CPU, 2); }
  void TearDown() override { ferry_context_destroy(ctx_); }
  ferry_context_t ctx_ = nullptr;
};

TEST_F(FrameFormats, EveryFormatDecodesAsTheStandardsSay) {
  std::mt19937 rng(15);
  const ColorOptions options[] = {
      {FERRY_COLOR_BT601, FERRY_RANGE_LIMITED, FERRY_CHROMA_NEAREST},
      {FERRY_COLOR_BT709, FERRY_RANGE_LIMITED, FERRY_CHROMA_LINEAR},
      {FERRY_COLOR_BT2020, FERRY_RANGE_FULL, FERRY_CHROMA_NEAREST},
      {FERRY_COLOR_BT601, FERRY_RANGE_FULL, FERRY_CHROMA_LINEAR},
  };
  const std::int64_t sizes[][2] = {{2, 2}, {6, 8}, {7, 5}, {9, 13}, {16, 3}};
  int compared = 0;
  for (ferry_pixel_format f : all_frame_formats)
    for (const ColorOptions& o : options)
      for (const auto& hw : sizes)
        for (PlaneLayout layout : {PlaneLayout::packed, PlaneLayout::padded, PlaneLayout::apart}) {
          const TestFrame frame = random_frame(rng, f, hw[0], hw[1], layout);
          ferry_source src = frame_source(frame);
          set_colour(src, o);
          const std::vector<std::uint8_t> got = applied_on_host(ctx_, src, rgb_u8_transform(), poison);
          const std::vector<double> want = reference_rgb(frame, o);
          ASSERT_EQ(got.size(), want.size());
          const double tolerance = is_bayer(f) ? 0.0 : 1.0;
          for (std::size_t i = 0; i < got.size(); ++i)
            ASSERT_LE(std::abs(got[i] - want[i]), tolerance)
                << "format " << f << " matrix " << o.matrix << " range " << o.range << " chroma " << o.chroma << " "
                << hw[1] << "x" << hw[0] << " layout " << static_cast<int>(layout) << " pixel " << i / 3
                << " channel " << i % 3 << ": " << int{got[i]} << " vs " << want[i];
          ++compared;
        }
  EXPECT_EQ(compared, 10 * 4 * 5 * 3);
}

// The colour conversion comes first, the rest of the transform reads its RGB:
// a frame through a detector's transform equals its decoded image through it.
TEST_F(FrameFormats, TheWholeTransformReadsTheDecodedImage) {
  std::mt19937 rng(16);
  for (ferry_pixel_format f : all_frame_formats) {
    const TestFrame frame = random_frame(rng, f, 11, 17, PlaneLayout::padded);
    ferry_source src = frame_source(frame);
    src.chroma_filter = FERRY_CHROMA_LINEAR;
    std::vector<std::uint8_t> rgb = applied_on_host(ctx_, src, rgb_u8_transform(), poison);
    ferry_source image;
    ferry_source_init(&image, sizeof image);
    image.data = rgb.data(), image.bytes = rgb.size();
    image.n = 1, image.h = 11, image.w = 17, image.c = 3;
    const ferry_transform t = detector_transform();
    EXPECT_EQ(applied_on_host(ctx_, src, t, poison), applied_on_host(ctx_, image, t, poison)) << "format " << f;
    EXPECT_EQ(submitted_on_host(ctx_, src, t), applied_on_host(ctx_, image, t, poison)) << "format " << f << " through the pipeline";
  }
}

// Batches: frames in one buffer (stride_n), sample pointers, and frames of
// different sizes, through the pipeline and ferry_transform_apply alike; each
// frame as it converts alone.
TEST_F(FrameFormats, BatchesOfFramesConvertAsEachFrameAlone) {
  std::mt19937 rng(17);
  const ferry_transform t = detector_transform();
  for (ferry_pixel_format f : all_frame_formats) {
    std::vector<TestFrame> frames;
    for (int i = 0; i < 3; ++i) frames.push_back(random_frame(rng, f, 10, 14, PlaneLayout::padded));
    std::vector<std::uint8_t> alone;
    for (const TestFrame& fr : frames) {
      const std::vector<std::uint8_t> one = applied_on_host(ctx_, frame_source(fr), t, poison);
      alone.insert(alone.end(), one.begin(), one.end());
    }
    // One buffer, frames 7 bytes apart beyond their extent.
    const std::size_t stride = frames[0].bytes.size() + 7;
    std::vector<std::uint8_t> buffer(stride * 3, 0);
    for (int i = 0; i < 3; ++i) std::copy(frames[i].bytes.begin(), frames[i].bytes.end(), buffer.begin() + i * stride);
    ferry_source batch = frame_source(frames[0]);
    batch.data = buffer.data(), batch.bytes = buffer.size(), batch.n = 3;
    batch.stride_n = static_cast<std::int64_t>(stride);
    EXPECT_EQ(applied_on_host(ctx_, batch, t, poison), alone) << "format " << f << ", one buffer";
    EXPECT_EQ(submitted_on_host(ctx_, batch, t), alone) << "format " << f << ", one buffer, pipeline";
    // Sample pointers.
    const void* pointers[3] = {frames[0].bytes.data(), frames[1].bytes.data(), frames[2].bytes.data()};
    ferry_source samples = frame_source(frames[0]);
    samples.data = nullptr, samples.bytes = 0, samples.samples = pointers, samples.n = 3;
    samples.sample_bytes = frames[0].bytes.size();
    EXPECT_EQ(submitted_on_host(ctx_, samples, t), alone) << "format " << f << ", sample pointers, pipeline";
  }
}

// RGB uint8 output of frames is decoded straight into the caller's buffer
// (no scratch, no second pass): into an output whose frames lie 5 bytes
// apart beyond their images, each frame equals the same frame through a
// transform that takes the scratch path (BGR, swapped back here), and the
// bytes between the frames keep their poison.
TEST_F(FrameFormats, RgbOutputIsDecodedIntoPaddedOutputs) {
  std::mt19937 rng(18);
  ferry_transform bgr = rgb_u8_transform();
  bgr.out_channels = 3;
  bgr.channel_map[0] = 2, bgr.channel_map[1] = 1, bgr.channel_map[2] = 0;
  for (ferry_pixel_format f : all_frame_formats) {
    std::vector<TestFrame> frames;
    for (int i = 0; i < 3; ++i) frames.push_back(random_frame(rng, f, 6, 10, PlaneLayout::padded));
    const void* pointers[3] = {frames[0].bytes.data(), frames[1].bytes.data(), frames[2].bytes.data()};
    ferry_source src = frame_source(frames[0]);
    src.data = nullptr, src.bytes = 0, src.samples = pointers, src.n = 3;
    src.sample_bytes = frames[0].bytes.size();
    const std::vector<std::uint8_t> swapped = applied_on_host(ctx_, src, bgr, poison);
    const std::size_t image = 6 * 10 * 3, stride = image + 5;
    std::vector<std::uint8_t> out(stride * 3, poison);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out.data(), o.bytes = out.size(), o.stride_n = static_cast<std::int64_t>(stride);
    const ferry_transform rgb = rgb_u8_transform();
    ASSERT_EQ(ferry_transform_apply(ctx_, &src, &rgb, &o, nullptr), FERRY_OK) << ferry_last_error();
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t p = 0; p < image; p += 3)
        for (std::size_t k = 0; k < 3; ++k)
          ASSERT_EQ(out[i * stride + p + k], swapped[i * image + p + 2 - k])
              << "format " << f << " frame " << i << " byte " << p + k;
      for (std::size_t b = image; b < stride && i * stride + b < out.size(); ++b)
        ASSERT_EQ(out[i * stride + b], poison) << "format " << f << ": the gap after frame " << i << " was written";
    }
  }
}

TEST_F(FrameFormats, FramesOfDifferentSizes) {
  std::mt19937 rng(18);
  const ferry_transform t = detector_transform();
  const std::int64_t sizes[][2] = {{10, 14}, {7, 9}, {20, 6}, {2, 2}};
  for (ferry_pixel_format f : all_frame_formats) {
    std::vector<TestFrame> frames;
    std::vector<std::uint8_t> alone;
    for (const auto& hw : sizes) frames.push_back(random_frame(rng, f, hw[0], hw[1], PlaneLayout::padded));
    for (const TestFrame& fr : frames) {
      const std::vector<std::uint8_t> one = applied_on_host(ctx_, frame_source(fr), t, poison);
      alone.insert(alone.end(), one.begin(), one.end());
    }
    const std::vector<ferry_sample_desc> descs = frame_descs(frames);
    const ferry_source src = frames_source(f, descs);
    EXPECT_EQ(applied_on_host(ctx_, src, t, poison), alone) << "format " << f;
    EXPECT_EQ(submitted_on_host(ctx_, src, t), alone) << "format " << f << ", pipeline";
  }
}

TEST_F(FrameFormats, BadDescriptionsAreRefusedNamingTheField) {
  std::mt19937 rng(19);
  const TestFrame nv12 = random_frame(rng, FERRY_FORMAT_NV12, 6, 8, PlaneLayout::packed);
  struct Bad {
    const char* what;
    ferry_status status;
    const char* message;
    void (*edit)(ferry_source&);
  };
  const Bad cases[] = {
      {"an unknown format", FERRY_ERR_UNSUPPORTED, "source.format is 42", [](ferry_source& s) { s.format = static_cast<ferry_pixel_format>(42); }},
      {"an unknown matrix", FERRY_ERR_UNSUPPORTED, "source.color_matrix is 7",
       [](ferry_source& s) { s.color_matrix = static_cast<ferry_color_matrix>(7); }},
      {"an unknown range", FERRY_ERR_UNSUPPORTED, "source.color_range is -1",
       [](ferry_source& s) { s.color_range = static_cast<ferry_color_range>(-1); }},
      {"an unknown chroma filter", FERRY_ERR_UNSUPPORTED, "source.chroma_filter is 2",
       [](ferry_source& s) { s.chroma_filter = static_cast<ferry_chroma_filter>(2); }},
      {"a luma pitch below the row", FERRY_ERR_INVALID_ARGUMENT, "source.plane_pitch[0] is 7: the Y plane's rows are 8 bytes",
       [](ferry_source& s) { s.plane_pitch[0] = 7; }},
      {"a chroma pitch below the row", FERRY_ERR_INVALID_ARGUMENT, "source.plane_pitch[1] is 4: the UV plane's rows are 8",
       [](ferry_source& s) { s.plane_pitch[1] = 4; }},
      {"a third plane for NV12", FERRY_ERR_INVALID_ARGUMENT, "source.plane_offset/plane_pitch[2] is 0/8: the format has 2 planes",
       [](ferry_source& s) { s.plane_pitch[2] = 8; }},
      {"a negative plane offset", FERRY_ERR_INVALID_ARGUMENT, "source.plane_offset[1] is -4",
       [](ferry_source& s) { s.plane_offset[1] = -4; }},
      {"too few bytes", FERRY_ERR_SOURCE_TOO_SMALL, "source.bytes is 71: 1 8x6 frames reach 72 bytes",
       [](ferry_source& s) { s.bytes = 71; }},
      {"a chroma plane past the end", FERRY_ERR_SOURCE_TOO_SMALL, "source.bytes is 72",
       [](ferry_source& s) { s.plane_offset[1] = 60; }},
      {"four channels", FERRY_ERR_INVALID_ARGUMENT, "source.c is 4: a frame format decodes to 3 channels",
       [](ferry_source& s) { s.c = 4; }},
      {"a planar layout", FERRY_ERR_INVALID_ARGUMENT, "source.layout is 2",
       [](ferry_source& s) { s.layout = FERRY_LAYOUT_NCHW; }},
      {"a stride instead of a pitch", FERRY_ERR_INVALID_ARGUMENT, "source.stride_c/h/w is 0/8/0",
       [](ferry_source& s) { s.stride_h = 8; }},
      {"a 1-pixel-wide Bayer frame", FERRY_ERR_INVALID_ARGUMENT, "source is a 1x6 Bayer frame",
       [](ferry_source& s) { s.format = FERRY_FORMAT_BAYER_RGGB, s.w = 1; }},
      {"planes for channels", FERRY_ERR_INVALID_ARGUMENT, "source.plane_offset or plane_pitch is set with format FERRY_FORMAT_CHANNELS",
       [](ferry_source& s) { s.format = FERRY_FORMAT_CHANNELS, s.c = 1; }},
      {"frames overlapping", FERRY_ERR_INVALID_ARGUMENT, "source.stride_n is 10: frames would overlap",
       [](ferry_source& s) { s.n = 2, s.stride_n = 10; }},
  };
  ferry_transform map4 = rgb_u8_transform();
  map4.out_channels = 4;
  map4.channel_map[3] = 3;
  for (const Bad& b : cases) {
    ferry_source src = frame_source(nv12);
    src.plane_pitch[0] = 8;  // given, so that "planes for channels" finds a plane field set
    b.edit(src);
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    const ferry_transform t = rgb_u8_transform();
    EXPECT_EQ(ferry_transform_describe_output(&info, &src, &t), b.status) << b.what << ": " << ferry_last_error();
    EXPECT_NE(std::string(ferry_last_error()).find(b.message), std::string::npos) << b.what << ": " << ferry_last_error();
    ferry_batch_t batch = nullptr;
    EXPECT_EQ(ferry_batch_submit(&batch, ctx_, &src, &t, nullptr, nullptr), b.status) << b.what;
    EXPECT_EQ(batch, nullptr) << b.what;
  }
  // A channel map asking for a fourth channel of a 3-channel RGB frame.
  const ferry_source src = frame_source(nv12);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &src, &map4), FERRY_ERR_OUT_OF_RANGE);
  EXPECT_NE(std::string(ferry_last_error()).find("transform.channel_map[3] is 3: the source has 3 channels"),
            std::string::npos)
      << ferry_last_error();
}

}  // namespace
