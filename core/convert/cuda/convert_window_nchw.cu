// The window kernel's NCHW instantiations (convert_window_kernel.cuh), apart
// from the NHWC ones so the two compile in parallel.
#include "core/convert/cuda/convert_window_kernel.cuh"

namespace ferry::core::cuda_convert {

const void* window_kernel_nchw(DType dtype, int c) { return window_kernel_for<0>(dtype, c); }

}  // namespace ferry::core::cuda_convert
