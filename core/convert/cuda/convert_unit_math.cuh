// Device helpers the unit kernels share (convert_vector_kernel.cu,
// convert_window_kernel.cuh, convert_pixels_kernel.cu): element sizes,
// byte -> float without I2F, the folded affine step, packing to 16-bit pairs
// or a whole 16-byte vector, replacing one element of it, a 16-byte vector's
// store (whole and streaming, or element by element), and where a sample
// starts.
//
// Arithmetic, bit-identical to the CPU backend: float(x) is made exactly as
// (0x4B000000 | x) - 2^23 (one PRMT and one FADD, no I2F on the slow
// conversion pipe), then __fmul_rn, __fadd_rn; float16/bfloat16 are packed two
// at a time (cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32 from sm_80 on; on sm_75 two
// cvt.rn.f16.f32, or cuda_bf16.h's integer rounding: round to nearest even all).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/convert/cuda/convert_kernel_params.h"

namespace ferry::core::cuda_convert {

template <DType D>
__host__ __device__ constexpr int elem_size() {
  return D == DType::Float32 ? 4 : D == DType::UInt8 ? 1 : 2;
}

// The exact float of a byte x, as (0x4B000000 | x) - 2^23: byte `sel` (0..3)
// of w moved under the exponent 0x4B by one PRMT.
__device__ __forceinline__ float byte_float(std::uint32_t w, unsigned sel) {
  return __fsub_rn(__uint_as_float(__byte_perm(w, 0x4B00u, 0x5440u | sel)), 8388608.0f);
}

// Byte `sel` (0..7) of the pair (lo, hi), when sel may pass 3.
__device__ __forceinline__ float byte_float2(std::uint32_t lo, std::uint32_t hi, unsigned sel) {
  return byte_float(__byte_perm(lo, hi, sel), 0u);
}

__device__ __forceinline__ float affine(float x, float a, float b) { return __fadd_rn(__fmul_rn(x, a), b); }

template <DType D>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  if constexpr (D == DType::Float16) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
}

// One 16-byte output vector (dst aligned), stored streaming (st.global.cs,
// first out of L2): the output is written once and read at most once, by the
// caller. H200, against a D2D copy: a trivial kernel of the conversions'
// read:write mixes +0.5-1 % with NCHW planes, +1-2 % where a warp's stores
// are contiguous (NHWC); the kernel table's rows +0-4 % (PERF_NOTES.md, 11).
__device__ __forceinline__ void store_output_vector(std::uint8_t* dst, std::uint32_t x, std::uint32_t y,
                                                    std::uint32_t z, std::uint32_t w) {
  __stcs(reinterpret_cast<uint4*>(dst), make_uint4(x, y, z, w));
}

// Stores the vector: one 16-byte store when all its elements are wanted and
// dst is aligned, else the first `count` elements one by one.
template <DType D>
__device__ __forceinline__ void store_vector(std::uint8_t* dst, const std::uint32_t (&w)[4], int count) {
  constexpr int E = elem_size<D>(), G = 16 / E;
  if (count >= G && (reinterpret_cast<std::uintptr_t>(dst) & 15) == 0) {
    store_output_vector(dst, w[0], w[1], w[2], w[3]);
    return;
  }
#pragma unroll
  for (int e = 0; e < G; ++e) {
    if (e >= count) break;
    const std::uint32_t bits = w[e * E / 4] >> ((e * E % 4) * 8);
    if constexpr (E == 4) *reinterpret_cast<std::uint32_t*>(dst + e * E) = bits;
    if constexpr (E == 2) *reinterpret_cast<std::uint16_t*>(dst + e * E) = static_cast<std::uint16_t>(bits);
    if constexpr (E == 1) dst[e] = static_cast<std::uint8_t>(bits);
  }
}

// A unit's output values before packing: floats, or the bytes themselves for uint8.
template <DType D>
using UnitValue = std::conditional_t<D == DType::UInt8, std::uint32_t, float>;

// G = 16 / E values packed into the four words of a 16-byte vector.
template <DType D>
__device__ __forceinline__ void pack_vector(const UnitValue<D> (&v)[16 / elem_size<D>()], std::uint32_t (&w)[4]) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if constexpr (D == DType::Float32) {
      w[q] = __float_as_uint(v[q]);
    } else if constexpr (D == DType::UInt8) {
      w[q] = v[4 * q] | (v[4 * q + 1] << 8) | (v[4 * q + 2] << 16) | (v[4 * q + 3] << 24);
    } else {
      w[q] = pack2<D>(v[2 * q], v[2 * q + 1]);
    }
  }
}

// Replaces element e (compile-time after unrolling) of the packed vector with `bits`.
template <DType D>
__device__ __forceinline__ void set_element(std::uint32_t (&w)[4], int e, std::uint32_t bits) {
  constexpr int E = elem_size<D>();
  if constexpr (E == 4) {
    w[e] = bits;
  } else {
    const int q = e * E / 4, shift = (e * E % 4) * 8;
    const std::uint32_t mask = ((1u << (8 * E)) - 1u) << shift;
    w[q] = (w[q] & ~mask) | ((bits << shift) & mask);
  }
}

// A value's bits in every element of a 32-bit word.
template <DType D>
__device__ __forceinline__ std::uint32_t replicate(std::uint32_t bits) {
  constexpr int E = elem_size<D>();
  return E == 4 ? bits : E == 2 ? bits * 0x10001u : bits * 0x01010101u;
}

// Local sample i's first byte.
__device__ __forceinline__ const std::uint8_t* sample_source(const KernelParams& p, std::int64_t i) {
  return p.sources ? p.sources[i] : p.base + i * p.src_n;
}

}  // namespace ferry::core::cuda_convert
