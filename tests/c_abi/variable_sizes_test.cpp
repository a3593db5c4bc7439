// Batches whose samples differ in size (ferry_source.sample_descs, issue 14):
// every sample of a batch converts exactly as it would alone (a one-sample
// batch of its own size, with its own window and mirror), through
// ferry_transform_apply and through the pipeline, for random sizes, strides,
// layouts, windows (inside and padded), mirrors and output formats; and each
// malformed description is refused with its own status and a message naming
// the sample and the field.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"
#include "tests/support/host_outputs.h"
#include "tests/support/test_context.h"
#include "tests/support/variable_size_cases.h"

namespace {

using ferry::test::make_test_context;
using namespace ferry::test;

constexpr std::uint8_t poison = 0xAB;

std::vector<std::uint8_t> apply(ferry_context_t ctx, const ferry_source& src, const ferry_transform& t) {
  return applied_on_host(ctx, src, t, poison);
}

std::vector<std::uint8_t> submit(ferry_context_t ctx, const ferry_source& src, const ferry_transform& t) {
  return submitted_on_host(ctx, src, t);
}

// The transform of sample i converted alone.
ferry_transform alone_transform(const VariableCase& k, std::size_t i) {
  ferry_transform t = k.transform;
  t.per_sample_crop = nullptr;
  t.per_sample_mirror = nullptr;
  t.per_sample_count = 0;
  t.crop = k.windows[i];
  t.mirror = k.mirrors[i];
  return t;
}

// The scalar reference reads sample_descs from the header's definition alone.
void expect_reference(const ferry_source& src, const ferry_transform& t, const std::vector<std::uint8_t>& batch,
                      const std::string& what) {
  std::vector<std::uint8_t> want(batch.size(), poison);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = want.data(), o.bytes = want.size();
  ferry::test::reference_convert(src, t, o, want.data());
  for (std::size_t b = 0; b < batch.size(); ++b)
    ASSERT_EQ(batch[b], want[b]) << what << ": byte " << b << " of " << batch.size() << " differs from the reference";
}

void expect_each_sample_as_alone(ferry_context_t ctx, const VariableCase& k, const std::vector<std::uint8_t>& batch,
                                 const std::string& what) {
  const std::size_t per = batch.size() / k.samples.size();
  for (std::size_t i = 0; i < k.samples.size(); ++i) {
    const ferry_transform t = alone_transform(k, i);
    const std::vector<std::uint8_t> want = apply(ctx, alone(k.descs[i], k.c, k.layout), t);
    ASSERT_EQ(want.size(), per) << what;
    ASSERT_EQ(std::memcmp(batch.data() + i * per, want.data(), per), 0)
        << what << ": sample " << i << " of " << k.samples.size() << " (" << k.descs[i].h << "x" << k.descs[i].w
        << ") differs from the same sample converted alone";
  }
}

class VariableSizes : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = make_test_context(FERRY_DEVICE_CPU, 2);
    ASSERT_NE(ctx_, nullptr);
  }
  void TearDown() override {
    if (ctx_ != nullptr) {
      EXPECT_EQ(ferry_context_destroy(ctx_), FERRY_OK);
    }
  }
  ferry_context_t ctx_ = nullptr;
};

TEST_F(VariableSizes, EachSampleConvertsAsItWouldAlone) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 150; ++round) {
    const bool padded = round % 3 == 2;
    VariableCase k = random_case(rng, padded);
    const ferry_source src = variable_source(k.descs, k.c, k.layout);
    const std::string what = "round " + std::to_string(round);
    const std::vector<std::uint8_t> applied = apply(ctx_, src, k.transform);
    expect_reference(src, k.transform, applied, what);
    expect_each_sample_as_alone(ctx_, k, applied, what + " (ferry_transform_apply)");
    expect_each_sample_as_alone(ctx_, k, submit(ctx_, src, k.transform), what + " (ferry_batch_submit)");
    if (HasFatalFailure()) return;
  }
}

