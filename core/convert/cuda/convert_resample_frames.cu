// The resample kernels that decode 4:2:0 frames at each tap
// (resample_kernel.cuh, value_from_frame): linear, three channels, plain
// or augmented.
#include "core/convert/cuda/resample_kernel.cuh"

namespace ferry::core::cuda_convert {

const void* resample_frame_kernel_for(Sampler sampler, int channels, DType dtype, bool augmented, int rows) {
  using resample_detail::kernel_for_dtype;
  if (sampler != Sampler::Linear || channels != 3) return nullptr;
  if (augmented) return kernel_for_dtype<Sampler::Linear, 3, true, true>(dtype);
  return rows == kFewFrameRows ? kernel_for_dtype<Sampler::Linear, 3, true, false, kMaxTileH, kFewFrameRows>(dtype)
                               : kernel_for_dtype<Sampler::Linear, 3, true>(dtype);
}

}  // namespace ferry::core::cuda_convert
