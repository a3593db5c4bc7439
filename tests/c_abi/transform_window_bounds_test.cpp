// Windows outside the image, padded (issue 18, finding 1): the CPU backend
// writes exactly the output's elements, each equal to the scalar reference,
// for every window position, mirror and format of convert_window_cases.h;
// canaries on both sides of the exact-size output catch any write past it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"
#include "tests/support/convert_window_cases.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

constexpr std::size_t guard_bytes = 4096;  // more than any unclamped fill of these cases reaches
constexpr std::uint8_t canary = 0xA5, poison = 0xCD;

// Converts the case into an exact-size output between two canary zones and
// compares every byte (elements and gaps) with the reference. "" or the first problem.
std::string check(ferry_context_t ctx, WindowCase& c) {
  const std::size_t bytes = c.output.bytes;
  std::vector<std::uint8_t> buffer(guard_bytes + bytes + guard_bytes, canary), want(bytes, poison);
  std::fill(buffer.begin() + guard_bytes, buffer.begin() + guard_bytes + bytes, poison);
  ferry_output o = c.output;
  o.data = buffer.data() + guard_bytes;
  if (ferry_transform_apply(ctx, &c.source, &c.transform, &o, nullptr) != FERRY_OK)
    return std::string("ferry_transform_apply failed: ") + ferry_last_error();
  for (std::size_t b = 0; b < guard_bytes; ++b) {
    if (buffer[b] != canary) return "wrote before the output, at byte -" + std::to_string(guard_bytes - b);
    if (buffer[guard_bytes + bytes + b] != canary)
      return "wrote past the output of " + std::to_string(bytes) + " bytes, at byte +" + std::to_string(b);
  }
  reference_convert(c.source, c.transform, o, want.data());
  for (std::size_t b = 0; b < bytes; ++b)
    if (buffer[guard_bytes + b] != want[b])
      return "byte " + std::to_string(b) + " of " + std::to_string(bytes) + ": got " +
             std::to_string(buffer[guard_bytes + b]) + ", want " + std::to_string(want[b]);
  return "";
}

}  // namespace

// The reproducer: a 1x4x4x1 source, crop {x -100, y 0, w 2, h 1},
// an output of exactly the 8 bytes ferry_transform_describe_output reports.
TEST(ConvertWindowBounds, WindowFarLeftOfTheImageWritesOnlyItsOutput) {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  ASSERT_NE(ctx, nullptr);
  std::vector<std::uint8_t> image(16, 50);
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = image.data(), s.bytes = image.size();
  s.n = 1, s.h = 4, s.w = 4, s.c = 1;
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.crop = {-100, 0, 2, 1};
  t.pad_outside = 1;
  t.fill_value = 3.0f;
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_transform_describe_output(&info, &s, &t), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(info.bytes, 8u);
  std::vector<float> buffer(2 + 200, -7.0f);  // the 2 elements, then canaries
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = buffer.data(), o.bytes = info.bytes;
  ASSERT_EQ(ferry_transform_apply(ctx, &s, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(buffer[0], 3.0f);
  EXPECT_EQ(buffer[1], 3.0f);
  for (std::size_t i = 2; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], -7.0f) << "wrote past the output at element " << i;
  ferry_context_destroy(ctx);
}

TEST(ConvertWindowBounds, EveryWindowPositionMatchesTheReferenceAndStaysInside) {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  ASSERT_NE(ctx, nullptr);
  int cases = 0, failures = 0;
  for_each_window_case([&](WindowCase* c) {
    ASSERT_NE(c, nullptr) << ferry_last_error();
    ++cases;
    const std::string problem = check(ctx, *c);
    if (!problem.empty() && ++failures <= 10) ADD_FAILURE() << c->name << ": " << problem;
  });
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_GT(cases, 10000);
  ferry_context_destroy(ctx);
}
