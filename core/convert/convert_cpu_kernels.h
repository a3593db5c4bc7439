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

// planes[k * plane_stride + j] = in[j * C + k] for j < count, k < C; the
// reversed kind (a mirrored row) in[(count - 1 - j) * C + k].
using DeinterleaveFn = void (*)(const std::uint8_t* in, std::uint8_t* planes, int plane_stride, int count);

// Which source byte each output byte of a pixel takes: output byte k of
// pixel j is byte map[k] of source pixel j (of source pixel -j where
// `reversed`: a mirrored row, read down from output pixel 0's source pixel),
// and 0 for a padding channel (out_channels <= k < oct). Made once per
// conversion (make_pixel_shuffle); the vector build moves `group` pixels a
// step: one 16-byte load (group * c <= 16 bytes), `stores` pshufb masks of
// 16 output bytes each (group * oct <= 16 * stores).
struct PixelShuffle {
  int c = 1, oct = 1, out_channels = 1;
  int map[4] = {0, 0, 0, 0};
  bool reversed = false;
  int group = 1, stores = 1;
  alignas(16) std::uint8_t mask[4][16] = {};
};
PixelShuffle make_pixel_shuffle(int c, int oct, int out_channels, const int* map, bool reversed);

// out[j * s.oct + k] for j < count as `s` says; `in` is output pixel 0's
// source pixel. Reads only those count pixels; may write up to 16 bytes past
// out + count * s.oct (scratch space, overwritten or unread).
using ShufflePixelsFn = void (*)(const PixelShuffle& s, const std::uint8_t* in, std::uint8_t* out, int count);

enum class CpuConvertIsa {
  best,      // AVX2 + F16C where the CPU has them (unless FERRY_CPU_CONVERT_ISA=portable), else portable
  portable,  // the portable loops, whatever the CPU (tests compare both paths)
};

// count elements of `bits` (element_size 1, 2 or 4 bytes) at out.
using FillFn = void (*)(void* out, std::uint32_t bits, int element_size, std::int64_t count);

struct CpuKernels {
  ConvertRunFn convert_run = nullptr;
  // The same results, written to the output with streaming (non-temporal)
  // stores: vector ones from the vector boundary on, single 4-byte ones at
  // the run's ends (uint8 too: a streaming copy). A large output then costs
  // its bytes once, not once more for the read-for-ownership of every line
  // (as a large memcpy's stores do). Followed by store_fence()
  // (core/store_fence.h) before the output is handed over. convert_run where
  // the ISA has no streaming stores.
  ConvertRunFn convert_run_streaming = nullptr;
  DeinterleaveFn deinterleave3 = nullptr;
  DeinterleaveFn deinterleave4 = nullptr;
  DeinterleaveFn deinterleave3_reversed = nullptr;
  DeinterleaveFn deinterleave4_reversed = nullptr;
  ShufflePixelsFn shuffle_pixels = nullptr;
  // A large output's fill (a window's rows and columns outside the image, a
  // padding plane): non-temporal stores wherever the element size allows,
  // down to single 4-byte ones at either end, so that no line of it is read
  // for ownership. Followed by store_fence(), as convert_run_streaming.
  FillFn fill_streaming = nullptr;
  bool vector_isa = false;  // the AVX2 + F16C build was chosen
};

// The kernels for `dtype`. `best` reads the CPU's features and the environment
// variable FERRY_CPU_CONVERT_ISA once (thread-safe static). Thread-safe.
CpuKernels cpu_kernels(DType dtype, CpuConvertIsa isa);

// True if this CPU (and this build) can run the AVX2 + F16C kernels.
bool cpu_has_vector_kernels();

}  // namespace ferry::core
