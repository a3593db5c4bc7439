// The vector kernel's unit (convert_vector_kernel.cu): its input bytes loaded
// (on the load width, or on any byte), converted and stored as 16-byte output
// vectors. Which units a thread takes, and where they lie: the kernel file.
// Arithmetic: convert_unit_math.cuh (bit-identical to the CPU backend).
#pragma once

#include <cstdint>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/cuda/convert_unit_math.cuh"

namespace ferry::core::cuda_convert {

// Input bytes of one unit.
template <DType D, int C, bool NHWC> __host__ __device__ constexpr int unit_in_bytes() {
  return NHWC ? 16 / elem_size<D>() : (16 / elem_size<D>()) * C;
}

template <int IB>
struct Words {
  std::uint32_t w[IB / 4];
};

template <int IB>
__device__ __forceinline__ Words<IB> load_unit(const std::uint8_t* src) {
  Words<IB> r;
  constexpr int A = load_width(IB);
#pragma unroll
  for (int j = 0; j < IB / A; ++j) {
    if constexpr (A == 16) {
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(src) + j);
      r.w[4 * j] = v.x, r.w[4 * j + 1] = v.y, r.w[4 * j + 2] = v.z, r.w[4 * j + 3] = v.w;
    } else if constexpr (A == 8) {
      const uint2 v = __ldg(reinterpret_cast<const uint2*>(src) + j);
      r.w[2 * j] = v.x, r.w[2 * j + 1] = v.y;
    } else {
      r.w[j] = __ldg(reinterpret_cast<const unsigned int*>(src) + j);
    }
  }
  return r;
}

// The IB bytes at `src`, on any byte: the aligned words covering them (the
// last only where they reach into it: never a word past the run), funnel-
// shifted into place. Per-sample crops at any origin.
template <int IB>
__device__ __forceinline__ Words<IB> load_unit_unaligned(const std::uint8_t* src) {
  constexpr int W = IB / 4;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(src);
  const unsigned* words = reinterpret_cast<const unsigned*>(at & ~std::uintptr_t{3});
  const unsigned shift = static_cast<unsigned>(at & 3u) * 8u;
  std::uint32_t w[W + 1];
#pragma unroll
  for (int j = 0; j < W; ++j) w[j] = __ldg(words + j);
  w[W] = shift != 0 ? __ldg(words + W) : 0u;
  Words<IB> r;
#pragma unroll
  for (int j = 0; j < W; ++j) r.w[j] = __funnelshift_r(w[j], w[j + 1], shift);
  return r;
}

// Stores 16 / E values as one 16-byte unit.
template <DType D>
__device__ __forceinline__ void store_unit(std::uint8_t* dst, const UnitValue<D> (&v)[16 / elem_size<D>()]) {
  std::uint32_t w[4];
  pack_vector<D>(v, w);
  store_output_vector(dst, w[0], w[1], w[2], w[3]);
}

struct Coefficients {
  float a[4], b[4];
};

// One unit between its load and its stores: the loaded input bytes, where its
// output goes, its unit index in the run and its sample's parameters.
template <int IB>
struct LoadedUnit {
  Words<IB> in;
  std::uint8_t* out;
  std::uint32_t u;
  const SampleParams* ds;
};

// Unit u of the run at `at`. MIRROR_X (NCHW output, the run a row): its
// pixels are the row's u-th group of G from the right, read in reverse by
// store_vector_unit; the group starts on the load width as the unmirrored
// ones do, the row being a whole number of units.
template <DType D, int C, bool NHWC, bool MIRROR_X, bool UNALIGNED>
__device__ __forceinline__ LoadedUnit<unit_in_bytes<D, C, NHWC>()> load_vector_unit(const KernelParams& p,
                                                                                   const std::uint8_t* src,
                                                                                   std::uint8_t* out,
                                                                                   std::uint32_t u,
                                                                                   const SampleParams* ds) {
  constexpr int IB = unit_in_bytes<D, C, NHWC>();
  const std::uintptr_t group = MIRROR_X ? static_cast<std::uintptr_t>(p.ow) / (IB / C) - 1 - u : u;
  const std::uint8_t* const from = src + group * IB;
  return {UNALIGNED ? load_unit_unaligned<IB>(from) : load_unit<IB>(from), out + std::uintptr_t{u} * 16, u, ds};
}

template <DType D, int C, bool NHWC, bool MIRROR_X>
__device__ __forceinline__ void store_vector_unit(const KernelParams& p,
                                                  const LoadedUnit<unit_in_bytes<D, C, NHWC>()>& lu) {
  constexpr int E = elem_size<D>(), N = 16 / E, IB = unit_in_bytes<D, C, NHWC>();
  const Words<IB>& in = lu.in;
  const std::uint32_t u = lu.u;
  std::uint8_t* const out = lu.out;
  Coefficients k;
  const SampleParams* ds = p.sample_coefficients ? lu.ds : nullptr;  // else the table's equal p's
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    k.a[c] = ds ? ds->alpha[c] : p.alpha[c];
    k.b[c] = ds ? ds->beta[c] : p.beta[c];
  }
  if constexpr (NHWC) {
    // Element j of the unit is input byte j, channel (u * IB + j) % C.
    float v[N];
    if constexpr (C == 3) {
      const unsigned r = (u * IB) % 3u;
      // Rotate the three coefficient pairs so that element j uses slot j % 3.
      float a[3], b[3];
#pragma unroll
      for (int t = 0; t < 3; ++t) {
        const unsigned c0 = (r + t) % 3u;
        a[t] = c0 == 0 ? k.a[0] : c0 == 1 ? k.a[1] : k.a[2];
        b[t] = c0 == 0 ? k.b[0] : c0 == 1 ? k.b[1] : k.b[2];
      }
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] = affine(byte_float(in.w[j / 4], j % 4), a[j % 3], b[j % 3]);
    } else {
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] = affine(byte_float(in.w[j / 4], j % 4), k.a[j % C], k.b[j % C]);
    }
    store_unit<D>(out, v);
  } else {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (c >= p.oct) break;
      UnitValue<D> v[N];
      if (c < p.oc) {
        const unsigned m = static_cast<unsigned>(p.channel_map[c]);
#pragma unroll
        for (int j = 0; j < N; ++j) {
          constexpr int W = IB / 4;
          const int first = (MIRROR_X ? N - 1 - j : j) * C, w = first / 4, at = first % 4;  // its channel 0: byte `at` of word w
          const std::uint32_t hi = at + C - 1 <= 3 ? 0u : in.w[w + 1 < W ? w + 1 : w];
          if constexpr (D == DType::UInt8) {
            v[j] = __byte_perm(in.w[w], hi, static_cast<unsigned>(at) + m) & 0xFFu;
          } else {
            const float x = at + C - 1 <= 3 ? byte_float(in.w[w], static_cast<unsigned>(at) + m)
                                            : byte_float2(in.w[w], hi, static_cast<unsigned>(at) + m);
            v[j] = affine(x, k.a[c], k.b[c]);
          }
        }
        store_unit<D>(out + c * p.out_c, v);
      } else {
        const std::uint32_t bits = replicate<D>(p.pad_bits);
        store_output_vector(out + c * p.out_c, bits, bits, bits, bits);
      }
    }
  }
}

}  // namespace ferry::core::cuda_convert
