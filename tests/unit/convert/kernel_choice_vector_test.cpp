// The vector kernel's variants (core/convert/kernel_choice.h): which calls of
// four units a thread reach across a sample's rows or start off the load
// width, and which carry their per-sample windows in the launch. Host logic
// only, tested on every machine; the GPU side is in
// tests/gpu/convert_many_steps_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/convert/convert_plan.h"
#include "core/convert/kernel_choice.h"
#include "tests/support/kernel_choice_calls.h"

namespace {

using namespace ferry::core;
using ferry::test::Call;
using ferry::test::imagenet;

// Calls of four units a thread take the variant their runs need: within a
// run (whole samples), across a sample's rows, or across rows that start
// off the load width (per-sample crops at any origin, NCHW output only:
// with NHWC output, and with one unit a thread, those take the window kernel).
TEST(KernelChoice, VectorVariantsFollowTheRuns) {
  auto batch = [](std::int64_t n) {
    Call c = imagenet(DType::Float32, Layout::NCHW);
    c.source.n = n;
    c.source.bytes = static_cast<std::size_t>(n * 224 * 224 * 3);
    return c;
  };
  Call whole = batch(256);
  EXPECT_EQ(cuda_convert::vector_variant(whole.choose().params, 4), 1);
  Call flips = batch(256);
  for (int i = 0; i < 256; ++i) flips.mirrors.push_back(static_cast<std::uint8_t>(i % 2));
  const KernelChoice f = flips.choose();
  EXPECT_EQ(f.vector_step, 4);
  EXPECT_EQ(cuda_convert::vector_variant(f.params, f.vector_step), 2);
  EXPECT_EQ(f.params.source_unaligned, 0);
  Call crops = batch(256);
  for (int i = 0; i < 256; ++i) crops.crops.push_back(Rect{i % 32, i % 17, 192, 192});  // x0 * 3 off 4 bytes
  const KernelChoice c = crops.choose();
  EXPECT_EQ(c.path, KernelPath::vector);
  EXPECT_EQ(c.params.source_unaligned, 1);
  EXPECT_EQ(cuda_convert::vector_variant(c.params, c.vector_step), 3);
  Call few = batch(8);  // 8 images: one unit a thread, so the window kernel
  for (int i = 0; i < 8; ++i) few.crops.push_back(Rect{1 + i, i, 192, 192});
  EXPECT_EQ(few.choose().path, KernelPath::window);
  Call odd(256, 224, 225, 3);  // rows of 675 bytes: not on words, so the window kernel
  odd.transform.out_dtype = DType::Float32;
  odd.transform.out_layout = Layout::NCHW;
  for (int i = 0; i < 256; ++i) odd.crops.push_back(Rect{1 + i % 31, i % 17, 192, 192});
  EXPECT_EQ(odd.choose().path, KernelPath::window);
  Call nhwc = batch(256);
  nhwc.transform.out_dtype = DType::BFloat16;
  nhwc.transform.out_layout = Layout::NHWC;
  for (int i = 0; i < 256; ++i) nhwc.crops.push_back(Rect{1 + i % 31, i % 17, 192, 192});
  EXPECT_NE(nhwc.choose().path, KernelPath::vector);
}

// Per-sample crops and flips alone ride in the launch (no table copy): packed
// origin and mirror per sample, for the rows variants of at most
// kInlineWindows samples; anything else per sample keeps the table.
TEST(KernelChoice, PerSampleWindowsRideInTheLaunch) {
  Call crops = imagenet(DType::Float32, Layout::NCHW);
  crops.source.n = 256;
  crops.source.bytes = static_cast<std::size_t>(256 * 224 * 224 * 3);
  for (int i = 0; i < 256; ++i) {
    crops.crops.push_back(Rect{i % 32, 31 - i % 32, 192, 192});
    crops.mirrors.push_back(static_cast<std::uint8_t>(i % 4));
  }
  KernelChoice choice = crops.choose();
  const ConvertPlan plan = make_convert_plan(crops.source, crops.transform, nullptr);
  cuda_convert::InlineWindows windows;
  ASSERT_EQ(choice.path, KernelPath::vector);
  ASSERT_EQ(cuda_convert::vector_variant(choice.params, choice.vector_step), 3);
  ASSERT_TRUE(choose_inline_windows(plan, 0, 256, choice, windows));
  EXPECT_EQ(choice.params.inline_windows, 1);
  for (int i = 0; i < 256; ++i) {
    const std::uint32_t w = windows.packed[i];
    EXPECT_EQ(w & cuda_convert::kInlineCoordinateMask, static_cast<std::uint32_t>(i % 32)) << i;
    EXPECT_EQ((w >> 15) & cuda_convert::kInlineCoordinateMask, static_cast<std::uint32_t>(31 - i % 32)) << i;
    EXPECT_EQ(w >> 30, static_cast<std::uint32_t>(i % 4)) << i;
  }
  KernelChoice tail = crops.choose(56, 200);  // a chunk: its local samples from global 56
  ASSERT_TRUE(choose_inline_windows(plan, 56, 200, tail, windows));
  EXPECT_EQ(windows.packed[0] & cuda_convert::kInlineCoordinateMask, 56u % 32u);

  KernelChoice whole = imagenet(DType::Float32, Layout::NCHW).choose();  // nothing per sample
  EXPECT_FALSE(choose_inline_windows(plan, 0, 8, whole, windows));
  EXPECT_EQ(whole.params.inline_windows, 0);
  KernelChoice too_many = crops.choose();
  EXPECT_FALSE(choose_inline_windows(plan, 0, cuda_convert::kInlineWindows + 1, too_many, windows));
  std::vector<float> means(256 * 3, 0.5f), stds(256 * 3, 0.25f);
  crops.transform.per_sample_mean = means.data();
  crops.transform.per_sample_std = stds.data();
  KernelChoice stats = crops.choose();
  const ConvertPlan with_stats = make_convert_plan(crops.source, crops.transform, nullptr);
  EXPECT_FALSE(choose_inline_windows(with_stats, 0, 256, stats, windows));
  EXPECT_EQ(stats.params.inline_windows, 0);
}

}  // namespace
