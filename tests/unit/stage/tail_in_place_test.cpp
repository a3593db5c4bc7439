// An image converted as two bands of rows (tail_in_place.h) equals the image
// converted whole, on the CPU backend's kernels, byte for byte, outputs
// poisoned first; and which plans have a tail read in place, and how long.
// The GPU runs the same split on 1080p frames in tests/gpu/stage_frames_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/convert/convert_cpu.h"
#include "core/convert/convert_plan.h"
#include "core/stage/sample_layout.h"
#include "core/stage/tail_in_place.h"
#include "core/thread_pool.h"

namespace {

using namespace ferry::core;

struct Case {
  std::int64_t h, w, c;
  DType dtype;
  Layout layout;
  int out_channels, mirror, pad_to_4;
  const char* what;
};

SourceDesc source_of(const Case& k, const std::vector<std::uint8_t>& pixels) {
  SourceDesc s;
  s.data = pixels.data();
  s.bytes = pixels.size();
  s.n = 1, s.h = k.h, s.w = k.w, s.c = k.c;
  return s;
}

Transform transform_of(const Case& k) {
  Transform t;
  t.out_dtype = k.dtype;
  t.out_layout = k.layout;
  t.out_channels = k.out_channels;
  for (int i = 0; i < k.out_channels; ++i) t.channel_map[i] = (k.c - 1 - i + k.c) % k.c;  // reversed, e.g. BGR -> RGB
  t.mirror = k.mirror;
  t.pad_channels_to_4 = k.pad_to_4;
  t.pad_value = 7.0f;
  if (k.dtype == DType::UInt8) return t;  // uint8 output does no arithmetic
  const float mean[4] = {0.485f, 0.456f, 0.406f, 0.5f}, stdev[4] = {0.229f, 0.224f, 0.225f, 0.25f};
  for (int i = 0; i < 4; ++i) t.mean[i] = mean[i], t.std[i] = stdev[i];
  return t;
}

// The output of the whole plan, and of its head and tail converted apart into
// a second buffer; "" when every byte agrees.
std::string compare_split(const Case& k, std::int64_t tail_rows) {
  static ThreadPool pool(2);
  std::mt19937 rng(static_cast<std::uint32_t>(k.h * 131 + k.w * 7 + tail_rows));
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(k.h * k.w * k.c));
  for (auto& p : pixels) p = static_cast<std::uint8_t>(rng());
  const SourceDesc source = source_of(k, pixels);
  const ConvertPlan plan = make_convert_plan(source, transform_of(k), nullptr);
  std::vector<std::uint8_t> whole(plan.out_extent, 0xA5), banded(plan.out_extent, 0x5A);
  const SourceView view = source_view_of(plan, source);
  convert_on_cpu(plan, view, 0, 1, whole.data(), pool);
  const RowSplit split = split_rows(plan, tail_rows);
  if (split.tail_source_offset != head_source_bytes(plan, tail_rows)) return "the tail starts off the head's end";
  convert_on_cpu(split.head, view, 0, 1, banded.data() + split.head_output_offset, pool);
  SourceView tail = view;
  tail.base += split.tail_source_offset;
  convert_on_cpu(split.tail, tail, 0, 1, banded.data() + split.tail_output_offset, pool);
  for (std::size_t i = 0; i < whole.size(); ++i)
    if (whole[i] != banded[i])
      return std::string(k.what) + ", tail of " + std::to_string(tail_rows) + " rows: byte " + std::to_string(i) +
             " of " + std::to_string(whole.size()) + " is " + std::to_string(banded[i]) + ", whole " +
             std::to_string(whole[i]);
  return "";
}

const Case kCases[] = {
    {1080, 1920, 4, DType::Float16, Layout::NCHW, 3, kMirrorY, 0, "1080p BGRA -> RGB f16 NCHW, mirror Y"},
    {37, 53, 3, DType::UInt8, Layout::NHWC, 3, kMirrorX, 0, "37x53 RGB -> BGR u8 NHWC, mirror X"},
    {41, 29, 3, DType::Float32, Layout::NCHW, 3, kMirrorX | kMirrorY, 0, "41x29 RGB -> f32 NCHW, both mirrors"},
    {33, 17, 4, DType::Float16, Layout::NHWC, 3, 0, 1, "33x17 BGRA -> RGB f16 NHWC padded to 4"},
    {19, 31, 1, DType::BFloat16, Layout::NCHW, 3, kMirrorY, 0, "19x31 gray -> bf16 NCHW x3, mirror Y"},
};

TEST(TailInPlace, TwoBandsEqualTheWholeImage) {
  for (const Case& k : kCases) {
    const std::int64_t tails[] = {1, 7, k.h / 2, k.h - 1};
    for (std::int64_t t : tails) EXPECT_EQ(compare_split(k, t), "");
  }
}

ConvertPlan plan_of(const Case& k, Transform t, std::vector<std::uint8_t>& pixels) {
  pixels.assign(static_cast<std::size_t>(k.h * k.w * k.c), 0);
  return make_convert_plan(source_of(k, pixels), t, nullptr);
}

TEST(TailInPlace, ALargeFramesTailIsAbout1Of96OfItsBytes) {
  std::vector<std::uint8_t> pixels;
  const Case frame = kCases[0];
  const ConvertPlan plan = plan_of(frame, transform_of(frame), pixels);
  // (8,294,400 source + 12,441,600 output bytes) / 96 = 216,000 bytes: 29 rows of 7,680 (28.1 rounded up).
  EXPECT_EQ(tail_rows_in_place(plan, sample_layout_of(plan)), 29);
  const Case rgb720 = {720, 1280, 3, DType::UInt8, Layout::NHWC, 3, 0, 0, "720p"};
  const ConvertPlan p720 = plan_of(rgb720, transform_of(rgb720), pixels);
  // (2,764,800 x 2) / 96 = 57,600 bytes: under 64 KiB, no tail.
  EXPECT_EQ(tail_rows_in_place(p720, sample_layout_of(p720)), 0);
}

TEST(TailInPlace, PlansThatDoNotConvertRowForRowHaveNoTail) {
  std::vector<std::uint8_t> pixels;
  const Case frame = kCases[0];
  Transform crop = transform_of(frame);
  crop.crop = {0, 8, 1920, 1000};
  Transform resize = transform_of(frame);
  resize.resize_w = resize.resize_h = 640;
  Transform window_x = transform_of(frame);
  window_x.crop = {16, 0, 1900, 1080};
  for (const Transform& t : {crop, resize, window_x}) {
    const ConvertPlan plan = plan_of(frame, t, pixels);
    EXPECT_EQ(tail_rows_in_place(plan, sample_layout_of(plan)), 0);
  }
  // Two samples (a batch: its chunks are copied and converted whole).
  SourceDesc two = source_of(frame, pixels);
  pixels.resize(pixels.size() * 2);
  two.data = pixels.data(), two.bytes = pixels.size(), two.n = 2;
  const ConvertPlan batch = make_convert_plan(two, transform_of(frame), nullptr);
  EXPECT_EQ(tail_rows_in_place(batch, sample_layout_of(batch)), 0);
  // An NCHW source: a band of rows is not one run of bytes.
  SourceDesc planar = source_of(frame, pixels);
  planar.layout = Layout::NCHW;
  const ConvertPlan nchw = make_convert_plan(planar, transform_of(frame), nullptr);
  EXPECT_EQ(tail_rows_in_place(nchw, sample_layout_of(nchw)), 0);
}

}  // namespace
