// The fuzz targets' checking loops, compiled without the fuzzer's coverage
// instrumentation (tests/fuzz/CMakeLists.txt): comparing a result with the
// reference, scanning canaries and filling buffers must not count as
// behaviour to explore (they would also make each run several times slower).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/fuzz/convert_case.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/support/convert_reference.h"

// ferry turns huge requests into FERRY_ERR_OUT_OF_MEMORY, which the targets ask for on
// purpose: under ASan the allocator returns NULL for them (ASAN_OPTIONS still overrides).
extern "C" __attribute__((visibility("default"))) const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}

namespace ferry::fuzz {

ferry_context_t shared_context() {
  static ferry_context_t ctx = [] {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CPU;
    o.cpu_threads = 1;
    o.staging_threads = 1;
    ferry_context_t c = nullptr;
    if (ferry_context_create(&c, &o) != FERRY_OK) fail("ferry_context_create failed:", ferry_last_error());
    return c;
  }();
  return ctx;
}

std::size_t first_not(const std::uint8_t* p, std::size_t n, std::uint8_t v) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != v) return i;
  return n;
}

std::size_t first_difference(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  if (std::memcmp(a, b, n) == 0) return n;
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return n;
}

void fill_random(void* p, std::size_t n, std::uint64_t& state) {
  auto* b = static_cast<std::uint8_t*>(p);
  for (std::size_t i = 0; i < n; i += 8) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    std::memcpy(b + i, &state, n - i < 8 ? n - i : 8);
  }
}

// The expected bytes of an output block (canaries included) for the case's
// effective structs, written to `out` shaped like the guarded block: `fill`
// everywhere, canaries, then the reference's elements.
void reference_block(const ferry_source& s, const ferry_transform& t, const ferry_output& o, std::size_t bytes,
                     std::uint8_t fill, std::vector<std::uint8_t>& out) {
  out.assign(bytes + 2 * Guarded::canary, fill);
  std::memset(out.data(), Guarded::canary_byte, Guarded::canary);
  std::memset(out.data() + Guarded::canary + bytes, Guarded::canary_byte, Guarded::canary);
  ferry::test::reference_convert(s, t, o, out.data() + Guarded::canary);
}

static bool half_is_nan(std::uint16_t v, bool bf16) {
  return bf16 ? ((v & 0x7f80) == 0x7f80 && (v & 0x7f) != 0) : ((v & 0x7c00) == 0x7c00 && (v & 0x3ff) != 0);
}

// Compares a converted block (canaries included) with the reference; returns
// "" or a description of the first difference. The reference cannot round a
// NaN pad/fill value to float16/bfloat16: those elements are located by
// computing the reference twice with two stand-ins and must be NaN.
std::string compare_with_reference(const ferry_source& s, const ferry_transform& t, const ferry_output& o,
                                   std::size_t bytes, std::uint8_t fill, const std::uint8_t* got) {
  const int dtype = get_enum(t.out_dtype);
  const bool half = dtype == FERRY_DTYPE_FLOAT16 || dtype == FERRY_DTYPE_BFLOAT16;
  const bool nan_pad = half && t.pad_channels_to_4 && std::isnan(t.pad_value);
  const bool nan_fill = half && t.pad_outside && std::isnan(t.fill_value);
  std::vector<std::uint8_t> want, other;
  if (!nan_pad && !nan_fill) {
    reference_block(s, t, o, bytes, fill, want);
  } else {
    ferry_transform a = t, b = t;
    if (nan_pad) a.pad_value = 1.0f, b.pad_value = 2.0f;
    if (nan_fill) a.fill_value = 1.0f, b.fill_value = 2.0f;
    reference_block(s, a, o, bytes, fill, want);
    reference_block(s, b, o, bytes, fill, other);
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!other.empty() && want[i] != other[i]) {
      const std::size_t at = Guarded::canary + ((i - Guarded::canary) & ~std::size_t{1});
      std::uint16_t v;
      std::memcpy(&v, got + at, 2);
      if (half_is_nan(v, dtype == FERRY_DTYPE_BFLOAT16)) continue;
      return "element at byte " + std::to_string(at - Guarded::canary) + " is " + std::to_string(v) +
             ": want a NaN (the pad/fill value)";
    }
    if (got[i] != want[i]) {
      std::string where = i < Guarded::canary ? "the canary before the output"
                          : i >= Guarded::canary + bytes ? "the canary after the output"
                                                          : "output";
      return where + " byte " + std::to_string(static_cast<long long>(i) - static_cast<long long>(Guarded::canary)) +
             " of " + std::to_string(bytes) + ": got " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    }
  }
  return "";
}

}  // namespace ferry::fuzz
