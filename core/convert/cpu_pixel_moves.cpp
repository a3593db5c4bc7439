#include "core/convert/cpu_pixel_moves.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/convert/cpu_features.h"

namespace ferry::core {
namespace {

template <int C>
void deinterleave_portable(const std::uint8_t* in, std::uint8_t* planes, int plane_stride, int count) {
  for (int j = 0; j < count; ++j)
    for (int k = 0; k < C; ++k) planes[k * plane_stride + j] = in[j * C + k];
}

template <int C>
void deinterleave_reversed_portable(const std::uint8_t* in, std::uint8_t* planes, int plane_stride, int count) {
  for (int j = 0; j < count; ++j)
    for (int k = 0; k < C; ++k) planes[k * plane_stride + j] = in[(count - 1 - j) * C + k];
}

// Output pixels [from, to) one byte at a time.
void shuffle_pixels_scalar(const PixelShuffle& s, const std::uint8_t* in, std::uint8_t* out, int from, int to) {
  const int step = s.reversed ? -s.c : s.c;
  for (int j = from; j < to; ++j) {
    const std::uint8_t* pixel = in + static_cast<std::ptrdiff_t>(j) * step;
    for (int k = 0; k < s.oct; ++k) out[j * s.oct + k] = k < s.out_channels ? pixel[s.map[k]] : 0;
  }
}

void shuffle_pixels_portable(const PixelShuffle& s, const std::uint8_t* in, std::uint8_t* out, int count) {
  shuffle_pixels_scalar(s, in, out, 0, count);
}

void fill_portable(void* out, std::uint32_t bits, int element_size, std::int64_t count) {
  auto* p = static_cast<std::uint8_t*>(out);
  const auto size = static_cast<std::size_t>(element_size);
  for (std::int64_t j = 0; j < count; ++j) std::memcpy(p + j * element_size, &bits, size);
}

#if defined(FERRY_CPU_X86_KERNELS)
// pshufb masks: output channel k takes byte i of its 16 from source vector s
// where byte C*i+k lies in it (0x80 elsewhere: a zero, ORed away); REVERSED,
// the 16 pixels of a step in reverse order (a mirrored run).
template <int C, bool REVERSED> struct DeinterleaveMasks {
  alignas(16) std::uint8_t m[C][C][16] = {};
  constexpr DeinterleaveMasks() {
    for (int k = 0; k < C; ++k)
      for (int s = 0; s < C; ++s)
        for (int i = 0; i < 16; ++i) {
          const int pos = C * (REVERSED ? 15 - i : i) + k;
          m[k][s][i] = static_cast<std::uint8_t>(pos / 16 == s ? pos % 16 : 0x80);
        }
  }
};
template <int C, bool REVERSED> constexpr DeinterleaveMasks<C, REVERSED> deinterleave_masks{};

// Output pixels j .. j + 15 are source pixels j .. j + 15, or (REVERSED)
// count - 1 - j down to count - 16 - j.
template <int C, bool REVERSED>
FERRY_TARGET_AVX2 void deinterleave_avx2(const std::uint8_t* in, std::uint8_t* planes, int plane_stride, int count) {
  __m128i mask[C][C];
  for (int k = 0; k < C; ++k)
    for (int s = 0; s < C; ++s)
      mask[k][s] = _mm_load_si128(reinterpret_cast<const __m128i*>(deinterleave_masks<C, REVERSED>.m[k][s]));
  int j = 0;
  for (; j + 16 <= count; j += 16) {
    const std::uint8_t* low = in + (REVERSED ? count - 16 - j : j) * C;
    __m128i src[C];
    for (int s = 0; s < C; ++s) src[s] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(low + 16 * s));
    for (int k = 0; k < C; ++k) {
      __m128i acc = _mm_shuffle_epi8(src[0], mask[k][0]);
      for (int s = 1; s < C; ++s) acc = _mm_or_si128(acc, _mm_shuffle_epi8(src[s], mask[k][s]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(planes + k * plane_stride + j), acc);
    }
  }
  if constexpr (REVERSED)
    deinterleave_reversed_portable<C>(in, planes + j, plane_stride, count - j);  // the lowest count - j pixels
  else
    deinterleave_portable<C>(in + j * C, planes + j, plane_stride, count - j);
}

// One step: a 16-byte load, STORES shuffled 16-byte stores.
template <int STORES>
FERRY_TARGET_AVX2 inline void shuffle_step(const __m128i (&mask)[STORES], const std::uint8_t* from,
                                           std::uint8_t* to) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
  for (int m = 0; m < STORES; ++m)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 16 * m), _mm_shuffle_epi8(v, mask[m]));
}

