// Validation of sources, transforms and outputs: every bad input gets its own
// status and a message naming the argument and the value; nothing crashes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ferry/ferry.h"

namespace {

struct Fixture {
  std::vector<std::uint8_t> in = std::vector<std::uint8_t>(2 * 4 * 5 * 3, 1);
  std::vector<float> out = std::vector<float>(2 * 3 * 4 * 5, 0);
  ferry_source s{};
  ferry_transform t{};
  ferry_output o{};
  ferry_context_t ctx = nullptr;
  Fixture() {
    ferry_source_init(&s, sizeof s);
    ferry_transform_init(&t, sizeof t);
    ferry_output_init(&o, sizeof o);
    s.data = in.data();
    s.bytes = in.size();
    s.n = 2, s.h = 4, s.w = 5, s.c = 3;
    o.data = out.data();
    o.bytes = out.size() * sizeof(float);
    ferry_context_options opts;
    ferry_context_options_init(&opts, sizeof opts);
    opts.device_kind = FERRY_DEVICE_CPU;
    opts.cpu_threads = 2;
    EXPECT_EQ(ferry_context_create(&ctx, &opts), FERRY_OK);
  }
  ~Fixture() { ferry_context_destroy(ctx); }
  ferry_status convert() { return ferry_transform_apply(ctx, &s, &t, &o, nullptr); }
};

// Expects `status` from ferry_transform_apply and a message containing every `parts`.
void expect_error(Fixture& f, ferry_status status, std::initializer_list<const char*> parts) {
  const ferry_status got = f.convert();
  const std::string message = ferry_last_error();
  EXPECT_EQ(got, status) << message;
  for (const char* p : parts) EXPECT_NE(message.find(p), std::string::npos) << "'" << p << "' not in: " << message;
}

}  // namespace

TEST(ConvertPlan, InitFillsDocumentedDefaults) {
  ferry_transform t;
  std::memset(&t, 0x5A, sizeof t);
  ASSERT_EQ(ferry_transform_init(&t, sizeof t), FERRY_OK);
  EXPECT_EQ(t.out_dtype, FERRY_DTYPE_FLOAT32);
  EXPECT_EQ(t.out_layout, FERRY_LAYOUT_NCHW);
  EXPECT_EQ(t.out_channels, 0);
  EXPECT_FLOAT_EQ(t.scale, 1.0f / 255.0f);
  EXPECT_EQ(t.std[3], 1.0f);
  EXPECT_EQ(t.mean[0], 0.0f);
  EXPECT_EQ(t.per_sample_mean, nullptr);
  ferry_source s;
  std::memset(&s, 0x5A, sizeof s);
  ASSERT_EQ(ferry_source_init(&s, sizeof s), FERRY_OK);
  EXPECT_EQ(s.layout, FERRY_LAYOUT_NHWC);
  EXPECT_EQ(s.data, nullptr);
  EXPECT_EQ(ferry_output_init(nullptr, sizeof(ferry_output)), FERRY_ERR_INVALID_ARGUMENT);
  ferry_tensor_info info;
  EXPECT_EQ(ferry_tensor_info_init(&info, 3), FERRY_ERR_STRUCT_SIZE);
}

