// The multiply and the add must round separately, as on the GPU (which uses
// __fmul_rn/__fadd_rn): no contraction into an FMA, whatever -march says.
// GCC implements _mm256_mul_ps/_mm256_add_ps as plain vector operators, so
// this matters for the intrinsics too (and the AVX2 target omits "fma").
// Set before any include so every function of this file carries the option.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "core/convert/convert_cpu_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "core/convert/cpu_features.h"
#include "core/convert/cpu_pixel_moves.h"
#include "core/convert/cpu_stream_stores.h"
#include "core/convert/half_bits.h"

namespace ferry::core {
namespace {

template <DType D> struct Out;
template <> struct Out<DType::Float32> {
  using T = float;
  static T from(float v) { return v; }
};
template <> struct Out<DType::Float16> {
  using T = std::uint16_t;
  static T from(float v) { return float_to_half_bits_fast(v); }
};
template <> struct Out<DType::BFloat16> {
  using T = std::uint16_t;
  static T from(float v) { return float_to_bf16_bits_no_nan(v); }
};

template <DType D>
inline void convert_scalar(const std::uint8_t* in, typename Out<D>::T* out, const float* alpha, const float* beta,
                           int count) {
  for (int j = 0; j < count; ++j) {
    const float product = static_cast<float>(in[j]) * alpha[j];
    out[j] = Out<D>::from(product + beta[j]);
  }
}

// An empty run may come with null pointers (an empty vector's data()):
// memcpy's pointers must be valid even for zero bytes.
void copy_run(const std::uint8_t* in, void* out, const float*, const float*, int count) {
  if (count > 0) std::memcpy(out, in, static_cast<std::size_t>(count));
}

// ---- portable: whole tables of 24 at a time, a fixed-length inner loop the compiler vectorizes ----

template <DType D>
void convert_run_portable(const std::uint8_t* in, void* out_v, const float* alpha, const float* beta, int count) {
  auto* out = static_cast<typename Out<D>::T*>(out_v);
  int j = 0;
  for (; j + coeff_period <= count; j += coeff_period) convert_scalar<D>(in + j, out + j, alpha, beta, coeff_period);
  convert_scalar<D>(in + j, out + j, alpha, beta, count - j);
}

#if defined(FERRY_CPU_X86_KERNELS)
// ---- AVX2 + F16C ----
using cpu_stream::stream_bytes;
using cpu_stream::stream_elements;

FERRY_TARGET_AVX2 inline __m256 load8_u8_as_float(const std::uint8_t* p) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

// Eight results as eight 16-bit elements (float16, bfloat16).
template <DType D> FERRY_TARGET_AVX2 inline __m128i pack8(__m256 v);
template <> FERRY_TARGET_AVX2 inline __m128i pack8<DType::Float16>(__m256 v) {
  return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
}
// (x + 0x7fff + ((x >> 16) & 1)) >> 16, as float_to_bf16_bits_no_nan; the
// results fit 16 bits, so the saturating pack keeps them as they are.
template <> FERRY_TARGET_AVX2 inline __m128i pack8<DType::BFloat16>(__m256 v) {
  const __m256i x = _mm256_castps_si256(v);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), odd), 16);
  return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

// Plain stores, or streaming (non-temporal) ones to `out` aligned to their width.
template <DType D, bool STREAM>
FERRY_TARGET_AVX2 inline void store8(typename Out<D>::T* out, __m256 v) {
  if constexpr (D == DType::Float32) {
    if constexpr (STREAM) {
      _mm256_stream_ps(out, v);
    } else {
      _mm256_storeu_ps(out, v);
    }
  } else {
    auto* p = reinterpret_cast<__m128i*>(out);
    if constexpr (STREAM) {
      _mm_stream_si128(p, pack8<D>(v));
    } else {
      _mm_storeu_si128(p, pack8<D>(v));
    }
  }
}