// A step moves s.group pixels: one 16-byte load, s.stores pshufbs and 16-byte
// stores. Only loads that lie within the run's source pixels are vector
// loads; the pixels at either end that cannot are moved one at a time.
template <int STORES>
FERRY_TARGET_AVX2 void shuffle_pixels_steps(const PixelShuffle& s, const std::uint8_t* in, std::uint8_t* out,
                                            int count) {
  const int c = s.c, g = s.group;
  __m128i mask[STORES];
  for (int m = 0; m < STORES; ++m) mask[m] = _mm_load_si128(reinterpret_cast<const __m128i*>(s.mask[m]));
  int j = 0;
  if (!s.reversed) {
    // Each load ends within the run's bytes.
    for (; j * c + 16 <= count * c; j += g) shuffle_step(mask, in + j * c, out + j * s.oct);
  } else {
    // The step's load starts at source pixel -(j + g - 1) and must end by the
    // end of pixel 0: (j + g) * c >= 16.
    const int head = std::min(count, std::max(0, (16 + c - 1) / c - g));
    shuffle_pixels_scalar(s, in, out, 0, head);
    for (j = head; j + g <= count; j += g) shuffle_step(mask, in - (j + g - 1) * c, out + j * s.oct);
  }
  shuffle_pixels_scalar(s, in, out, j, count);
}

FERRY_TARGET_AVX2 void shuffle_pixels_avx2(const PixelShuffle& s, const std::uint8_t* in, std::uint8_t* out,
                                           int count) {
  switch (s.stores) {
    case 1: return shuffle_pixels_steps<1>(s, in, out, count);
    case 2: return shuffle_pixels_steps<2>(s, in, out, count);
    case 3: return shuffle_pixels_steps<3>(s, in, out, count);
    default: return shuffle_pixels_steps<4>(s, in, out, count);
  }
}

// 4-byte words of `word` at p, non-temporal: single MOVNTI stores up to the
// 32-byte boundary and after the last whole vector, vector stores between.
FERRY_TARGET_AVX2 void stream_words(std::uint32_t* p, std::uint32_t word, std::int64_t count) {
  const int signed_word = static_cast<int>(word);
  for (; count > 0 && reinterpret_cast<std::uintptr_t>(p) % 32 != 0; --count)
    _mm_stream_si32(reinterpret_cast<int*>(p++), signed_word);
  const __m256i v = _mm256_set1_epi32(signed_word);
  for (; count >= 8; count -= 8, p += 8) _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  for (; count > 0; --count) _mm_stream_si32(reinterpret_cast<int*>(p++), signed_word);
}

FERRY_TARGET_AVX2 void fill_streaming_avx2(void* out, std::uint32_t bits, int element_size, std::int64_t count) {
  auto* p = static_cast<std::uint8_t*>(out);
  if (element_size == 4 && reinterpret_cast<std::uintptr_t>(p) % 4 == 0) {
    stream_words(reinterpret_cast<std::uint32_t*>(p), bits, count);
    return;
  }
  if (element_size == 2 && reinterpret_cast<std::uintptr_t>(p) % 2 == 0) {
    const auto half = static_cast<std::uint16_t>(bits);
    if (count > 0 && reinterpret_cast<std::uintptr_t>(p) % 4 != 0) std::memcpy(p, &half, 2), p += 2, --count;
    stream_words(reinterpret_cast<std::uint32_t*>(p), std::uint32_t{half} * 0x10001u, count / 2);
    if (count % 2 != 0) std::memcpy(p + (count - 1) * 2, &half, 2);
    return;
  }
  fill_portable(out, bits, element_size, count);  // bytes, or elements off their alignment
}
#endif  // FERRY_CPU_X86_KERNELS

}  // namespace

PixelShuffle make_pixel_shuffle(int c, int oct, int out_channels, const int* map, bool reversed) {
  PixelShuffle s;
  s.c = c, s.oct = oct, s.out_channels = out_channels, s.reversed = reversed;
  for (int k = 0; k < out_channels; ++k) s.map[k] = map[k];
  s.group = 16 / c;  // as many pixels as a load holds: gray to RGB moves 16 a step (48 bytes)
  s.stores = (s.group * oct + 15) / 16;
  for (int m = 0; m < s.stores; ++m)
    for (int b = 0; b < 16; ++b) {
      const int at = 16 * m + b, q = at / oct, k = at % oct;
      const bool source = q < s.group && k < out_channels;
      // 0x80: pshufb writes 0
      s.mask[m][b] = source ? static_cast<std::uint8_t>((reversed ? s.group - 1 - q : q) * c + map[k]) : 0x80;
    }
  return s;
}

void set_pixel_moves(CpuKernels& k) {
  k.deinterleave3 = deinterleave_portable<3>;
  k.deinterleave4 = deinterleave_portable<4>;
  k.deinterleave3_reversed = deinterleave_reversed_portable<3>;
  k.deinterleave4_reversed = deinterleave_reversed_portable<4>;
  k.shuffle_pixels = shuffle_pixels_portable;
  k.fill_streaming = fill_portable;
#if defined(FERRY_CPU_X86_KERNELS)
  if (!k.vector_isa) return;
  k.deinterleave3 = deinterleave_avx2<3, false>;
  k.deinterleave4 = deinterleave_avx2<4, false>;
  k.deinterleave3_reversed = deinterleave_avx2<3, true>;
  k.deinterleave4_reversed = deinterleave_avx2<4, true>;
  k.shuffle_pixels = shuffle_pixels_avx2;
  k.fill_streaming = fill_streaming_avx2;
#endif
}

}  // namespace ferry::core