TEST(ConvertPlan, GoodInputConvertsAndOutputInfoDescribesIt) {
  Fixture f;
  ASSERT_EQ(f.convert(), FERRY_OK) << ferry_last_error();
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  f.t.out_layout = FERRY_LAYOUT_NHWC;
  f.t.out_dtype = FERRY_DTYPE_BFLOAT16;
  f.t.pad_channels_to_4 = 1;
  f.t.crop = {1, 1, 3, 2};
  ASSERT_EQ(ferry_transform_describe_output(&info, &f.s, &f.t), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(info.data, nullptr);
  EXPECT_EQ(info.ndim, 4);
  EXPECT_EQ(info.layout, FERRY_LAYOUT_NHWC);
  EXPECT_EQ(info.shape[0], 2);
  EXPECT_EQ(info.shape[1], 2);
  EXPECT_EQ(info.shape[2], 3);
  EXPECT_EQ(info.shape[3], 4);
  EXPECT_EQ(info.strides[3], 2);
  EXPECT_EQ(info.strides[2], 8);
  EXPECT_EQ(info.strides[1], 24);
  EXPECT_EQ(info.strides[0], 48);
  EXPECT_EQ(info.bytes, 96u);
  EXPECT_EQ(ferry_transform_describe_output(&info, &f.s, nullptr), FERRY_OK);  // NULL transform: defaults
  EXPECT_EQ(info.layout, FERRY_LAYOUT_NCHW);
  EXPECT_EQ(info.bytes, 2u * 3 * 4 * 5 * 4);
}

TEST(ConvertPlan, BadSourceShapes) {
  {
    Fixture f;
    f.s.c = 2;
    expect_error(f, FERRY_ERR_UNSUPPORTED, {"source.c is 2"});
  }
  const char* names[] = {"source.n is 0", "source.h is 0", "source.w is 0", "source.c is 0"};
  for (int which = 0; which < 4; ++which) {
    Fixture f;
    (which == 0 ? f.s.n : which == 1 ? f.s.h : which == 2 ? f.s.w : f.s.c) = 0;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {names[which]});
  }
  {
    Fixture f;
    f.s.h = -3;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"source.h is -3"});
  }
  {
    Fixture f;
    f.s.layout = static_cast<ferry_layout>(9);
    expect_error(f, FERRY_ERR_UNSUPPORTED, {"source.layout is 9"});
  }
  {
    Fixture f;
    f.s.data = nullptr;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"both NULL"});
  }
  {
    Fixture f;
    const void* ptrs[2] = {f.in.data(), f.in.data()};
    f.s.samples = ptrs;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"both set"});
  }
}

TEST(ConvertPlan, BadStrides) {
  {
    Fixture f;
    f.s.stride_h = 10;  // rows of 15 bytes overlap
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"source.stride_h is 10", "overlap"});
  }
  {
    Fixture f;
    f.s.stride_w = -3;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"source.stride_w is -3", "negative"});
  }
  {
    Fixture f;
    f.s.stride_n = std::numeric_limits<std::int64_t>::max() / 2;
    f.s.n = 5;
    expect_error(f, FERRY_ERR_OVERFLOW, {"source.stride_n"});
  }
  {
    Fixture f;
    f.s.bytes = f.in.size() - 1;
    expect_error(f, FERRY_ERR_SOURCE_TOO_SMALL, {"source.bytes is 119", "120"});
  }
  {
    Fixture f;
    f.o.stride_w = 6;  // not a multiple of 4
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"output.stride_w is 6", "multiple"});
  }
  {
    Fixture f;
    f.o.stride_c = 4;  // planes on top of pixels
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"output.stride_", "overlap"});
  }
  {
    Fixture f;
    f.o.bytes -= 4;
    expect_error(f, FERRY_ERR_OUTPUT_TOO_SMALL, {"output.bytes is 476", "480"});
  }
  {
    Fixture f;
    f.o.data = nullptr;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"output.data is NULL"});
  }
  {
    Fixture f;  // the output written over the source it reads
    std::vector<float> both(200);
    f.s.data = both.data();
    f.o.data = both.data() + 10;
    f.o.bytes = 480;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"overlaps the source"});
  }
}

TEST(ConvertPlan, BadArithmetic) {
  const float bad[] = {0.0f, std::nanf(""), std::numeric_limits<float>::infinity()};
  for (float v : bad) {
    Fixture f;
    f.t.std[1] = v;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.std[1] is"});
  }
  {
    Fixture f;
    f.t.mean[2] = std::nanf("");
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.mean[2] is nan"});
  }
  {
    Fixture f;
    f.t.scale = std::numeric_limits<float>::infinity();
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.scale is inf"});
  }
  {
    Fixture f;
    f.t.scale = 1e30f;
    f.t.std[0] = 1e-30f;  // scale/std overflows float
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.std[0]", "overflows"});
  }
  {
    Fixture f;
    f.t.out_dtype = FERRY_DTYPE_UINT8;
    f.t.mean[0] = 0.5f;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"uint8 output does no arithmetic"});
  }
  {
    Fixture f;
    f.t.out_dtype = FERRY_DTYPE_UINT8;
    f.t.pad_channels_to_4 = 1;
    f.t.pad_value = 300.0f;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.pad_value is 300"});
  }
  {
    Fixture f;
    f.t.out_dtype = static_cast<ferry_dtype>(0);
    expect_error(f, FERRY_ERR_UNSUPPORTED, {"transform.out_dtype is 0"});
  }
}

