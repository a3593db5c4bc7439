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

namespace {

using namespace ferry::core;

// Sixteen-byte-aligned stand-ins for device addresses (never dereferenced).
std::uint8_t* const kSource = reinterpret_cast<std::uint8_t*>(std::uintptr_t{1} << 32);
std::uint8_t* const kOutput = reinterpret_cast<std::uint8_t*>(std::uintptr_t{1} << 36);

struct Call {
  SourceDesc source;
  Transform transform;
  std::vector<Rect> crops;
  std::vector<std::uint8_t> mirrors;
  Call(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
    source.data = kSource;
    source.n = n, source.h = h, source.w = w, source.c = c;
    source.bytes = static_cast<std::size_t>(n * h * w * c);
  }
  KernelChoice choose(std::int64_t first = 0, std::int64_t count = -1) {
    if (!crops.empty()) transform.per_sample_crop = crops.data();
    if (!mirrors.empty()) transform.per_sample_mirror = mirrors.data();
    if (!crops.empty() || !mirrors.empty()) transform.per_sample_count = source.n;
    const ConvertPlan plan = make_convert_plan(source, transform, nullptr);
    return choose_kernel(plan, source_view_of(plan, source), first, count < 0 ? plan.n : count, kOutput);
  }
};

Call imagenet(DType dtype, Layout layout) {
  Call c(8, 224, 224, 3);
  c.transform.out_dtype = dtype;
  c.transform.out_layout = layout;
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

// The vector kernel loads two units at a time per thread (PERF_NOTES.md);
// the other kernels leave the step at its default.
TEST(KernelChoice, TheVectorKernelStepsTwoUnitsAtATime) {
  EXPECT_EQ(imagenet(DType::Float32, Layout::NCHW).choose().vector_step, 2);
  EXPECT_EQ(imagenet(DType::BFloat16, Layout::NHWC).choose().vector_step, 2);
  Call mirrored = imagenet(DType::Float32, Layout::NCHW);
  mirrored.transform.mirror = 1;
  const KernelChoice window = mirrored.choose();
  EXPECT_EQ(window.path, KernelPath::window);
  EXPECT_EQ(window.vector_step, 1);
}

TEST(KernelChoice, MirrorCropPaddingAndChannelMapsTakeTheWindowKernel) {
  for (int mirror : {kMirrorX, kMirrorY, kMirrorX | kMirrorY}) {
    Call c = imagenet(DType::Float32, Layout::NCHW);
    c.transform.mirror = mirror;
    EXPECT_EQ(c.choose().path, KernelPath::window) << "mirror " << mirror;
  }
  Call flips = imagenet(DType::Float32, Layout::NCHW);
  for (int i = 0; i < 8; ++i) flips.mirrors.push_back(static_cast<std::uint8_t>(i % 2));
  EXPECT_EQ(flips.choose().path, KernelPath::window);

  Call random_crop = imagenet(DType::Float32, Layout::NCHW);
  for (int i = 0; i < 8; ++i) random_crop.crops.push_back(Rect{3 * i + 1, i, 200, 200});
  EXPECT_EQ(random_crop.choose().path, KernelPath::window);

  Call padded = imagenet(DType::Float32, Layout::NCHW);
  padded.transform.crop = Rect{-16, -16, 256, 256};
  padded.transform.pad_outside = 1;
  EXPECT_EQ(padded.choose().path, KernelPath::window);

  Call pad4 = imagenet(DType::Float16, Layout::NHWC);
  pad4.transform.pad_channels_to_4 = 1;
  const KernelChoice p4 = pad4.choose();
  EXPECT_EQ(p4.path, KernelPath::window);
  EXPECT_EQ(p4.window_shape, 4);

  Call bgr = imagenet(DType::BFloat16, Layout::NHWC);
  bgr.transform.out_channels = 3;
  bgr.transform.channel_map[0] = 2, bgr.transform.channel_map[2] = 0;
  const KernelChoice b = bgr.choose();
  EXPECT_EQ(b.path, KernelPath::window);
  EXPECT_EQ(b.window_shape, 3);

  Call readback(4, 1080, 1920, 4);  // a GL readback: BGRA, bottom row first
  readback.transform.out_dtype = DType::Float16;
  readback.transform.out_channels = 3;
  readback.transform.channel_map[0] = 2, readback.transform.channel_map[2] = 0;
  readback.transform.mirror = kMirrorY;
  const KernelChoice r = readback.choose();
  EXPECT_EQ(r.path, KernelPath::window);
  EXPECT_EQ(r.window_shape, 0);

  Call gray(8, 224, 224, 1);
  gray.transform.out_channels = 3;
  gray.transform.channel_map[1] = gray.transform.channel_map[2] = 0;
  gray.transform.out_layout = Layout::NHWC;
  EXPECT_EQ(gray.choose().path, KernelPath::window);

  for (Layout layout : {Layout::NCHW, Layout::NHWC}) {
    Call u8 = imagenet(DType::UInt8, layout);
    EXPECT_EQ(u8.choose().path, KernelPath::window);
  }
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
    EXPECT_TRUE(path == KernelPath::window || path == KernelPath::vector)
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
  EXPECT_STREQ(kernel_path_name(KernelPath::window), "window");
  EXPECT_STREQ(kernel_path_name(KernelPath::runs), "runs");
  EXPECT_STREQ(kernel_path_name(KernelPath::generic), "generic");
}

}  // namespace
