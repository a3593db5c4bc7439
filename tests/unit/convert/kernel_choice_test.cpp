// Which CUDA kernel takes a call (core/convert/kernel_choice.h), decided on
// the host and so tested here on every machine: the cases of issue 12's
// table each reach the unit kernels (vector or window), what those cannot
// take falls back to the runs or generic kernel, and the window kernel's
// geometry covers every output pixel. No memory is touched: the source and
// output addresses are only compared for alignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/convert_plan.h"
#include "core/convert/kernel_choice.h"
#include "tests/support/convert_fast_path_cases.h"
#include "tests/support/convert_many_steps_cases.h"
#include "tests/support/kernel_choice_calls.h"

namespace {

using namespace ferry::core;
using ferry::test::Call;
using ferry::test::imagenet;
using ferry::test::kOutput;

Call padded_window() {  // a window reaching 16 pixels past every edge
  Call c = imagenet(DType::Float32, Layout::NCHW);
  c.transform.crop = Rect{-16, -16, 256, 256};
  c.transform.pad_outside = 1;
  return c;
}

TEST(KernelChoice, BaseCasesTakeTheVectorKernel) {
  EXPECT_EQ(imagenet(DType::Float32, Layout::NCHW).choose().path, KernelPath::vector);
  EXPECT_EQ(imagenet(DType::Float16, Layout::NCHW).choose().path, KernelPath::vector);
  EXPECT_EQ(imagenet(DType::BFloat16, Layout::NHWC).choose().path, KernelPath::vector);
  Call crop = imagenet(DType::Float32, Layout::NCHW);
  crop.transform.crop = Rect{16, 16, 192, 192};  // a center crop: aligned rows
  EXPECT_EQ(crop.choose().path, KernelPath::vector);
  // Per-sample windows whose rows all start aligned keep the vector kernel.
  Call aligned = imagenet(DType::Float32, Layout::NCHW);
  for (int i = 0; i < 8; ++i) aligned.crops.push_back(Rect{4 * i, i, 192, 192});
  EXPECT_EQ(aligned.choose().path, KernelPath::vector);
}

// The vector kernel loads four units at a time per thread where the call
// has enough of them (PERF_NOTES.md);
// the other kernels leave the step at its default.
TEST(KernelChoice, TheVectorKernelStepsFourUnitsAtATime) {
  Call batch = imagenet(DType::Float32, Layout::NCHW);  // 256 images: 3.2 M units
  batch.source.n = 256;
  batch.source.bytes = static_cast<std::size_t>(256 * 224 * 224 * 3);
  EXPECT_EQ(batch.choose().vector_step, 4);
  batch.transform.out_dtype = DType::BFloat16;
  batch.transform.out_layout = Layout::NHWC;
  EXPECT_EQ(batch.choose().vector_step, 4);
  // Fewer units than fill the GPU four times over (8 images, a 1080p frame): one a thread.
  EXPECT_EQ(imagenet(DType::Float32, Layout::NCHW).choose().vector_step, 1);
  Call frame(1, 1080, 1920, 4);
  frame.transform.out_dtype = DType::Float16;
  frame.transform.out_channels = 3;
  frame.transform.mirror = kMirrorY;
  const KernelChoice f = frame.choose();
  EXPECT_EQ(f.path, KernelPath::vector);
  EXPECT_EQ(f.vector_step, 1);
  const KernelChoice window = padded_window().choose();
  EXPECT_EQ(window.path, KernelPath::window);
  EXPECT_EQ(window.vector_step, 1);
}

// Mirrored NCHW output keeps the vector kernel, one run per row; mirrored
// NHWC output (a pixel's channels stay in order) takes the window kernel, as
// do rows too short for a run, and nothing mirrored falls to the runs kernel.
TEST(KernelChoice, MirroredNchwRowsTakeTheVectorKernel) {
  for (int mirror : {kMirrorX, kMirrorY, kMirrorX | kMirrorY}) {
    Call c = imagenet(DType::Float32, Layout::NCHW);
    c.transform.mirror = mirror;
    const KernelChoice v = c.choose();
    EXPECT_EQ(v.path, KernelPath::vector) << "mirror " << mirror;
    EXPECT_EQ(v.params.runs_per_sample_div.d, 224u) << "mirror " << mirror;
    EXPECT_EQ(v.params.units_per_run.d, 224u / 4u) << "mirror " << mirror;
  }
  Call flips = imagenet(DType::Float32, Layout::NCHW);
  for (int i = 0; i < 8; ++i) flips.mirrors.push_back(static_cast<std::uint8_t>(i % 4));
  EXPECT_EQ(flips.choose().path, KernelPath::vector);

  Call readback(4, 1080, 1920, 4);  // a GL readback: BGRA, bottom row first
  readback.transform.out_dtype = DType::Float16;
  readback.transform.out_channels = 3;
  readback.transform.channel_map[0] = 2, readback.transform.channel_map[2] = 0;
  readback.transform.mirror = kMirrorY;
  EXPECT_EQ(readback.choose().path, KernelPath::vector);

  Call nhwc = imagenet(DType::BFloat16, Layout::NHWC);
  nhwc.transform.mirror = kMirrorX;
  EXPECT_EQ(nhwc.choose().path, KernelPath::window);
  Call narrow(8, 224, 48, 3);  // rows of 48 pixels: no runs
  narrow.transform.mirror = kMirrorY;
  EXPECT_EQ(narrow.choose().path, KernelPath::window);
  Call two = imagenet(DType::Float32, Layout::NHWC);  // 2 channels: no unit kernel
  two.transform.out_channels = 2;
  two.transform.mirror = kMirrorY;
  EXPECT_EQ(two.choose().path, KernelPath::generic);
}

TEST(KernelChoice, CropPaddingAndChannelMapsTakeTheWindowKernel) {
  Call flips = imagenet(DType::Float32, Layout::NCHW);  // flips with crops off the load width
  for (int i = 0; i < 8; ++i) {
    flips.mirrors.push_back(static_cast<std::uint8_t>(i % 2));
    flips.crops.push_back(Rect{3 * i + 1, i, 200, 200});
  }
  EXPECT_EQ(flips.choose().path, KernelPath::window);

  Call random_crop = imagenet(DType::Float32, Layout::NCHW);
  for (int i = 0; i < 8; ++i) random_crop.crops.push_back(Rect{3 * i + 1, i, 200, 200});
  EXPECT_EQ(random_crop.choose().path, KernelPath::window);

  EXPECT_EQ(padded_window().choose().path, KernelPath::window);

  // NHWC output that is not the input stream, mirrored: the window kernel.
  Call pad4 = imagenet(DType::Float16, Layout::NHWC);
  pad4.transform.pad_channels_to_4 = 1;
  pad4.transform.mirror = kMirrorX;
  const KernelChoice p4 = pad4.choose();
  EXPECT_EQ(p4.path, KernelPath::window);
  EXPECT_EQ(p4.window_shape, 4);

  Call bgr = imagenet(DType::BFloat16, Layout::NHWC);
  bgr.transform.out_channels = 3;
  bgr.transform.channel_map[0] = 2, bgr.transform.channel_map[2] = 0;
  for (int i = 0; i < 8; ++i) bgr.crops.push_back(Rect{3 * i + 1, i, 200, 200});
  const KernelChoice b = bgr.choose();
  EXPECT_EQ(b.path, KernelPath::window);
  EXPECT_EQ(b.window_shape, 3);

  Call readback(4, 1080, 1920, 4);  // a GL readback cropped off the load width
  readback.transform.out_dtype = DType::Float16;
  readback.transform.out_channels = 3;
  readback.transform.channel_map[0] = 2, readback.transform.channel_map[2] = 0;
  readback.transform.mirror = kMirrorY;
  readback.transform.crop = Rect{1, 0, 1904, 1080};
  const KernelChoice r = readback.choose();
  EXPECT_EQ(r.path, KernelPath::window);
  EXPECT_EQ(r.window_shape, 0);

  Call u8 = imagenet(DType::UInt8, Layout::NCHW);  // uint8 NCHW: the vector kernel, unless mirrored off the load width
  EXPECT_EQ(u8.choose().path, KernelPath::vector);
  u8.transform.crop = Rect{1, 0, 192, 224};
  EXPECT_EQ(u8.choose().path, KernelPath::window);
}

// Runs into NHWC output that is not the input stream (a channel map, padding
// to 4, another channel count, uint8) take the pixel-stream kernel where
// every run starts on a source word, else the window kernel.
TEST(KernelChoice, NhwcChannelMapsPaddingAndUint8TakeThePixelStreamKernel) {
  Call pad4 = imagenet(DType::Float16, Layout::NHWC);
  pad4.transform.pad_channels_to_4 = 1;
  pad4.transform.pad_value = 1.0f;  // float16 0x3C00
  const KernelChoice p4 = pad4.choose();
  EXPECT_EQ(p4.path, KernelPath::pixels);
  for (int q = 0; q < 4; ++q) {  // the upper half of every odd element pair
    EXPECT_EQ(p4.params.pad_mask[q], q % 2 ? 0xFFFF0000u : 0u);
    EXPECT_EQ(p4.params.pad_pattern[q], q % 2 ? 0x3C000000u : 0u);
  }

  Call bgr = imagenet(DType::BFloat16, Layout::NHWC);
  bgr.transform.out_channels = 3;
  bgr.transform.channel_map[0] = 2, bgr.transform.channel_map[2] = 0;
  const KernelChoice b = bgr.choose();
  EXPECT_EQ(b.path, KernelPath::pixels);
  // A unit starting at channel r reads element 3m + j from byte
  // 3m + 3 * ((r + j) / 3) + map[(r + j) % 3] of its first pixel on.
  const int expected[3][3] = {{2, 1, 0}, {1, 0, 5}, {0, 5, 4}};
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ((b.params.pixel_offsets >> (4 * (3 * r + j))) & 15u, static_cast<std::uint64_t>(expected[r][j]))
          << "r " << r << ", j " << j;
  EXPECT_EQ(b.params.pixel_offsets >> 36, 0u);

  Call gray(8, 224, 224, 1);
  gray.transform.out_channels = 3;
  gray.transform.channel_map[1] = gray.transform.channel_map[2] = 0;
  gray.transform.out_layout = Layout::NHWC;
  EXPECT_EQ(gray.choose().path, KernelPath::pixels);

  Call bgra(2, 1080, 1920, 4);
  bgra.transform.out_dtype = DType::Float32;
  bgra.transform.out_layout = Layout::NHWC;
  bgra.transform.out_channels = 3;
  bgra.transform.channel_map[0] = 2, bgra.transform.channel_map[2] = 0;
  EXPECT_EQ(bgra.choose().path, KernelPath::pixels);

  Call u8 = imagenet(DType::UInt8, Layout::NHWC);
  u8.transform.pad_channels_to_4 = 1;
  u8.transform.pad_value = 11.0f;
  const KernelChoice u = u8.choose();
  ASSERT_EQ(u.path, KernelPath::pixels);
  for (int q = 0; q < 4; ++q) {  // every fourth byte of a 16-byte vector is padding
    EXPECT_EQ(u.params.pad_mask[q], 0xFF000000u);
    EXPECT_EQ(u.params.pad_pattern[q], 11u << 24);
  }
  EXPECT_EQ(u.params.units, 8u * 224u * 224u * 4u / 16u);  // one unit per 16 output bytes
  EXPECT_EQ(u.params.units_per_run.d, 224u * 224u * 4u / 16u);

  // Rows of a center crop: one run per row, each on a source word.
  Call crop = imagenet(DType::Float16, Layout::NHWC);
  crop.transform.pad_channels_to_4 = 1;
  crop.transform.crop = Rect{16, 16, 192, 192};
  const KernelChoice c = crop.choose();
  ASSERT_EQ(c.path, KernelPath::pixels);
  EXPECT_EQ(c.params.runs_per_sample_div.d, 192u);

  // A window whose rows start off a word (x = 1: byte 3), or rows of an odd
  // byte count: the window kernel.
  Call off = imagenet(DType::Float16, Layout::NHWC);
  off.transform.pad_channels_to_4 = 1;
  off.transform.crop = Rect{1, 16, 192, 192};
  EXPECT_EQ(off.choose().path, KernelPath::window);
  Call odd(8, 225, 225, 3);
  odd.transform.out_dtype = DType::UInt8;
  odd.transform.out_layout = Layout::NHWC;
  odd.transform.pad_channels_to_4 = 1;
  EXPECT_EQ(odd.choose().path, KernelPath::window);
}

TEST(KernelChoice, WindowGeometryCoversEveryOutputPixel) {
  // 17 pixels wide, float32: units of 4 pixels, the last one partial.
  Call odd(3, 5, 17, 3);
  odd.transform.mirror = kMirrorX;
  const KernelChoice c = odd.choose(1, 2);
  ASSERT_EQ(c.path, KernelPath::window);
  EXPECT_EQ(c.params.units_per_run.d, 5u);
  EXPECT_EQ(c.params.runs_per_sample_div.d, 5u);
  EXPECT_EQ(c.params.units, 2u * 5u * 5u);
  EXPECT_EQ(c.params.first, 1);
  // uint8: units of 16 pixels; a single column is one unit per row.
  Call column(2, 9, 1, 4);
  column.transform.out_dtype = DType::UInt8;
  column.transform.mirror = kMirrorY;
  const KernelChoice u = column.choose();
  ASSERT_EQ(u.path, KernelPath::window);
  EXPECT_EQ(u.params.units_per_run.d, 1u);
  EXPECT_EQ(u.params.units, 2u * 9u);
}

TEST(KernelChoice, WhatTheUnitKernelsCannotTakeFallsBack) {
  // Planar source: the generic kernel.
  Call planar = imagenet(DType::Float32, Layout::NCHW);
  planar.source.layout = Layout::NCHW;
  EXPECT_EQ(planar.choose().path, KernelPath::generic);
  // NHWC output of 2 channels: the runs kernel, or the generic one when mirrored.
  Call two = imagenet(DType::Float32, Layout::NHWC);
  two.transform.out_channels = 2;
  EXPECT_EQ(two.choose().path, KernelPath::runs);
  two.transform.mirror = kMirrorX;
  EXPECT_EQ(two.choose().path, KernelPath::generic);
  // Pixels further apart than their channels (a source stride_w of 4 for 3 channels).
  Call spaced = imagenet(DType::Float32, Layout::NCHW);
  spaced.source.stride_w = 4;
  spaced.source.bytes = static_cast<std::size_t>(8 * 224 * 224 * 4);
  EXPECT_EQ(spaced.choose().path, KernelPath::generic);
}

// Every case of the GPU fast-path test reaches a unit kernel, so that test
// checks the new paths, not the fallbacks.
TEST(KernelChoice, EveryFastPathTestCaseTakesAUnitKernel) {
  int cases = 0;
  ferry::test::for_each_fast_case([&](ferry::test::WindowCase* c) {
    ASSERT_NE(c, nullptr) << ferry_last_error();
    ++cases;
    const SourceDesc source = ferry::api::to_core(c->source);
    const ConvertPlan plan = make_convert_plan(source, ferry::api::to_core(c->transform), nullptr);
    const KernelPath path = choose_kernel(plan, source_view_of(plan, source), 0, plan.n, kOutput).path;
    EXPECT_TRUE(path == KernelPath::window || path == KernelPath::vector || path == KernelPath::pixels)
        << c->name << " takes the " << kernel_path_name(path) << " kernel";
  });
  EXPECT_GT(cases, 7000);
}

// The kernels read the table's coefficients only when they differ per sample.
TEST(KernelChoice, PerSampleCoefficientsAreFlagged) {
  Call flips = imagenet(DType::Float32, Layout::NCHW);
  flips.mirrors.assign(8, 1);
  EXPECT_EQ(flips.choose().params.sample_coefficients, 0);
  Call stats = imagenet(DType::Float32, Layout::NCHW);
  const std::vector<float> means(8 * 3, 0.5f), stds(8 * 3, 0.25f);
  stats.transform.per_sample_mean = means.data();
  stats.transform.per_sample_std = stds.data();
  stats.transform.per_sample_count = 8;
  EXPECT_EQ(stats.choose().params.sample_coefficients, 1);
}

// The large-batch GPU test's cases take the kernels they are meant to step through.
TEST(KernelChoice, ManyStepsTestCasesTakeTheirKernels) {
  std::uint32_t seed = 7;
  for (const ferry::test::ManyStepsSpec& spec : ferry::test::many_steps_specs) {
    const auto c = ferry::test::make_many_steps_case(spec, seed++);
    ASSERT_NE(c, nullptr) << spec.name << ": " << ferry_last_error();
    EXPECT_EQ(ferry::test::many_steps_path(*c), spec.path) << spec.name;
  }
}

TEST(KernelChoice, PathsHaveNames) {
  EXPECT_STREQ(kernel_path_name(KernelPath::vector), "vector");
  EXPECT_STREQ(kernel_path_name(KernelPath::pixels), "pixels");
  EXPECT_STREQ(kernel_path_name(KernelPath::window), "window");
  EXPECT_STREQ(kernel_path_name(KernelPath::runs), "runs");
  EXPECT_STREQ(kernel_path_name(KernelPath::generic), "generic");
}

}  // namespace