TEST(ConvertPlan, BadChannelsAndPerSampleArrays) {
  {
    Fixture f;
    f.t.out_channels = 3;
    f.t.channel_map[1] = 3;
    expect_error(f, FERRY_ERR_OUT_OF_RANGE, {"transform.channel_map[1] is 3"});
  }
  {
    Fixture f;
    f.t.out_channels = 5;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.out_channels is 5"});
  }
  std::vector<float> mean(6, 0.5f), stdev(6, 0.25f);
  {
    Fixture f;
    f.t.per_sample_mean = mean.data();
    f.t.per_sample_count = 3;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_count is 3", "n = 2"});
  }
  {
    Fixture f;
    f.t.per_sample_count = 1;  // no array set: 0 or n only
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_count is 1"});
  }
  {
    Fixture f;
    stdev[4] = 0.0f;
    f.t.per_sample_std = stdev.data();
    f.t.per_sample_count = 2;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_std[4] is 0"});
    stdev[4] = 0.25f;
  }
  {
    Fixture f;
    std::vector<std::uint8_t> mirrors = {0, 7};
    f.t.per_sample_mirror = mirrors.data();
    f.t.per_sample_count = 2;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_mirror[1] is 7"});
  }
  {
    Fixture f;
    f.t.mirror = 4;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.mirror is 4"});
  }
}

TEST(ConvertPlan, BadWindows) {
  {
    Fixture f;
    f.t.crop = {3, 0, 3, 2};  // reaches column 6 of a 5-wide image
    expect_error(f, FERRY_ERR_OUT_OF_RANGE, {"transform.crop[0] is {x 3, y 0, w 3, h 2}", "pad_outside"});
  }
  {
    Fixture f;
    f.t.crop = {3, 0, 3, 2};
    f.t.pad_outside = 1;
    f.o.bytes = 2 * 3 * 2 * 3 * 4;
    EXPECT_EQ(f.convert(), FERRY_OK) << ferry_last_error();
  }
  {
    Fixture f;
    f.t.crop = {0, 0, 3, 0};
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.crop.h is 0"});
  }
  {
    Fixture f;
    f.t.crop = {1, 1, 0, 0};
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"whole-image crop"});
  }
  {
    Fixture f;
    std::vector<ferry_rect> crops = {{0, 0, 2, 2}, {1, 1, 3, 2}};
    f.t.per_sample_crop = crops.data();
    f.t.per_sample_count = 2;
    expect_error(f, FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_crop[1] is 3x2"});
  }
  {
    Fixture f;
    std::vector<ferry_rect> crops = {{0, 0, 2, 2}, {0, -1, 2, 2}};
    f.t.per_sample_crop = crops.data();
    f.t.per_sample_count = 2;
    expect_error(f, FERRY_ERR_OUT_OF_RANGE, {"transform.per_sample_crop[1] is {x 0, y -1"});
  }
}

TEST(ConvertPlan, BadHandlesAndStructs) {
  Fixture f;
  EXPECT_EQ(ferry_transform_apply(nullptr, &f.s, &f.t, &f.o, nullptr), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_transform_apply(f.ctx, nullptr, &f.t, &f.o, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_transform_apply(f.ctx, &f.s, &f.t, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_transform_apply(f.ctx, &f.s, nullptr, &f.o, nullptr), FERRY_OK) << ferry_last_error();
  f.t.struct_size = 2;
  EXPECT_EQ(ferry_transform_apply(f.ctx, &f.s, &f.t, &f.o, nullptr), FERRY_ERR_STRUCT_SIZE);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(nullptr, &f.s, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_transform_describe_output(&info, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  f.s.c = 2;
  EXPECT_EQ(ferry_transform_describe_output(&info, &f.s, nullptr), FERRY_ERR_UNSUPPORTED);
}
