// Element moves of the CPU conversion's general paths (convert_cpu.cpp):
// gathering strided source bytes, scattering strided output elements,
// filling runs with a value. Compile-time strides for the common cases.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ferry::core::cpu_strided {

// tmp[j] = p[j * step] for j < count; step is in bytes and may be negative
// (a mirrored row). STEP > 0 fixes it at compile time for the common cases.
template <int STEP>
void gather(const std::uint8_t* p, std::int64_t step, std::uint8_t* tmp, int count) {
  if (STEP != 0) step = STEP;
  for (int j = 0; j < count; ++j) tmp[j] = p[j * step];
}

inline void gather_any(const std::uint8_t* p, std::int64_t step, std::uint8_t* tmp, int count) {
  switch (step) {
    case 1: return gather<1>(p, step, tmp, count);
    case 3: return gather<3>(p, step, tmp, count);
    case 4: return gather<4>(p, step, tmp, count);
    case -1: return gather<-1>(p, step, tmp, count);
    case -3: return gather<-3>(p, step, tmp, count);
    case -4: return gather<-4>(p, step, tmp, count);
    default: return gather<0>(p, step, tmp, count);
  }
}

// d[j * stride] = v[j]; stride in elements.
template <typename T, int STRIDE>
void scatter(T* d, std::int64_t stride, const T* v, int count) {
  if (STRIDE != 0) stride = STRIDE;
  for (int j = 0; j < count; ++j) d[j * stride] = v[j];
}

template <typename T>
void scatter_any(T* d, std::int64_t stride, const T* v, int count) {
  switch (stride) {
    case 1: return scatter<T, 1>(d, stride, v, count);
    case 3: return scatter<T, 3>(d, stride, v, count);
    case 4: return scatter<T, 4>(d, stride, v, count);
    default: return scatter<T, 0>(d, stride, v, count);
  }
}

// The element whose bit pattern is `bits` (float32, float16/bfloat16 bits, uint8).
template <typename T>
T from_bits(std::uint32_t bits) {
  if constexpr (sizeof(T) == 4) {
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else {
    return static_cast<T>(bits);
  }
}

template <typename T>
void fill_run(T* d, std::int64_t stride, T value, std::int64_t count) {
  if (stride == 1) {  // a plane's row (NCHW): a loop the compiler vectorizes
    std::fill_n(d, count, value);
    return;
  }
  for (std::int64_t j = 0; j < count; ++j) d[j * stride] = value;
}

}  // namespace ferry::core::cpu_strided
