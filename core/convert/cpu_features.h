// What the host CPU can run, read once from CPUID: the CPU conversion picks
// its AVX2 + F16C kernels from this. Plain CPUID (not __builtin_cpu_supports,
// which clang before 15 does not know for "f16c"), so gcc and clang agree.
#pragma once

namespace ferry::core {

// True if the CPU has AVX2 and F16C and the OS saves the YMM registers on a
// context switch (XCR0 bits 1 and 2). False on every non-x86 CPU. Thread-safe.
bool cpu_has_avx2_f16c() noexcept;

}  // namespace ferry::core