// Images at their decoded sizes resized to one output: every interpolation and
// mode, the whole image or a fractional window per sample.
TEST_F(VariableSizes, ResizedSamplesConvertAsTheyWouldAlone) {
  std::mt19937 rng(99);
  for (int round = 0; round < 60; ++round) {
    ResizedVariableCase r = random_resized_case(rng);
    const VariableCase& k = r.k;
    const ferry_transform& t = k.transform;
    const int n = static_cast<int>(k.descs.size());
    const bool with_windows = r.with_windows;
    const std::vector<ferry_rectf>& windows = r.windows;
    const ferry_source src = variable_source(k.descs, k.c, k.layout);
    const std::vector<std::uint8_t> batch = apply(ctx_, src, t);
    const std::vector<std::uint8_t> piped = submit(ctx_, src, t);
    ASSERT_EQ(batch, piped) << "round " << round << ": the pipeline differs from ferry_transform_apply";
    expect_reference(src, t, batch, "round " + std::to_string(round));
    const std::size_t per = batch.size() / static_cast<std::size_t>(n);
    for (int i = 0; i < n; ++i) {
      ferry_transform one = t;
      one.per_sample_mirror = nullptr, one.per_sample_window = nullptr, one.per_sample_count = 0;
      one.mirror = k.mirrors[static_cast<std::size_t>(i)];
      if (with_windows) one.window = windows[static_cast<std::size_t>(i)];
      const std::vector<std::uint8_t> want = apply(ctx_, alone(k.descs[static_cast<std::size_t>(i)], k.c, k.layout), one);
      ASSERT_EQ(want.size(), per);
      ASSERT_EQ(std::memcmp(batch.data() + static_cast<std::size_t>(i) * per, want.data(), per), 0)
          << "round " << round << ", sample " << i << " (" << k.descs[static_cast<std::size_t>(i)].h << "x"
          << k.descs[static_cast<std::size_t>(i)].w << ", interpolation " << t.interpolation << ", mode "
          << t.resize_mode << ") differs from the same sample resized alone";
    }
  }
}

TEST_F(VariableSizes, OneBatchCropForAllSamplesIsCheckedAgainstEachImage) {
  std::mt19937 rng(7);
  std::vector<VariableSample> samples{random_sample(rng, 10, 12, 3, FERRY_LAYOUT_NHWC),
                              random_sample(rng, 6, 20, 3, FERRY_LAYOUT_NHWC)};
  std::vector<ferry_sample_desc> descs{samples[0].desc(), samples[1].desc()};
  const ferry_source src = variable_source(descs, 3, FERRY_LAYOUT_NHWC);
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.crop = {2, 1, 8, 5};  // inside both images
  std::vector<std::uint8_t> out = apply(ctx_, src, t);
  ASSERT_EQ(out.size(), 2u * 3 * 5 * 8 * 4);
  t.crop = {2, 1, 8, 7};  // past sample 1's 6 rows
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &src, &t), FERRY_ERR_OUT_OF_RANGE);
  EXPECT_NE(std::string(ferry_last_error()).find("outside the 20x6 image"), std::string::npos) << ferry_last_error();
}

