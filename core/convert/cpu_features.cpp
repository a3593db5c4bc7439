#include "core/convert/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ferry::core {
namespace {

#if defined(__x86_64__) || defined(__i386__)
bool detect_avx2_f16c() noexcept {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const bool f16c = (c & bit_F16C) != 0, avx = (c & bit_AVX) != 0, osxsave = (c & bit_OSXSAVE) != 0;
  if (!f16c || !avx || !osxsave) return false;
  // XGETBV (by opcode-free inline asm: no -mxsave needed): the OS must save XMM and YMM state.
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6u) != 0x6u) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;  // leaf 7 absent: no AVX2
  return (b & bit_AVX2) != 0;
}
#else
bool detect_avx2_f16c() noexcept { return false; }
#endif

}  // namespace

bool cpu_has_avx2_f16c() noexcept {
  static const bool has = detect_avx2_f16c();
  return has;
}

}  // namespace ferry::core
