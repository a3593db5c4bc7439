// uint8 output in the source's own layout, unchanged (ConvertPlan::copies_bytes:
// a resident dataset's upload on the CPU backend), is copied a sample at a
// time (convert_cpu.cpp's copy_samples). Against the scalar reference, every
// byte of a poisoned output: both layouts, packed and padded rows and planes,
// one buffer and sample pointers, enough samples for several threads; a
// source whose pixels are strided takes the row path and agrees too.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/convert_plan.h"
#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"
#include "tests/support/test_context.h"

namespace {

struct Case {
  std::string name;
  ferry_layout layout;
  std::int64_t pad_row, pad_plane, pad_sample;  // bytes added to each stride (0: packed)
  std::int64_t pixel_step;                      // NHWC bytes from pixel to pixel (c: packed)
  bool pointers;                                // sample pointers instead of one buffer
};

TEST(ConvertCpuCopy, Uint8InTheSourcesLayoutIsItsBytesOnEveryRoute) {
  ferry_context_t ctx = ferry::test::make_test_context(FERRY_DEVICE_CPU, 3);
  ASSERT_NE(ctx, nullptr) << ferry_last_error();
  constexpr std::int64_t n = 300, h = 48, w = 64, c = 3;
  const Case cases[] = {
      {"NHWC packed", FERRY_LAYOUT_NHWC, 0, 0, 0, c, false},
      {"NHWC padded rows and samples", FERRY_LAYOUT_NHWC, 5, 0, 7, c, false},
      {"NHWC sample pointers", FERRY_LAYOUT_NHWC, 0, 0, 0, c, true},
      {"NCHW packed", FERRY_LAYOUT_NCHW, 0, 0, 0, 1, false},
      {"NCHW padded rows, planes and samples", FERRY_LAYOUT_NCHW, 3, 11, 13, 1, false},
      {"NHWC pixels 4 bytes apart (the row path)", FERRY_LAYOUT_NHWC, 0, 0, 0, c + 1, false},
  };
  std::mt19937 rng(3);
  for (const Case& k : cases) {
    const bool nhwc = k.layout == FERRY_LAYOUT_NHWC;
    const std::int64_t stride_w = nhwc ? k.pixel_step : 1;
    const std::int64_t stride_h = (nhwc ? w * k.pixel_step : w) + k.pad_row;
    const std::int64_t stride_c = nhwc ? 1 : h * stride_h + k.pad_plane;
    const std::int64_t stride_n = (nhwc ? h * stride_h : c * stride_c) + k.pad_sample;
    std::vector<std::uint8_t> data(static_cast<std::size_t>(n * stride_n));
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    std::vector<const void*> pointers;
    ferry_source s;
    ferry_source_init(&s, sizeof s);
    s.n = n, s.h = h, s.w = w, s.c = c;
    s.layout = k.layout;
    s.stride_c = stride_c, s.stride_h = stride_h, s.stride_w = stride_w;
    if (k.pointers) {
      for (std::int64_t i = n - 1; i >= 0; --i) pointers.push_back(data.data() + i * stride_n);  // in reverse
      s.samples = pointers.data();
      s.sample_bytes = static_cast<std::size_t>(stride_n);
    } else {
      s.data = data.data();
      s.bytes = data.size();
      s.stride_n = stride_n;
    }
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.out_dtype = FERRY_DTYPE_UINT8;
    t.out_layout = k.layout;
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    ASSERT_EQ(ferry_transform_describe_output(&info, &s, &t), FERRY_OK) << k.name << ": " << ferry_last_error();
    ASSERT_EQ(info.bytes, static_cast<std::size_t>(n * h * w * c)) << k.name;
    const ferry::core::ConvertPlan plan =
        ferry::core::make_convert_plan(ferry::api::to_core(s), ferry::api::to_core(t), nullptr);
    EXPECT_TRUE(plan.copies_bytes()) << k.name;
    std::vector<std::uint8_t> got(info.bytes, 0xCD), want(info.bytes, 0xCD);
    ferry_output out;
    ferry_output_init(&out, sizeof out);
    out.data = got.data();
    out.bytes = got.size();
    ASSERT_EQ(ferry_transform_apply(ctx, &s, &t, &out, nullptr), FERRY_OK) << k.name << ": " << ferry_last_error();
    out.data = want.data();
    ferry::test::reference_convert(s, t, out, want.data());
    std::int64_t first_difference = -1;
    for (std::size_t b = 0; b < got.size() && first_difference < 0; ++b)
      if (got[b] != want[b]) first_difference = static_cast<std::int64_t>(b);
    EXPECT_EQ(first_difference, -1) << k.name;
  }
  ferry_context_destroy(ctx);
}

}  // namespace