// Each malformed description: its own status, and a message naming the field.
TEST_F(VariableSizes, MalformedDescriptionsAreRefusedByName) {
  std::mt19937 rng(3);
  std::vector<VariableSample> samples{random_sample(rng, 8, 9, 3, FERRY_LAYOUT_NHWC),
                              random_sample(rng, 5, 7, 3, FERRY_LAYOUT_NHWC)};
  std::vector<ferry_rect> windows{{0, 0, 4, 4}, {1, 1, 4, 4}};
  ferry_transform crops;
  ferry_transform_init(&crops, sizeof crops);
  crops.per_sample_crop = windows.data();
  crops.per_sample_count = 2;
  ferry_transform plain;
  ferry_transform_init(&plain, sizeof plain);

  struct Bad {
    const char* what;
    ferry_status status;
    const char* message;
    void (*edit)(ferry_source&, std::vector<ferry_sample_desc>&);
    bool plain_transform;
  };
  const Bad cases[] = {
      {"data beside sample_descs", FERRY_ERR_INVALID_ARGUMENT, "source.sample_descs is set with",
       [](ferry_source& s, std::vector<ferry_sample_desc>& d) { s.data = d[0].data; }, false},
      {"h beside sample_descs", FERRY_ERR_INVALID_ARGUMENT, "source.sample_descs is set with",
       [](ferry_source& s, std::vector<ferry_sample_desc>&) { s.h = 8; }, false},
      {"a NULL sample", FERRY_ERR_INVALID_ARGUMENT, "source.sample_descs[1].data is NULL",
       [](ferry_source&, std::vector<ferry_sample_desc>& d) { d[1].data = nullptr; }, false},
      {"a zero height", FERRY_ERR_INVALID_ARGUMENT, "source.sample_descs[1].h is 0",
       [](ferry_source&, std::vector<ferry_sample_desc>& d) { d[1].h = 0; }, false},
      {"a negative width", FERRY_ERR_INVALID_ARGUMENT, "source.sample_descs[0].w is -3",
       [](ferry_source&, std::vector<ferry_sample_desc>& d) { d[0].w = -3; }, false},
      {"too few bytes", FERRY_ERR_SOURCE_TOO_SMALL, "source.sample_descs[1].bytes is 10",
       [](ferry_source&, std::vector<ferry_sample_desc>& d) { d[1].bytes = 10; }, false},
      {"overlapping strides", FERRY_ERR_INVALID_ARGUMENT, "source.sample_descs[0].stride",
       [](ferry_source&, std::vector<ferry_sample_desc>& d) { d[0].stride_w = 1; }, false},
      {"different sizes, no window", FERRY_ERR_INVALID_ARGUMENT, "samples of different sizes need",
       [](ferry_source&, std::vector<ferry_sample_desc>&) {}, true},
      {"a window outside sample 1", FERRY_ERR_OUT_OF_RANGE, "transform.per_sample_crop[1]",
       [](ferry_source&, std::vector<ferry_sample_desc>& d) { d[1].w = 4; d[1].stride_h = 12; }, false},
  };
  for (const Bad& b : cases) {
    std::vector<ferry_sample_desc> descs{samples[0].desc(), samples[1].desc()};
    ferry_source src = variable_source(descs, 3, FERRY_LAYOUT_NHWC);
    b.edit(src, descs);
    const ferry_transform& t = b.plain_transform ? plain : crops;
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_transform_describe_output(&info, &src, &t), b.status) << b.what << ": " << ferry_last_error();
    EXPECT_NE(std::string(ferry_last_error()).find(b.message), std::string::npos)
        << b.what << ": " << ferry_last_error();
    ferry_batch_t batch = nullptr;
    EXPECT_EQ(ferry_batch_submit(&batch, ctx_, &src, &t, nullptr, nullptr), b.status) << b.what;
    EXPECT_EQ(batch, nullptr) << b.what;
  }
}

// A 0.2.0 caller's ferry_source (no sample_descs field) still describes one size.
TEST_F(VariableSizes, SourceOfTheReleasedSizeWithoutTheFieldStillWorks) {
  std::vector<std::uint8_t> image(4 * 5 * 3, 9);
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.struct_size = offsetof(ferry_source, sample_descs);
  src.data = image.data(), src.bytes = image.size();
  src.n = 1, src.h = 4, src.w = 5, src.c = 3;
  src.sample_descs = reinterpret_cast<const ferry_sample_desc*>(0x1);  // beyond struct_size: never read
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_transform_describe_output(&info, &src, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(info.shape[2], 4);
  EXPECT_EQ(info.shape[3], 5);
}

}  // namespace
