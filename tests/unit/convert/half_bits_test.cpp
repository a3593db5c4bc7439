// float16 / bfloat16 rounding (core/convert/half_bits.h) against the test's
// own reference rounding, over every float16-relevant range and all ties.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/convert/half_bits.h"
#include "tests/support/convert_reference.h"

using namespace ferry::core;

namespace {
float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace

TEST(ConvertHalf, EveryFloatNearHalfRangeRoundsToNearestEven) {
  // All floats with exponent in [2^-26, 2^17): every half normal, subnormal,
  // tie and overflow boundary, each sign; stepped by 61 mantissa units plus the
  // exact ties (low 13 bits 0x1000) of every exponent.
  int checked = 0;
  for (std::uint32_t e = 101; e <= 143; ++e) {
    for (std::uint32_t m = 0; m < (1u << 23); m += 61) {
      for (std::uint32_t sign : {0u, 0x80000000u}) {
        const float f = from_bits(sign | (e << 23) | m);
        ASSERT_EQ(float_to_half_bits_soft(f), ferry::test::reference_half(f)) << f;
        ASSERT_EQ(float_to_half_bits_fast(f), ferry::test::reference_half(f)) << f;
        const float tie = from_bits(sign | (e << 23) | ((m & ~0x1fffu) | 0x1000u));
        ASSERT_EQ(float_to_half_bits_soft(tie), ferry::test::reference_half(tie)) << tie;
        ASSERT_EQ(float_to_half_bits_fast(tie), ferry::test::reference_half(tie)) << tie;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000000);
  EXPECT_EQ(float_to_half_bits_soft(65504.0f), 0x7bffu);
  EXPECT_EQ(float_to_half_bits_soft(65519.99f), 0x7bffu);
  EXPECT_EQ(float_to_half_bits_soft(65520.0f), 0x7c00u);
  EXPECT_EQ(float_to_half_bits_soft(-INFINITY), 0xfc00u);
  EXPECT_EQ(float_to_half_bits_soft(std::ldexp(1.0f, -24)), 0x0001u);
  EXPECT_EQ(float_to_half_bits_soft(std::ldexp(1.0f, -25)), 0x0000u);  // tie to even: 0
  EXPECT_EQ(float_to_half_bits_soft(std::ldexp(1.5f, -25)), 0x0001u);
  EXPECT_EQ(float_to_half_bits_soft(std::nanf("")) & 0x7e00u, 0x7e00u);
  EXPECT_EQ(float_to_half_bits_fast(std::nanf("")) & 0x7e00u, 0x7e00u);
  EXPECT_EQ(float_to_half_bits_fast(-INFINITY), 0xfc00u);
  EXPECT_EQ(float_to_half_bits_fast(65520.0f), 0x7c00u);
}

TEST(ConvertHalf, BFloat16AndWideningRoundTrip) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const float f = from_bits(static_cast<std::uint32_t>(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bf16_bits_soft(f), ferry::test::reference_bf16(f)) << f;
    ASSERT_EQ(float_to_bf16_bits_no_nan(f), ferry::test::reference_bf16(f)) << f;
  }
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = half_bits_to_float(bits);
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half_bits_soft(f), bits) << h;  // every half survives the round trip
    ASSERT_EQ(float_to_bf16_bits_soft(bf16_bits_to_float(bits)), bits) << h;
  }
}