template <DType D, bool STREAM>
FERRY_TARGET_AVX2 inline void convert8(const std::uint8_t* in, typename Out<D>::T* out, __m256 a, __m256 b) {
  store8<D, STREAM>(out, _mm256_add_ps(_mm256_mul_ps(load8_u8_as_float(in), a), b));
}

// convert_scalar (count < 24), its results stored as stream_elements does
// where the output's elements are aligned to their size, plainly otherwise.
template <DType D>
FERRY_TARGET_AVX2 void convert_scalar_streaming(const std::uint8_t* in, typename Out<D>::T* out, const float* alpha,
                                                const float* beta, int count) {
  using T = typename Out<D>::T;
  if (reinterpret_cast<std::uintptr_t>(out) % sizeof(T) != 0) {
    convert_scalar<D>(in, out, alpha, beta, count);
    return;
  }
  T values[coeff_period];
  convert_scalar<D>(in, values, alpha, beta, count);
  stream_elements(reinterpret_cast<std::uint8_t*>(out), reinterpret_cast<const std::uint8_t*>(values),
                  static_cast<int>(sizeof(T)), count);
}

template <DType D, bool STREAM>
FERRY_TARGET_AVX2 void convert_run_avx2_with(const std::uint8_t* in, void* out_v, const float* alpha,
                                             const float* beta, int count) {
  auto* out = static_cast<typename Out<D>::T*>(out_v);
  const __m256 a0 = _mm256_loadu_ps(alpha), a1 = _mm256_loadu_ps(alpha + 8), a2 = _mm256_loadu_ps(alpha + 16);
  const __m256 b0 = _mm256_loadu_ps(beta), b1 = _mm256_loadu_ps(beta + 8), b2 = _mm256_loadu_ps(beta + 16);
  int j = 0;
  for (; j + coeff_period <= count; j += coeff_period) {
    convert8<D, STREAM>(in + j, out + j, a0, b0);
    convert8<D, STREAM>(in + j + 8, out + j + 8, a1, b1);
    convert8<D, STREAM>(in + j + 16, out + j + 16, a2, b2);
  }
  // The rest (< 24) starts at table index 0 again.
  int t = 0;
  if (j + 8 <= count) convert8<D, STREAM>(in + j, out + j, a0, b0), j += 8, t = 8;
  if (j + 8 <= count) convert8<D, STREAM>(in + j, out + j, a1, b1), j += 8, t = 16;
  if constexpr (STREAM) {
    convert_scalar_streaming<D>(in + j, out + j, alpha + t, beta + t, count - j);
  } else {
    convert_scalar<D>(in + j, out + j, alpha + t, beta + t, count - j);
  }
}

// uint8 out (a copy of the run): vector non-temporal stores from the 32-byte
// boundary on, stream_bytes before it and after the last whole vector.
FERRY_TARGET_AVX2 void copy_run_avx2_streaming(const std::uint8_t* in, void* out_v, const float*, const float*,
                                               int count) {
  auto* out = static_cast<std::uint8_t*>(out_v);
  const int head = std::min(count, static_cast<int>((32 - reinterpret_cast<std::uintptr_t>(out) % 32) % 32));
  stream_bytes(out, in, head);
  int j = head;
  for (; j + 32 <= count; j += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + j));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(out + j), v);
  }
  stream_bytes(out + j, in + j, count - j);
}

template <DType D>
FERRY_TARGET_AVX2 void convert_run_avx2(const std::uint8_t* in, void* out, const float* alpha, const float* beta,
                                        int count) {
  convert_run_avx2_with<D, false>(in, out, alpha, beta, count);
}

