// The CPU conversion's byte moves (convert_cpu.cpp): de-interleaving
// pixels into planes (forward or mirrored), rearranging a run's pixels
// (PixelShuffle: channel maps, padding channels, mirrored rows) and filling
// a large output with a value, portable and AVX2 (SSSE3 pshufb) builds.
// Their kinds are in convert_cpu_kernels.h (CpuKernels).
#pragma once

#include "core/convert/convert_cpu_kernels.h"

namespace ferry::core {

// Sets k's moves: the AVX2 ones where k.vector_isa, else the portable ones.
void set_pixel_moves(CpuKernels& k);

}  // namespace ferry::core
