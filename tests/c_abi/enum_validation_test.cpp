// Enum fields a C caller may fill with any int (issue 18, finding 3): ferry
// reads them as integers and rejects values outside the enumeration with
// FERRY_ERR_UNSUPPORTED and a message naming the field and the value, without
// ever loading them as the C++ enum (a UBSan build, -fsanitize=undefined
// -fno-sanitize-recover=all, runs these clean).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/test_context.h"

namespace {

// What a C caller can do: store any int in the enum field.
template <typename E>
void store_int(E& field, int value) {
  static_assert(sizeof(E) == sizeof(int), "C enums are ints");
  std::memcpy(&field, &value, sizeof value);
}

constexpr int bad_values[] = {0x7fffffff, -5, -1, 5, 1000};  // outside every enum here

void expect_rejected(ferry_status status, const std::string& field, int value) {
  EXPECT_EQ(status, FERRY_ERR_UNSUPPORTED) << field << " = " << value;
  const std::string message = ferry_last_error();
  EXPECT_NE(message.find(field + " is " + std::to_string(value)), std::string::npos) << message;
}

struct CpuContext {
  ferry_context_t ctx = ferry::test::make_test_context(FERRY_DEVICE_CPU, 1);
  ~CpuContext() { ferry_context_destroy(ctx); }
};

// A valid 2x3x4x3 source, transform and output.
struct Call {
  std::vector<std::uint8_t> image = std::vector<std::uint8_t>(2 * 3 * 4 * 3, 9);
  std::vector<float> out = std::vector<float>(2 * 3 * 4 * 3);
  ferry_source s;
  ferry_transform t;
  ferry_output o;
  Call() {
    ferry_source_init(&s, sizeof s);
    s.data = image.data(), s.bytes = image.size();
    s.n = 2, s.h = 3, s.w = 4, s.c = 3;
    ferry_transform_init(&t, sizeof t);
    ferry_output_init(&o, sizeof o);
    o.data = out.data(), o.bytes = out.size() * sizeof(float);
  }
};

// Both calls that build a conversion plan reject the field.
void expect_plan_rejected(ferry_context_t ctx, const Call& c, const std::string& field, int value) {
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  expect_rejected(ferry_transform_describe_output(&info, &c.s, &c.t), field, value);
  expect_rejected(ferry_transform_apply(ctx, &c.s, &c.t, &c.o, nullptr), field, value);
}

}  // namespace

TEST(EnumValidation, ContextDeviceKind) {
  for (int value : bad_values) {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    store_int(o.device_kind, value);
    ferry_context_t ctx = nullptr;
    expect_rejected(ferry_context_create(&ctx, &o), "options->device_kind", value);
    EXPECT_EQ(ctx, nullptr);
  }
}

// Each bad value in one enum field of otherwise valid options (the CPU backend).
template <typename Field>
void expect_context_enum_rejected(Field ferry_context_options::*field, const char* name) {
  for (int value : bad_values) {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CPU;
    store_int(o.*field, value);
    ferry_context_t ctx = nullptr;
    expect_rejected(ferry_context_create(&ctx, &o), name, value);
    EXPECT_EQ(ctx, nullptr);
  }
}

TEST(EnumValidation, ContextPinnedMethod) {
  expect_context_enum_rejected(&ferry_context_options::pinned_method, "options->pinned_method");
}

TEST(EnumValidation, ContextDeviceTiming) {
  expect_context_enum_rejected(&ferry_context_options::device_timing, "options->device_timing");
}

TEST(EnumValidation, SourceLayout) {
  CpuContext cpu;
  for (int value : bad_values) {
    Call c;
    store_int(c.s.layout, value);
    expect_plan_rejected(cpu.ctx, c, "source.layout", value);
  }
}

TEST(EnumValidation, TransformDtypeAndLayout) {
  CpuContext cpu;
  for (int value : bad_values) {
    Call dtype, layout;
    store_int(dtype.t.out_dtype, value);
    expect_plan_rejected(cpu.ctx, dtype, "transform.out_dtype", value);
    store_int(layout.t.out_layout, value);
    expect_plan_rejected(cpu.ctx, layout, "transform.out_layout", value);
  }
}

TEST(EnumValidation, SubmitSourcePolicy) {
  CpuContext cpu;
  for (int value : bad_values) {
    Call c;
    ferry_submit_options opts;
    ferry_submit_options_init(&opts, sizeof opts);
    store_int(opts.source_policy, value);
    ferry_batch_t b = nullptr;
    expect_rejected(ferry_batch_submit(&b, cpu.ctx, &c.s, &c.t, &c.o, &opts), "options->source_policy", value);
    EXPECT_EQ(b, nullptr);
  }
  // The context is still usable.
  Call c;
  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_batch_submit(&b, cpu.ctx, &c.s, &c.t, &c.o, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
}
