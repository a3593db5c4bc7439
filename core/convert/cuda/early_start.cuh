// Early start (programmatic dependent launch, sm_90 on) for the pipelined
// resample kernels (resample_kernel.cuh; ResampleParams::early_start,
// launched with the attribute by launch_resample): the next launch on the
// stream may start its blocks once every block of this one has started
// (allow_next_launch). They work out their sample's column taps and first
// row table from their parameter (such launches have no table) while this
// one's last blocks run, and wait for the launch before them to complete,
// its writes visible, before they read a source byte or write an output
// (wait_for_previous_launch, before the first tile's copy). Launched
// without the attribute, both are no-ops.
#pragma once

namespace ferry::core::cuda_convert {

__device__ __forceinline__ void allow_next_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_previous_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace ferry::core::cuda_convert
