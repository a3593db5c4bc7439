// Size arithmetic that cannot overflow silently: every product and sum of
// caller-given sizes goes through these, and an overflow is Status::Overflow
// with a message naming what was being computed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.h"

namespace ferry {

inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t r = 0;
  FERRY_EXPECT(!__builtin_mul_overflow(a, b, &r), Status::Overflow, what, ": ", a, " * ", b,
               " overflows 64 bits");
  return r;
}

inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t r = 0;
  FERRY_EXPECT(!__builtin_add_overflow(a, b, &r), Status::Overflow, what, ": ", a, " + ", b,
               " overflows 64 bits");
  return r;
}

// Rounds up to a multiple of `align` (a power of two), checking for overflow.
inline std::uint64_t checked_align_up(std::uint64_t v, std::uint64_t align, const char* what) {
  return checked_add(v, align - 1, what) & ~(align - 1);
}

}  // namespace ferry
