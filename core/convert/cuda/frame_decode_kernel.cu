// Decodes camera and video frames to packed R, G, B on the GPU: a thread per
// pixel of a row, a block row per frame row, frames along z (grid-stride in
// every dimension, so any count and size fits the grid's limits).
#include <cuda_runtime.h>

#include <algorithm>

#include "core/convert/cuda/frame_decode_kernel.h"
#include "core/device/cuda/cuda_check.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) decode_frames(const DecodeFrameRow* rows, std::int64_t count,
                                                          FrameDecode decode) {
  for (std::int64_t i = blockIdx.z; i < count; i += gridDim.z) {
    const DecodeFrameRow row = rows[i];
    const frame::FrameRef& f = row.frame;
    for (int y = static_cast<int>(blockIdx.y); y < f.h; y += static_cast<int>(gridDim.y)) {
      std::uint8_t* out = row.rgb + static_cast<std::int64_t>(y) * f.w * 3;
      for (int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); x < f.w;
           x += static_cast<int>(gridDim.x * blockDim.x)) {
        std::uint8_t rgb[3];
        frame::decode_pixel(decode, f, x, y, rgb);
        out[3 * x] = rgb[0];
        out[3 * x + 1] = rgb[1];
        out[3 * x + 2] = rgb[2];
      }
    }
  }
}

}  // namespace

void launch_decode_frames(const DecodeFrameRow* rows, std::int64_t count, const FrameDecode& decode, std::int64_t max_h,
                          std::int64_t max_w, void* stream) {
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>((max_w + kThreads - 1) / kThreads, 64)),
                  static_cast<unsigned>(std::min<std::int64_t>(max_h, 65535)),
                  static_cast<unsigned>(std::min<std::int64_t>(count, 65535)));
  decode_frames<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(rows, count, decode);
  FERRY_CUDA_TRY(cudaGetLastError());
}

}  // namespace ferry::core::cuda_convert
