// The inner loops of the CPU conversion, in two builds: portable C++ (which
// the compiler vectorizes for the baseline ISA) and AVX2 + F16C, chosen at run
// time from what the CPU has. Both give bit-identical results: the multiply
// and the add round separately (never an FMA), float16 and bfloat16 round to
// nearest even (F16C's conversion is IEEE RNE, as half_bits.h's is).
#pragma once

#include <cstdint>

#include "core/convert/descriptors.h"

namespace ferry::core {

// Length of a coefficient table: a multiple of every pixel size (1..4
// channels) and of the 8-lane vector, so a run that starts on a pixel
// boundary may always start at table index 0.
constexpr int coeff_period = 24;

// out[j] = dtype(float(in[j]) * alpha[j % 24] + beta[j % 24]) for j < count,
// the multiply and the add rounded separately; out points to elements of the
// dtype (float, float16 / bfloat16 bits, uint8: a plain copy, tables unused).
using ConvertRunFn = void (*)(const std::uint8_t* in, void* out, const float* alpha, const float* beta, int count);

// planes[k * plane_stride + j] = in[j * C + k] for j < count, k < C.
using DeinterleaveFn = void (*)(const std::uint8_t* in, std::uint8_t* planes, int plane_stride, int count);

enum class CpuConvertIsa {
  best,      // AVX2 + F16C where the CPU has them (unless FERRY_CPU_CONVERT_ISA=portable), else portable
  portable,  // the portable loops, whatever the CPU (tests compare both paths)
};

struct CpuKernels {
  ConvertRunFn convert_run = nullptr;
  // The same results, written to the output with streaming (non-temporal)
  // stores where the run is aligned: a large output then costs its bytes once,
  // not once more for the read-for-ownership of every line (as a large
  // memcpy's stores do). Followed by store_fence() (core/store_fence.h)
  // before the output is handed over. convert_run where the ISA has no
  // streaming stores.
  ConvertRunFn convert_run_streaming = nullptr;
  DeinterleaveFn deinterleave3 = nullptr;
  DeinterleaveFn deinterleave4 = nullptr;
  bool vector_isa = false;  // the AVX2 + F16C build was chosen
};

// The kernels for `dtype`. `best` reads the CPU's features and the environment
// variable FERRY_CPU_CONVERT_ISA once (thread-safe static). Thread-safe.
CpuKernels cpu_kernels(DType dtype, CpuConvertIsa isa);

// True if this CPU (and this build) can run the AVX2 + F16C kernels.
bool cpu_has_vector_kernels();

}  // namespace ferry::core
