// The resample kernels of sampler Cubic (resample_kernel.cuh), compiled apart
// from the other samplers' so that the build runs them side by side.
#include "core/convert/cuda/resample_kernel.cuh"

namespace ferry::core::cuda_convert {

template const void* resample_kernel_for<Sampler::Cubic>(int channels, DType dtype, bool augmented, int warps);

}  // namespace ferry::core::cuda_convert
