// What devices there are. Pure interface: the CUDA build implements it in
// core/cuda/device_query_cuda.cpp, the CPU-only build in
// core/device_query_cpu_only.cpp (no CUDA devices, ever).
#pragma once

#include "ferry/context.h"

namespace ferry::core {

// CUDA devices usable here; 0 without a driver or GPU (never throws).
int cuda_device_count() noexcept;

// Fills `out` (its struct_size already set to sizeof) for CUDA device `device`.
// Throws FERRY_ERR_OUT_OF_RANGE for an index outside [0, count),
// FERRY_ERR_NO_DEVICE when there is no driver or GPU at all.
void cuda_device_properties(ferry_device_properties& out, int device);

// Checks that CUDA device `device` works (creates its primary context).
// Throws FERRY_ERR_NO_DEVICE naming the CUDA error when it does not.
void open_cuda_device(int device);

}  // namespace ferry::core
