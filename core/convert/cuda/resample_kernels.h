// The resample kernels as the launcher (convert_resample_kernel.cu) sees
// them: their block's shape, and the kernel for a sampler, a channel count
// and an output dtype. The kernels themselves are in resample_kernel.cuh,
// compiled in one file per sampler (convert_resample_<sampler>.cu).
#pragma once

#include <cstdint>

#include "core/convert/cuda/resample_params.h"

namespace ferry::core::cuda_convert {

// A block covers kTileW columns and kTileH * kRowsPerThread rows of one
// sample's output: a thread one column, every kTileH-th row of the tile.
constexpr int kTileW = 32, kTileH = 8, kRowsPerThread = 8;
constexpr int kTileRows = kTileH * kRowsPerThread;

// The kernel (as cudaLaunchKernel takes it) that resamples `channels` mapped
// channels (1..4) into `dtype` with sampler S; `augmented`: with the colour
// operations inlined (three channels). Null for a channel count out of range.
template <Sampler S>
const void* resample_kernel_for(int channels, DType dtype, bool augmented);

// The same for 4:2:0 frames decoded at each tap: linear, three channels only
// (null otherwise).
const void* resample_frame_kernel_for(Sampler sampler, int channels, DType dtype, bool augmented);

}  // namespace ferry::core::cuda_convert
