// The fuzz targets' view of their input bytes: small integers, choices and
// floats read from the front. An exhausted input reads as zeros, and zero is
// always the plain choice, so short inputs describe simple, valid cases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "ferry/ferry.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FERRY_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FERRY_FUZZ_ASAN 1
#endif
#if FERRY_FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define FERRY_FUZZ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define FERRY_FUZZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define FERRY_FUZZ_POISON(p, n) ((void)(p), (void)(n))
#define FERRY_FUZZ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace ferry::fuzz {

// A finding: print what broke and abort (libFuzzer keeps the input).
[[noreturn]] inline void fail(const char* what, const char* detail = "") {
  std::fprintf(stderr, "\nferry fuzz: FINDING: %s %s\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

#define FERRY_FUZZ_CHECK(cond, ...)                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      char detail_[4096];                                                                  \
      std::snprintf(detail_, sizeof detail_, __VA_ARGS__);                                 \
      ::ferry::fuzz::fail("check failed: " #cond " at " __FILE__ ":" FERRY_FUZZ_STR(__LINE__), detail_); \
    }                                                                                      \
  } while (0)
#define FERRY_FUZZ_STR2(x) #x
#define FERRY_FUZZ_STR(x) FERRY_FUZZ_STR2(x)

// One CPU-backend context (one CPU thread, one staging thread) for every
// input of a target: creating one per input would dominate the run.
ferry_context_t shared_context();

// Plain loops over buffers, compiled without the fuzzer's coverage
// instrumentation (fuzz_support.cpp): they check, they do not steer.
// The index of the first byte of p[0..n) that is not v, or n.
std::size_t first_not(const std::uint8_t* p, std::size_t n, std::uint8_t v);
// The index of the first byte where a and b differ, or n.
std::size_t first_difference(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
// Fills p[0..n) from a xorshift generator.
void fill_random(void* p, std::size_t n, std::uint64_t& state);

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  std::uint8_t u8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) | (static_cast<std::uint32_t>(u16()) << 16); }
  std::uint64_t u64() { return static_cast<std::uint64_t>(u32()) | (static_cast<std::uint64_t>(u32()) << 32); }
  // 0 .. count-1 (count <= 256).
  int pick(int count) { return u8() % count; }
  // lo .. hi (hi - lo < 65536).
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>((span <= 256 ? u8() : u16()) % span);
  }
  // True for about one input byte in 16 (never for an exhausted input).
  bool rare() { return u8() >= 0xF0; }
  bool flag() { return u8() & 1; }
  // An int64 from the boundaries ferry's checks care about, or raw.
  std::int64_t wild_int() {
    static const std::int64_t table[] = {0, -1, 1, 2, 5, -2, 255, 256, 65536, (std::int64_t{1} << 30),
                                         (std::int64_t{1} << 30) + 1, -(std::int64_t{1} << 30) - 1,
                                         (std::int64_t{1} << 31), (std::int64_t{1} << 32) + 3,
                                         std::numeric_limits<std::int64_t>::max(),
                                         std::numeric_limits<std::int64_t>::min(),
                                         std::numeric_limits<std::int64_t>::max() / 3, 0x7fffffff, -0x80000000LL};
    const int i = pick(static_cast<int>(sizeof table / sizeof table[0]) + 1);
    if (i < static_cast<int>(sizeof table / sizeof table[0])) return table[i];
    return static_cast<std::int64_t>(u64());
  }
  // A float from a table of ordinary and awkward values, or raw bits.
  float value(bool allow_raw = true) {
    static const float table[] = {0.0f, 1.0f, 0.5f, 255.0f, 1.0f / 255.0f, 0.229f, 0.485f, -3.5f, 2.0f,
                                  100.0f, -1.0f, 1e-3f, 65504.0f, 65520.0f, -65536.0f, 3.0e38f, 1e-30f,
                                  1e-45f, -0.0f, 5.96e-8f, 1e30f, 17.0f, 0.1f, 128.0f,
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN()};
    constexpr int count = static_cast<int>(sizeof table / sizeof table[0]);
    const int i = pick(count + 1);
    if (i < count || !allow_raw) return table[i % count];
    const std::uint32_t bits = u32();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  std::size_t remaining() const { return n_; }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

// A small deterministic generator for buffer contents (not read from the input).
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  void fill(void* p, std::size_t n) { fill_random(p, n, s); }
};

