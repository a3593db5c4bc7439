// float -> IEEE binary16 and bfloat16 bit patterns, rounded to nearest even,
// shared by the CPU conversion and the CUDA kernels. g++ includes it as plain
// C++; under nvcc the device side uses CUDA's conversions (cvt instructions;
// for bfloat16 before sm_80, cuda_bf16.h's integer rounding), which round the
// same way (exact RNE for every finite value and infinity), so CPU and GPU
// outputs are bit-identical. NaN never reaches the device side:
// the plan rejects non-finite arithmetic and converts pad/fill values on the host.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define FERRY_HOST_DEVICE __host__ __device__
#else
#define FERRY_HOST_DEVICE
#endif

namespace ferry::core {

FERRY_HOST_DEVICE inline std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

FERRY_HOST_DEVICE inline float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// Software RNE float -> binary16 (the host path, and the reference for NaN handling).
FERRY_HOST_DEVICE inline std::uint16_t float_to_half_bits_soft(float f) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN: quiet
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (ax >= 0x38800000u) {                                                  // normal half
    std::uint32_t h = (ax >> 13) - (112u << 10);
    const std::uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent
    return static_cast<std::uint16_t>(sign | h);
  }
  if (ax < 0x33000000u) return static_cast<std::uint16_t>(sign);  // <= 2^-25: rounds to 0
  // Subnormal half: value / 2^-24 = m * 2^(e - 126), shift right by 126 - e (14..24).
  const std::uint32_t e = ax >> 23;
  const std::uint32_t m = (ax & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126u - e;
  std::uint32_t r = m >> shift;
  const std::uint32_t rem = m & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (r & 1u))) ++r;
  return static_cast<std::uint16_t>(sign | r);
}

FERRY_HOST_DEVICE inline std::uint16_t float_to_bf16_bits_soft(float f) {
  const std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// Branch-free RNE float -> binary16 for the CPU's vectorized loops (the
// method of Maratyszcza's FP16 library): adding a power of two sized to the
// value's exponent makes the FPU round the mantissa to 10 bits, ties to even;
// the result's low bits are then the half's exponent and mantissa. Exact for
// every float (NaN gives a quiet NaN) in the default rounding mode.
inline std::uint16_t float_to_half_bits_fast(float f) {
  const float scale_to_inf = 0x1.0p+112f, scale_to_zero = 0x1.0p-110f;
  const std::uint32_t w = float_bits(f);
  const float magnitude = bits_float(w & 0x7fffffffu);
  float base = (magnitude * scale_to_inf) * scale_to_zero;
  const std::uint32_t shl1_w = w + w;
  const std::uint32_t sign = w & 0x80000000u;
  std::uint32_t bias = shl1_w & 0xff000000u;
  bias = bias > 0x71000000u ? bias : 0x71000000u;
  base = bits_float((bias >> 1) + 0x07800000u) + base;
  const std::uint32_t bits = float_bits(base);
  const std::uint32_t exp_bits = (bits >> 13) & 0x00007c00u;
  const std::uint32_t mantissa_bits = bits & 0x00000fffu;
  const std::uint32_t nonsign = exp_bits + mantissa_bits;
  const std::uint32_t nan_mask = 0u - static_cast<std::uint32_t>(shl1_w > 0xff000000u);
  return static_cast<std::uint16_t>((sign >> 16) | (nan_mask & 0x7e00u) | (~nan_mask & nonsign));
}

// RNE float -> bfloat16 for values that are not NaN (all computed outputs:
// the plan keeps the arithmetic finite), branch-free for the CPU's loops.
inline std::uint16_t float_to_bf16_bits_no_nan(float f) {
  const std::uint32_t x = float_bits(f);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

FERRY_HOST_DEVICE inline std::uint16_t float_to_half_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(f));
#else
  return float_to_half_bits_soft(f);
#endif
}

FERRY_HOST_DEVICE inline std::uint16_t float_to_bf16_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#else
  return float_to_bf16_bits_soft(f);
#endif
}

// Exact widening conversions, for tests and tools.
inline float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = (std::uint32_t{h} & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  std::uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) return bits_float(sign | 0x7f800000u | (m << 13));
  if (e != 0) return bits_float(sign | ((e + 112u) << 23) | (m << 13));
  if (m == 0) return bits_float(sign);
  int shift = 0;  // normalize a subnormal
  while (!(m & 0x400u)) {
    m <<= 1;
    ++shift;
  }
  return bits_float(sign | ((113u - static_cast<std::uint32_t>(shift)) << 23) | ((m & 0x3ffu) << 13));
}

inline float bf16_bits_to_float(std::uint16_t b) { return bits_float(std::uint32_t{b} << 16); }

}  // namespace ferry::core
