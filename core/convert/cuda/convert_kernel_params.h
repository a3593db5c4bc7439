// What one launch of the conversion kernels gets: a plain struct passed by
// value as the kernel parameter (about 300 bytes), and the per-sample table
// that reaches the GPU by an async copy when the call needs one. Plain C++,
// included by the .cu file and by the host code that fills it.
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"

namespace ferry::core::cuda_convert {

// One sample's parameters, looked up by the kernel when the plan has
// per-sample values or the source is an array of sample pointers.
struct DeviceSample {
  const std::uint8_t* src;  // the sample's first byte
  float alpha[4];
  float beta[4];
  std::int32_t x, y;    // window origin in the source
  std::int32_t mirror;  // ferry_mirror bits
  std::int32_t unused;
};

struct KernelParams {
  const std::uint8_t* base = nullptr;       // data form: local sample i at base + i * src_n
  const DeviceSample* samples = nullptr;    // the table, or NULL: uniform values below
  std::uint8_t* out = nullptr;              // the whole output (global sample 0)
  std::int64_t first = 0, count = 0;        // global index of local sample 0; samples
  std::int64_t src_n = 0, src_c = 0, src_h = 0, src_w = 0;  // byte strides of the view
  std::int64_t out_n = 0, out_c = 0, out_h = 0, out_w = 0;  // byte strides of the output
  std::int32_t h = 0, w = 0, c = 0;         // source image
  std::int32_t oh = 0, ow = 0, oc = 0, oct = 0;  // window, mapped and total channels
  std::int32_t channel_map[4] = {0, 1, 2, 3};
  float alpha[4] = {1, 1, 1, 1}, beta[4] = {0, 0, 0, 0};
  std::int32_t crop_x = 0, crop_y = 0, mirror = 0;
  std::uint32_t pad_bits = 0, fill_bits = 0;
  std::int32_t out_nhwc = 0;
  // The run kernel (fast path): each sample is runs_per_sample runs of run_len
  // contiguous interleaved pixels in, contiguous pixels out per channel plane.
  std::int64_t run_len = 0, runs_per_sample = 0, tiles_per_run = 0;
};

// Launches the conversion: the run kernel when `runs` is true, else the
// generic kernel. max_blocks caps the grid (the device's resident blocks).
// Throws ferry::Error for a launch failure.
void launch_convert(const KernelParams& params, ferry_dtype dtype, bool runs, int max_blocks, void* stream);

// Resident blocks per SM of the kernel launch_convert would pick.
int convert_blocks_per_sm(ferry_dtype dtype, bool runs);

}  // namespace ferry::core::cuda_convert