// A heap block of exactly `bytes` usable bytes between two canaries. Under
// ASan the canaries are poisoned too (a write there is reported where it
// happens); without ASan check_canaries() finds it afterwards.
class Guarded {
 public:
  static constexpr std::size_t canary = 64;
  static constexpr std::uint8_t canary_byte = 0xA5;

  Guarded() = default;
  explicit Guarded(std::size_t bytes, std::uint8_t fill = 0xCD) { reset(bytes, fill); }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  ~Guarded() { release(); }

  void reset(std::size_t bytes, std::uint8_t fill = 0xCD) {
    release();
    bytes_ = bytes;
    block_ = static_cast<std::uint8_t*>(std::malloc(bytes + 2 * canary));
    if (block_ == nullptr) fail("malloc failed in the fuzz harness");
    std::memset(block_, canary_byte, canary);
    std::memset(block_ + canary, fill, bytes);
    std::memset(block_ + canary + bytes, canary_byte, canary);
    FERRY_FUZZ_POISON(block_, canary);
    FERRY_FUZZ_POISON(block_ + canary + bytes, canary);
  }
  std::uint8_t* data() const { return block_ ? block_ + canary : nullptr; }
  std::size_t size() const { return bytes_; }
  // The whole block, canaries included (for comparing with a reference copy).
  const std::uint8_t* whole() {
    FERRY_FUZZ_UNPOISON(block_, bytes_ + 2 * canary);
    return block_;
  }
  std::size_t whole_size() const { return bytes_ + 2 * canary; }
  // Index of the first changed canary byte (negative: before the data), or 0 when intact.
  long check_canaries() {
    if (block_ == nullptr) return 0;
    FERRY_FUZZ_UNPOISON(block_, bytes_ + 2 * canary);
    long bad = 0;
    const std::size_t before = first_not(block_, canary, canary_byte);
    const std::size_t after = first_not(block_ + canary + bytes_, canary, canary_byte);
    if (before < canary) bad = -static_cast<long>(canary - before);
    else if (after < canary) bad = static_cast<long>(after + 1);
    FERRY_FUZZ_POISON(block_, canary);
    FERRY_FUZZ_POISON(block_ + canary + bytes_, canary);
    return bad;
  }

 private:
  void release() {
    if (block_ != nullptr) {
      FERRY_FUZZ_UNPOISON(block_, bytes_ + 2 * canary);
      std::free(block_);
    }
    block_ = nullptr;
    bytes_ = 0;
  }
  std::uint8_t* block_ = nullptr;
  std::size_t bytes_ = 0;
};

// A C struct passed to ferry with a chosen struct_size, in a heap block of
// exactly the bytes that size claims (at least the size field), so a read or
// write past what the caller declared is an ASan report.
class SizedStruct {
 public:
  SizedStruct() = default;
  SizedStruct(const SizedStruct&) = delete;
  SizedStruct& operator=(const SizedStruct&) = delete;
  ~SizedStruct() { std::free(block_); }

  // `full` is the struct (sizeof_full bytes, struct_size ignored); `declared`
  // is written to its struct_size; `tail` fills the bytes past sizeof_full.
  void set(const void* full, std::size_t sizeof_full, std::size_t declared, std::uint8_t tail) {
    std::free(block_);
    // A declared size past ferry's garbage bound is never read past: give the full struct.
    const std::size_t alloc = declared > (1u << 16) ? sizeof_full + 8
                              : declared < sizeof(std::size_t) ? sizeof(std::size_t)
                                                               : declared;
    block_ = static_cast<std::uint8_t*>(std::malloc(alloc));
    if (block_ == nullptr) fail("malloc failed in the fuzz harness");
    std::memset(block_, 0, alloc);
    std::memcpy(block_, full, alloc < sizeof_full ? alloc : sizeof_full);
    if (alloc > sizeof_full) {
      std::memset(block_ + sizeof_full, 0, alloc - sizeof_full);
      if (tail != 0) block_[alloc - 1] = tail;
    }
    std::memcpy(block_, &declared, sizeof declared);
    declared_ = declared;
  }
  void* get() const { return block_; }
  std::size_t declared() const { return declared_; }

 private:
  std::uint8_t* block_ = nullptr;
  std::size_t declared_ = 0;
};

}  // namespace ferry::fuzz
