// The resident gather kernel's launch (convert_window_gather.cu): the window
// kernel's units over samples of a resident dataset (SourceView::Resident),
// each found by its index and its window origin and mirror drawn in the
// kernel (ConvertPlan::WindowDraws), so one launch with no table, no copy
// and no other kernel converts a gather. Plain C++, included by
// cuda_converter.cpp.
#pragma once

#include <cstdint>

#include "core/convert/cuda/convert_kernel_params.h"

namespace ferry::core::cuda_convert {

// Host indices ride in the launch's parameter (4 bytes each) up to
// kGatherInlineIndices; a gather of more copies them to the device and reads
// them as device indices. A gather of up to kGatherSmallIndices, or of
// device indices, takes a kernel whose parameter holds only that many (1 KB,
// not 4): an H200 took about 0.16 us longer over a launch with the larger
// one (core/convert/cuda/PERF_NOTES.md).
constexpr int kGatherInlineIndices = 1024;
constexpr int kGatherSmallIndices = 256;

// The gather's launch parameter but its host indices.
struct GatherSpec {
  const std::uint8_t* base = nullptr;  // the dataset's sample 0; sample k at base + k * sample_bytes
  std::uint64_t sample_bytes = 0;
  std::int64_t count = 0;              // samples in the dataset
  // Local sample i's index: device_indices[i] clamped into 0 .. count - 1, or indices[i].
  const std::int64_t* device_indices = nullptr;
  // The window draws (ConvertPlan::WindowDraws; draws 0: KernelParams's
  // uniform window and mirror). Local sample i draws as first_index + i.
  std::int32_t draws = 0, crop = 0;  // crop: AugmentCrop
  std::int32_t padding = 0;
  float flip_x = 0, flip_y = 0;
  std::uint64_t seed = 0, step = 0;
  std::int64_t first_index = 0;
  // Units each block takes (a multiple of the block's threads), worked out
  // by launch_window_gather with the grid: the kernel does not divide.
  std::uint32_t block_units = 0;
};

// A launch's parameter: the spec and room for N host indices.
template <int N>
struct GatherParamsOf : GatherSpec {
  std::int32_t indices[N] = {};
};

// `params` as for launch_convert_window (the window geometry of its
// samples). host_indices: the params.count sample indices (at most
// kGatherInlineIndices, each below 2^31), put in the launch's parameter; or
// NULL, where spec.device_indices holds them. Throws ferry::Error for a
// launch failure or a combination with no instantiation (gather_kernel_exists
// says which exist).
void launch_window_gather(const KernelParams& params, const GatherSpec& spec, const std::int64_t* host_indices,
                          DType dtype, int shape, int max_blocks, void* stream);
bool gather_kernel_exists(DType dtype, int c, int shape);
int window_gather_blocks_per_sm(DType dtype, int c, int shape);

}  // namespace ferry::core::cuda_convert
