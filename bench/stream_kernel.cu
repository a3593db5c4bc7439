#include "bench/stream_kernel.h"

#include <cstdint>

namespace ferry::bench {
namespace {

// Thread i reads input vector i once and writes it, changed, into each of
// the output's planes of in_units vectors (the last plane partial): every
// store instruction of a warp 512 contiguous bytes, as the conversion
// kernels' NCHW stores are, and streaming (st.global.cs) as theirs are; no
// arithmetic beyond the addresses.
__global__ void stream_kernel(const uint4* __restrict__ in, std::uint64_t in_units, uint4* __restrict__ out,
                              std::uint64_t out_units) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  const std::uint64_t planes = out_units / in_units, rest = out_units - planes * in_units;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < in_units; i += stride) {
    const uint4 v = __ldg(in + i);
    for (std::uint64_t r = 0; r < planes; ++r) {
      const unsigned t = static_cast<unsigned>(r);
      __stcs(out + r * in_units + i, make_uint4(v.x + t, v.y ^ t, v.z, v.w));
    }
    if (i < rest) __stcs(out + planes * in_units + i, make_uint4(v.w, v.z, v.y, v.x));
  }
}

}  // namespace

cudaError_t launch_stream_kernel(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                                 cudaStream_t stream) {
  if (in_bytes < 16 || out_bytes < in_bytes) return cudaErrorInvalidValue;
  int device = 0, sms = 0, blocks = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stream_kernel, 256, 0);
  // 16 waves of blocks, as the unit kernels' grid (cuda_converter.cpp, kUnitGridWaves).
  stream_kernel<<<16 * sms * (blocks > 0 ? blocks : 1), 256, 0, stream>>>(static_cast<const uint4*>(in), in_bytes / 16,
                                                                     static_cast<uint4*>(out), out_bytes / 16);
  return cudaGetLastError();
}

}  // namespace ferry::bench
