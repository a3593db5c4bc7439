// What one launch of the conversion kernels gets: a plain struct passed by
// value as the kernel parameter (about 300 bytes), and the per-sample tables
// that reach the GPU by an async copy when the call needs them. Plain C++,
// included by the .cu files and by the host code that fills it
// (core/convert/kernel_choice.h decides the kernel and its geometry).
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"

namespace ferry::core::cuda_convert {

// One sample's parameters, looked up by the kernels when the plan has
// per-sample values. Indexed by the GLOBAL sample, so one table serves every
// chunk of a batch (KernelParams::params points at the chunk's first entry).
struct SampleParams {
  float alpha[4];
  float beta[4];
  std::int32_t x, y;    // window origin in the source
  std::int32_t mirror;  // kMirrorX | kMirrorY
  std::int32_t unused;
};

// Division by a run-time divisor d (1 <= d < 2^31) of n < 2^31 as a
// multiply-high, an add and a shift (Granlund-Montgomery, round-up form):
// l = ceil(log2 d), m = floor(2^32 * (2^l - d) / d) + 1 (fits 32 bits),
// n / d = (umulhi(n, m) + n) >> l; the sum stays below 2^32 for n < 2^31.
// For the vector kernel's index math. Computed on the host; divide() is the
// same on host and device (tests/unit/convert/fast_div_test.cpp checks it).
struct FastDiv {
  std::uint32_t d = 1, multiplier = 1, shift = 0;
  FastDiv() = default;
  explicit FastDiv(std::uint32_t divisor) : d(divisor) {
    while ((std::uint64_t{1} << shift) < d) ++shift;
    multiplier = static_cast<std::uint32_t>(
        (((std::uint64_t{1} << shift) - d) << 32) / d + 1);
  }
#if defined(__CUDACC__)
  __host__ __device__
#endif
  std::uint32_t divide(std::uint32_t n) const {
#if defined(__CUDA_ARCH__)
    return (__umulhi(n, multiplier) + n) >> shift;
#else
    return (static_cast<std::uint32_t>((std::uint64_t{n} * multiplier) >> 32) + n) >> shift;
#endif
  }
};

// The widest power of two (<= 16) dividing a vector unit's input bytes: the
// vector kernel's load width, and the alignment its host check asks for.
constexpr int load_width(int bytes) { return (bytes & 15) == 0 ? 16 : (bytes & 7) == 0 ? 8 : 4; }

// Per-sample windows inline in the vector kernel's parameter (its rows
// variants), so that a call of per-sample crops or flips and nothing else
// per sample launches with no table copy in front of it: sample i's origin
// and mirror packed as x | y << 15 | mirror << 30. Its size did not
// measurably change a launch's time (the resident gather's indices, 4 KB).
constexpr int kInlineWindows = 1024;
constexpr int kInlineCoordinateBits = 15;
constexpr std::uint32_t kInlineCoordinateMask = (1u << kInlineCoordinateBits) - 1u;
struct InlineWindows {
  std::uint32_t packed[kInlineWindows];
};

struct KernelParams {
  // What the window and gather kernels read comes first, on as few of the
  // constant cache's 64-byte lines as it fits (three on sm_90, where the
  // parameter starts 16 bytes into a line): a short launch misses on each
  // line it reads, about 70 ns apiece one after another (PERF_NOTES.md).
  // First line:
  std::uint8_t* out = nullptr;              // the whole output (global sample 0)
  std::int64_t first = 0;                   // global index of local sample 0
  std::int64_t src_h = 0;                   // byte stride of a source row
  std::int64_t out_n = 0, out_c = 0, out_h = 0;  // byte strides of the output
  // Second line:
  // The vector kernel (the same runs, every run a whole number of aligned
  // 16-byte output units) and the window kernel (a run is one output row,
  // its last unit may be partial): units = count * runs_per_sample * units_per_run < 2^31.
  std::uint32_t units = 0;
  FastDiv units_per_run, runs_per_sample_div;
  std::int32_t h = 0, w = 0, c = 0;         // source image
  std::int32_t oh = 0, ow = 0, oc = 0, oct = 0;  // window, mapped and total channels
  std::int32_t crop_x = 0, crop_y = 0;
  // Third line:
  std::int32_t mirror = 0;
  // Pixels outside the image are bytes of value 0, converted as any pixel
  // (augmentation's zero padding: ConvertPlan::zero_outside), not fill_bits.
  std::int32_t zero_outside = 0;
  // Every row of every sample starts and ends on a 4-byte boundary (set by
  // the caller that knows its samples' addresses: the resident gather). With
  // zero_outside, the window kernel then loads every unit's words under a
  // predicate (a word is wholly inside its row or wholly outside): one path
  // for the units inside, across the edges and outside, so a warp whose
  // lanes meet a random crop's padding does not run three.
  std::int32_t aligned_rows = 0;
  std::int32_t channel_map[4] = {0, 1, 2, 3};
  float alpha[4] = {1, 1, 1, 1}, beta[4] = {0, 0, 0, 0};
  std::uint32_t pad_bits = 0;
  // What only the other kernels read:
  std::uint32_t fill_bits = 0;
  std::int64_t count = 0;  // samples
  std::int64_t out_w = 0;  // byte stride of an output pixel
  const std::uint8_t* base = nullptr;       // data form: local sample i at base + i * src_n
  const std::uint8_t* const* sources = nullptr;  // or local sample i at sources[i]
  const SampleParams* params = nullptr;     // local sample i's at params[i], or NULL: uniform values below
  std::int64_t src_n = 0, src_c = 0, src_w = 0;  // the view's other byte strides
  std::int32_t out_nhwc = 0;
  // Whether the table's alpha/beta differ per sample (per-sample mean/std);
  // if not, they equal alpha/beta above and the kernels read those instead.
  std::int32_t sample_coefficients = 0;
  // The run kernel (fast path): each sample is runs_per_sample runs of run_len
  // contiguous interleaved pixels in, contiguous pixels out per channel plane.
  std::int64_t run_len = 0, runs_per_sample = 0, tiles_per_run = 0;
  // The vector kernel's runs do not all start on its load width (step 4,
  // NCHW output only; vector_variant).
  std::int32_t source_unaligned = 0;
  // The vector kernel's rows variants read the windows from their
  // InlineWindows parameter, not from `params` (which is then NULL).
  std::int32_t inline_windows = 0;
  // The pixel-stream kernel (convert_pixels_kernel.cu), filled by the host:
  // for 3 output channels, the source byte offsets off_j of a unit starting
  // at channel r (bits 4 * (3r + j) .. +3; see store_pixels_unit); for 4, the
  // bits of a 16-byte output vector that are padding, and their values.
  std::uint64_t pixel_offsets = 0;  // 9 nibbles
  std::uint32_t pad_mask[4] = {0, 0, 0, 0}, pad_pattern[4] = {0, 0, 0, 0};
};

// Launches the conversion: the run kernel when `runs` is true, else the
// generic kernel. max_blocks caps the grid (the device's resident blocks).
// Throws ferry::Error for a launch failure.
void launch_convert(const KernelParams& params, DType dtype, bool runs, int max_blocks, void* stream);

// Resident blocks per SM of the kernel launch_convert would pick.
int convert_blocks_per_sm(DType dtype, bool runs);

// The vector kernel: ONE launch over the units, `step` (1 or 4) units
// loaded at a time per thread. max_blocks caps the grid, from
// convert_vector_blocks_per_sm(..., vector_variant(params, step)).
// `windows`: the inline windows where params.inline_windows, else NULL.
void launch_convert_vector(const KernelParams& params, const InlineWindows* windows, DType dtype, int step,
                           int max_blocks, void* stream);
int convert_vector_blocks_per_sm(DType dtype, int c, bool out_nhwc, int variant);

// The vector kernel's variant for a call: 0 one unit a thread; four units a
// thread 1 within a run (whole-sample runs), 2 across the runs of a sample
// (rows of a mirrored or cropped window), 3 the same from runs starting on
// any source byte (NCHW output only).
inline int vector_variant(const KernelParams& p, int step) {
  return step == 1 ? 0 : p.source_unaligned ? 3 : p.runs_per_sample_div.d > 1 ? 2 : 1;
}

// The pixel-stream kernel (convert_pixels_kernel.cu): the vector kernel's
// geometry for NHWC output of 1, 3 or 4 channels that is not the input stream
// (a channel map, padding to 4, another channel count, uint8). Every run
// starts on 4 source bytes and is a whole number of 4-byte words.
void launch_convert_pixels(const KernelParams& params, DType dtype, int max_blocks, void* stream);
int convert_pixels_blocks_per_sm(DType dtype, int c, int oct);

// The window kernel (convert_window_kernel.cuh): the same units, any window,
// mirror, alignment, channel map, padding and dtype. shape: 0 for NCHW output,
// else the NHWC output's channels (1, 3 or 4).
void launch_convert_window(const KernelParams& params, DType dtype, int shape, int max_blocks, void* stream);
int convert_window_blocks_per_sm(DType dtype, int c, int shape);

}  // namespace ferry::core::cuda_convert
