// Launching the window kernel (convert_window_kernel.cuh): the instantiation
// for the call's dtype, channels and output shape, a grid of at most the
// resident blocks striding over the units.
#include <algorithm>

#include "core/convert/cuda/convert_window_kernel.cuh"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

const void* pick_window_kernel(DType dtype, int c, int shape) {
  const void* kernel = shape == 0 ? window_kernel_nchw(dtype, c) : window_kernel_nhwc(dtype, c, shape);
  if (kernel == nullptr)
    fail(Status::Internal, "window conversion kernel for dtype ", static_cast<int>(dtype), ", ", c,
         " channels, output shape ", shape, " does not exist");
  return kernel;
}

}  // namespace

int convert_window_blocks_per_sm(DType dtype, int c, int shape) {
  int blocks = 0;
  FERRY_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pick_window_kernel(dtype, c, shape),
                                                               kWindowThreads, 0));
  return blocks > 0 ? blocks : 1;
}

void launch_convert_window(const KernelParams& params, DType dtype, int shape, int max_blocks, void* stream) {
  const std::int64_t work = (std::int64_t{params.units} + kWindowThreads - 1) / kWindowThreads;
  const int blocks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(work, max_blocks)));
  void* args[] = {const_cast<KernelParams*>(&params)};
  FERRY_CUDA_TRY(cudaLaunchKernel(pick_window_kernel(dtype, params.c, shape), dim3(static_cast<unsigned>(blocks)),
                                  dim3(kWindowThreads), args, 0, static_cast<cudaStream_t>(stream)));
}

}  // namespace ferry::core::cuda_convert
