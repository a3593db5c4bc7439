// How many blocks of a kernel may be resident on one SM of the architecture
// being compiled: a __launch_bounds__ min-blocks hint above it is ignored by
// ptxas (with a warning), and the register budget it implies is wrong there.
#pragma once

namespace ferry::core::cuda_convert {

// Threads one SM holds: sm_75 1024; sm_86, 87, 89 and 120 1536; the others 2048.
__host__ __device__ constexpr int max_threads_per_sm() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
  return 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || \
                                 __CUDA_ARCH__ >= 1200)
  return 1536;
#else
  return 2048;
#endif
}

// `wanted` blocks of `threads` threads, capped to what the SM holds.
__host__ __device__ constexpr int resident_blocks(int wanted, int threads) {
  return wanted * threads <= max_threads_per_sm() ? wanted : max_threads_per_sm() / threads;
}

}  // namespace ferry::core::cuda_convert
