#include "core/stage/staging_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define FERRY_STAGING_STREAMS 1
#else
#define FERRY_STAGING_STREAMS 0
#endif

namespace ferry::core {
namespace {

// Shorter copies go through memcpy: their unaligned head and tail would be
// most of them, and such a row shares its lines with its neighbours.
constexpr std::size_t kStreamingMinBytes = 256;

}  // namespace

void staging_copy(void* dst, const void* src, std::size_t n) noexcept {
  if (n == 0) return;  // memcpy's pointers must not be null even for no bytes (an empty sample's may be)
#if FERRY_STAGING_STREAMS
  if (n >= kStreamingMinBytes) {
    auto* d = static_cast<std::uint8_t*>(dst);
    const auto* s = static_cast<const std::uint8_t*>(src);
    // To a cache line: streamed stores fill whole lines only. A line that
    // plain stores write too (its part of the previous or next copy's
    // bytes: a footprint's rows lie side by side) is flushed half-filled.
    // H200 host, the rows of 256 RandomResizedCrop windows (300-1500 bytes
    // each) over 12 threads: 35 GB/s of source images with 16-byte heads,
    // 80 with line heads (memcpy 70; the whole images 52).
    const std::size_t head = std::min<std::size_t>(n, (64u - (reinterpret_cast<std::uintptr_t>(d) & 63u)) & 63u);
    std::memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; d += 64, s += 64, n -= 64) {  // a cache line a step: its four loads, then its four stores
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
    }
    std::memcpy(d, s, n);
    return;
  }
#endif
  std::memcpy(dst, src, n);
}

}  // namespace ferry::core
