#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/checked_math.h"

using ferry::Status;

TEST(CheckedMath, OverflowIsAnErrorNamingTheComputation) {
  constexpr std::uint64_t big = std::numeric_limits<std::uint64_t>::max() / 2 + 1;
  try {
    ferry::checked_mul(big, 2, "n * stride_n");
    FAIL();
  } catch (const ferry::Error& e) {
    EXPECT_EQ(e.status(), Status::Overflow);
    EXPECT_NE(std::string(e.what()).find("n * stride_n"), std::string::npos);
  }
  EXPECT_THROW(ferry::checked_add(big, big, "sum"), ferry::Error);
  EXPECT_THROW(ferry::checked_align_up(std::numeric_limits<std::uint64_t>::max(), 256, "a"), ferry::Error);
  EXPECT_EQ(ferry::checked_mul(1u << 20, 1u << 20, "x"), std::uint64_t{1} << 40);
  EXPECT_EQ(ferry::checked_align_up(257, 256, "x"), 512u);
}
