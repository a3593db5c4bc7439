// What the host CPU can run, read once from CPUID: the CPU conversion picks
// its AVX2 + F16C kernels from this. Plain CPUID (not __builtin_cpu_supports,
// which clang before 15 does not know for "f16c"), so gcc and clang agree.
#pragma once

// The build's switch for the x86 kernels (convert_cpu_kernels.cpp,
// cpu_pixel_moves.cpp): compiled in with gcc or clang on x86, each function
// with the AVX2 + F16C target, and run only where cpu_has_avx2_f16c().
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FERRY_CPU_X86_KERNELS 1
#include <immintrin.h>
#define FERRY_TARGET_AVX2 __attribute__((target("avx2,f16c")))
#endif

namespace ferry::core {

// True if the CPU has AVX2 and F16C and the OS saves the YMM registers on a
// context switch (XCR0 bits 1 and 2). False on every non-x86 CPU. Thread-safe.
bool cpu_has_avx2_f16c() noexcept;

}  // namespace ferry::core
