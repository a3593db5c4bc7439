// The window kernel's NHWC instantiations (convert_window_kernel.cuh): output
// of 1, 3 or 4 channels (2 goes to the generic kernel).
#include "core/convert/cuda/convert_window_kernel.cuh"

namespace ferry::core::cuda_convert {

const void* window_kernel_nhwc(DType dtype, int c, int oct) {
  switch (oct) {
    case 1: return window_kernel_for<1>(dtype, c);
    case 3: return window_kernel_for<3>(dtype, c);
    case 4: return window_kernel_for<4>(dtype, c);
  }
  return nullptr;
}

}  // namespace ferry::core::cuda_convert
