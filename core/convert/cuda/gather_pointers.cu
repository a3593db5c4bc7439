#include "core/convert/cuda/gather_pointers.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kThreads = 256;

__global__ void gather_pointers_kernel(unsigned char* table, std::size_t stride, const std::int64_t* indices,
                                       std::int64_t count, const std::uint8_t* base, std::uint64_t sample_bytes,
                                       std::int64_t dataset) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = min(max(indices[i], std::int64_t{0}), dataset - 1);
    const std::uint8_t* sample = base + static_cast<std::uint64_t>(k) * sample_bytes;
    *reinterpret_cast<const std::uint8_t**>(table + static_cast<std::size_t>(i) * stride) = sample;
  }
}

}  // namespace

void launch_gather_pointers(void* table, std::size_t stride, const SourceView::Resident& gather,
                            std::int64_t count, void* stream) {
  if (count <= 0) return;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((count + kThreads - 1) / kThreads, 1024));
  gather_pointers_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<unsigned char*>(table), stride, gather.device_indices, count, gather.base, gather.sample_bytes,
      gather.count);
  FERRY_CUDA_TRY(cudaGetLastError());
}

}  // namespace ferry::core::cuda_convert
