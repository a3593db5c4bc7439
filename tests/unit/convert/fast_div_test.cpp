// FastDiv (the vector kernel's index division) against plain division, for
// small, power-of-two, awkward and huge divisors and dividends up to 2^31 - 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/convert/cuda/convert_kernel_params.h"

namespace {

using ferry::core::cuda_convert::FastDiv;

TEST(ConvertFastDiv, MatchesDivisionEverywhere) {
  std::vector<std::uint32_t> divisors;
  for (std::uint32_t d = 1; d <= 300; ++d) divisors.push_back(d);
  for (int s = 8; s < 31; ++s) {
    const std::uint32_t p = 1u << s;
    divisors.insert(divisors.end(), {p - 1, p, p + 1, p / 3 * 2 + 1});
  }
  divisors.insert(divisors.end(), {6272, 18816, 50176, 150528, 0x7fffffffu});
  std::mt19937 rng(7);
  const std::uint32_t top = 0x7fffffffu;
  for (std::uint32_t d : divisors) {
    const FastDiv f(d);
    std::vector<std::uint32_t> ns = {0, 1, d - 1, d, d + 1, top, top - 1, top / d * d, top / d * d - 1};
    for (int i = 0; i < 2000; ++i) ns.push_back(rng() & top);
    for (std::uint32_t k = 1; k < 64; ++k) ns.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(top, std::uint64_t{k} * d + k % 3)));
    for (std::uint32_t n : ns) {
      if (n > top) continue;
      ASSERT_EQ(f.divide(n), n / d) << n << " / " << d;
    }
  }
}

}  // namespace
