// Non-temporal stores for the CPU conversion's large outputs (x86 with AVX2;
// convert_cpu_kernels.cpp and cpu_pixel_moves.cpp): the ends of a run, which
// the vector stores cannot take, as single 4-byte MOVNTI stores where they
// are 4-byte aligned, so that no line of the output is read for ownership.
// Every caller follows its stores with store_fence() (core/store_fence.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/convert/cpu_features.h"

#if defined(FERRY_CPU_X86_KERNELS)
namespace ferry::core::cpu_stream {

// count elements of bytes (4 or 2 each) at out, non-temporal where they can
// be: 4-byte words on a 4-byte boundary as single MOVNTI stores, a 2-byte
// element off it as a plain store. A streaming run's ends go out this way,
// so that no line of a large output is read for ownership.
FERRY_TARGET_AVX2 inline void stream_elements(std::uint8_t* out, const std::uint8_t* bytes, int element_size,
                                              int count) {
  int b = 0;
  const int total = count * element_size;
  if (element_size == 2 && total > 0 && reinterpret_cast<std::uintptr_t>(out) % 4 != 0)
    std::memcpy(out, bytes, 2), b = 2;
  for (; b + 4 <= total; b += 4) {
    int word;
    std::memcpy(&word, bytes + b, 4);
    _mm_stream_si32(reinterpret_cast<int*>(out + b), word);
  }
  if (b < total) std::memcpy(out + b, bytes + b, static_cast<std::size_t>(total - b));
}

// n bytes: single non-temporal words where out is 4-aligned, plain stores for the rest.
FERRY_TARGET_AVX2 inline void stream_bytes(std::uint8_t* out, const std::uint8_t* in, int n) {
  const int words = reinterpret_cast<std::uintptr_t>(out) % 4 == 0 ? n / 4 : 0;
  stream_elements(out, in, 4, words);
  if (n > 4 * words) std::memcpy(out + 4 * words, in + 4 * words, static_cast<std::size_t>(n - 4 * words));
}

}  // namespace ferry::core::cpu_stream
#endif
