// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11), the counter-based generator of cuRAND, Random123 and JAX:
// four 32-bit words out of a 128-bit counter and a 64-bit key, no state, so
// any (seed, step, sample, draw) is one call on the host or the device and
// both give the same bits. Integer arithmetic only.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FERRY_PHILOX_FN __host__ __device__ __forceinline__
#else
#define FERRY_PHILOX_FN inline
#endif

namespace ferry::core::philox {

struct Block {
  std::uint32_t v[4];
};

FERRY_PHILOX_FN std::uint32_t mul_hi_lo(std::uint32_t a, std::uint32_t b, std::uint32_t* lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  *lo = static_cast<std::uint32_t>(p);
  return static_cast<std::uint32_t>(p >> 32);
}

// The ten rounds; the constants are the paper's.
FERRY_PHILOX_FN Block philox4x32(Block counter, std::uint32_t key0, std::uint32_t key1) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  std::uint32_t* c = counter.v;
  for (int round = 0; round < 10; ++round) {
    std::uint32_t lo0, lo1;
    const std::uint32_t hi0 = mul_hi_lo(kM0, c[0], &lo0);
    const std::uint32_t hi1 = mul_hi_lo(kM1, c[2], &lo1);
    const Block next{{hi1 ^ c[1] ^ key0, lo1, hi0 ^ c[3] ^ key1, lo0}};
    counter = next;
    key0 += kW0;
    key1 += kW1;
  }
  return counter;
}

// One sample's stream: block `draw` of (seed, step, index). The 128-bit
// counter holds draw, the index's low 32 bits, the step's low 32, and in its
// last word the step's next 24 bits, the index's next 7 and the domain bit
// (the parameters 0, the erase noise 1, whose `draw` is the pixel): distinct
// for every index below 2^39 and step below 2^56.
struct Stream {
  std::uint64_t seed = 0, step = 0;
  std::uint64_t index = 0;
  std::uint32_t domain = 0;

  FERRY_PHILOX_FN Block block(std::uint32_t draw) const {
    const std::uint32_t high = (static_cast<std::uint32_t>(step >> 32) & 0xFFFFFFu) |
                               ((static_cast<std::uint32_t>(index >> 32) & 0x7Fu) << 24) | (domain << 31);
    const Block counter{{draw, static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(step), high}};
    return philox4x32(counter, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  }
};

// The largest first_index + sample a stream tells apart.
constexpr std::uint64_t kMaxIndex = std::uint64_t{1} << 39;

// A float in [0, 1) from the top 24 bits (every value exact).
FERRY_PHILOX_FN float unit_float(std::uint32_t bits) { return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f); }

// A double in [0, 1) from 53 bits of two words.
FERRY_PHILOX_FN double unit_double(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(hi) << 21) ^ (lo >> 11);
  return static_cast<double>(bits & ((std::uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
}

}  // namespace ferry::core::philox