// Eight elements take 32 bytes (float) or 16 (half): streaming stores need
// that alignment. A run that starts off it (a malloc'd buffer is often 16
// bytes off a 32-byte boundary) converts its first few elements as usual and
// streams the rest, with the coefficient tables rotated to match.
template <DType D>
FERRY_TARGET_AVX2 void convert_run_avx2_streaming(const std::uint8_t* in, void* out_v, const float* alpha,
                                                  const float* beta, int count) {
  using T = typename Out<D>::T;
  constexpr std::uintptr_t width = 8 * sizeof(T);
  auto* out = static_cast<T*>(out_v);
  const std::uintptr_t misaligned = reinterpret_cast<std::uintptr_t>(out) % width;
  // Not on an element boundary: plain stores. Any other run streams, its
  // ends through single non-temporal words (convert_scalar_streaming).
  if (misaligned % sizeof(T) != 0) {
    convert_run_avx2_with<D, false>(in, out, alpha, beta, count);
    return;
  }
  if (misaligned == 0) {
    convert_run_avx2_with<D, true>(in, out, alpha, beta, count);
    return;
  }
  const int peel = std::min(count, static_cast<int>(((width - misaligned) % width) / sizeof(T)));
  convert_scalar_streaming<D>(in, out, alpha, beta, peel);
  // The tables rotated by peel (two copies each: every row of a plane that
  // starts off the boundary comes here, a modulo per entry was a good part of
  // a short row's cost).
  float alpha_rotated[coeff_period], beta_rotated[coeff_period];
  const std::size_t tail = static_cast<std::size_t>(coeff_period - peel) * sizeof(float);
  std::memcpy(alpha_rotated, alpha + peel, tail);
  std::memcpy(alpha_rotated + coeff_period - peel, alpha, static_cast<std::size_t>(peel) * sizeof(float));
  std::memcpy(beta_rotated, beta + peel, tail);
  std::memcpy(beta_rotated + coeff_period - peel, beta, static_cast<std::size_t>(peel) * sizeof(float));
  convert_run_avx2_with<D, true>(in + peel, out + peel, alpha_rotated, beta_rotated, count - peel);
}

#endif  // FERRY_CPU_X86_KERNELS

bool portable_forced_by_environment() {
  const char* v = std::getenv("FERRY_CPU_CONVERT_ISA");
  return v != nullptr && std::strcmp(v, "portable") == 0;
}

}  // namespace

bool cpu_has_vector_kernels() {
#if defined(FERRY_CPU_X86_KERNELS)
  return cpu_has_avx2_f16c();
#else
  return false;
#endif
}

CpuKernels cpu_kernels(DType dtype, CpuConvertIsa isa) {
  static const bool vector_by_default = cpu_has_vector_kernels() && !portable_forced_by_environment();
  CpuKernels k;
  k.vector_isa = isa == CpuConvertIsa::best && vector_by_default;
  set_pixel_moves(k);
  switch (dtype) {
    case DType::Float32: k.convert_run = convert_run_portable<DType::Float32>; break;
    case DType::Float16: k.convert_run = convert_run_portable<DType::Float16>; break;
    case DType::BFloat16: k.convert_run = convert_run_portable<DType::BFloat16>; break;
    case DType::UInt8: k.convert_run = copy_run; break;
  }
  k.convert_run_streaming = k.convert_run;
#if defined(FERRY_CPU_X86_KERNELS)
  if (k.vector_isa) {
    switch (dtype) {
      case DType::Float32:
        k.convert_run = convert_run_avx2<DType::Float32>;
        k.convert_run_streaming = convert_run_avx2_streaming<DType::Float32>;
        break;
      case DType::Float16:
        k.convert_run = convert_run_avx2<DType::Float16>;
        k.convert_run_streaming = convert_run_avx2_streaming<DType::Float16>;
        break;
      case DType::BFloat16:
        k.convert_run = convert_run_avx2<DType::BFloat16>;
        k.convert_run_streaming = convert_run_avx2_streaming<DType::BFloat16>;
        break;
      case DType::UInt8:
        k.convert_run_streaming = copy_run_avx2_streaming;
        break;
    }
  }
#endif
  return k;
}

}  // namespace ferry::core
