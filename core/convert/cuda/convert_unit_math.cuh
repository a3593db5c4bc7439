// Device helpers the unit kernels share (convert_vector_kernel.cu,
// convert_window_kernel.cuh): element sizes, byte -> float without I2F,
// the folded affine step, packing to 16-bit pairs, a 16-byte vector's store
// (whole or element by element), and where a sample starts.
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

// Stores the vector: one 16-byte store when all its elements are wanted and
// dst is aligned, else the first `count` elements one by one.
template <DType D>
__device__ __forceinline__ void store_vector(std::uint8_t* dst, const std::uint32_t (&w)[4], int count) {
  constexpr int E = elem_size<D>(), G = 16 / E;
  if (count >= G && (reinterpret_cast<std::uintptr_t>(dst) & 15) == 0) {
    *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
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

// Local sample i's first byte.
__device__ __forceinline__ const std::uint8_t* sample_source(const KernelParams& p, std::int64_t i) {
  return p.sources ? p.sources[i] : p.base + i * p.src_n;
}

}  // namespace ferry::core::cuda_convert
