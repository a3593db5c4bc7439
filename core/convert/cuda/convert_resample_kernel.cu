// Launches the resample kernel (resample_kernel.cuh) that fits a call: its
// sampler, mapped channels, output dtype, frames or samples, augmented or
// not; and its grid.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/convert/cuda/resample_kernels.h"
#include "core/convert/cuda/resample_params.h"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kMaxGridY = 65535, kMaxGridZ = 65535;  // samples in y, tiles in z
// Threads enough to fill any GPU a few times over. H200, with the tiles in z
// (alternated, two rounds): 2^19 -> 2^18 took Resize(256)+CenterCrop from
// 0.697 to 0.710 of a D2D copy and RandomResizedCrop from 0.630 to 0.645-0.650
// (two blocks per column of 7 tiles, not three: fewer starts on a sample);
// the 16-frame letterbox went 0.778 -> 0.754, the upscale 0.420 -> 0.410,
// the stretch stayed at 0.745; 2^20 and 2^17 were slower.
constexpr std::int64_t kWideThreads = std::int64_t{1} << 18;

const void* kernel_for(Sampler sampler, int n, DType dtype, bool augmented, int warps) {
  switch (sampler) {
    case Sampler::Copy: return resample_kernel_for<Sampler::Copy>(n, dtype, false, warps);  // augmentation resizes
    case Sampler::Nearest: return resample_kernel_for<Sampler::Nearest>(n, dtype, augmented, warps);
    case Sampler::Linear: return resample_kernel_for<Sampler::Linear>(n, dtype, augmented, warps);
    case Sampler::Cubic: return resample_kernel_for<Sampler::Cubic>(n, dtype, augmented, warps);
    case Sampler::Area: return resample_kernel_for<Sampler::Area>(n, dtype, augmented, warps);
    case Sampler::LinearAntialias: return resample_kernel_for<Sampler::LinearAntialias>(n, dtype, augmented, warps);
  }
  return nullptr;
}

// The current device's compute capability major.
int compute_major() {
  int device = 0, major = 0;
  FERRY_CUDA_TRY(cudaGetDevice(&device));
  FERRY_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major;
}

}  // namespace

void launch_resample(const ResampleParams& params, Sampler sampler, void* stream) {
  const LaunchShape shape = launch_shape(params, sampler);
  const bool augmented = shape.augmented, frames = shape.frames;
  const int warps = shape.warps, rows = shape.rows;
  const void* kernel = frames ? resample_frame_kernel_for(sampler, params.oc, params.dtype, augmented, rows)
                              : kernel_for(sampler, params.oc, params.dtype, augmented, warps);
  if (kernel == nullptr)
    fail(Status::Internal, "resample kernel for sampler ", static_cast<int>(sampler), ", ", params.oc,
         " channels and dtype ", static_cast<int>(params.dtype), " does not exist");
  if (params.count <= 0 || params.oh <= 0 || params.ow <= 0) return;
  const dim3 block(kTileW, static_cast<unsigned>(warps));
  const std::int64_t tile_rows_of_block = warps * rows;
  // Tiles in z: all of them side by side for a frame or two (latency), but
  // no more threads than about kWideThreads: then a block walks several tiles of
  // its sample, and its per-sample work (the row, the column's taps) serves
  // them all. Area and antialiased linear, whose pixels cost many taps, keep
  // a block per tile (H200: 0.75 -> 0.91 ms for their crops with two a block).
  const std::int64_t columns = (params.ow + kTileW - 1) / kTileW;
  const std::int64_t samples = std::min<std::int64_t>(params.count, kMaxGridY);
  const std::int64_t tiles = (params.oh + tile_rows_of_block - 1) / tile_rows_of_block;
  const bool many_taps = sampler == Sampler::Area || sampler == Sampler::LinearAntialias;
  const std::int64_t wide_grid = kWideThreads / (kTileW * warps);
  const std::int64_t wanted =
      many_taps ? tiles : std::max<std::int64_t>(1, (wide_grid + columns * samples - 1) / (columns * samples));
  // Samples in y, tiles in z: the blocks of a launch's first tiles run first (resample_kernel.cuh).
  const dim3 grid(static_cast<unsigned>(columns), static_cast<unsigned>(samples),
                  static_cast<unsigned>(std::min({tiles, wanted, std::int64_t{kMaxGridZ}})));
  const std::size_t tiles_bytes = shape.pipelined ? 2 * static_cast<std::size_t>(params.tile_capacity) : 0;
  void* args[] = {const_cast<ResampleParams*>(&params)};
  cudaLaunchConfig_t config = {};
  config.gridDim = grid, config.blockDim = block, config.dynamicSmemBytes = tiles_bytes;
  config.stream = static_cast<cudaStream_t>(stream);
  cudaLaunchAttribute early;
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  // Early start (early_start.cuh): H200, alternated three rounds, the
  // stretch 400 -> 224 of 256 images 0.749-0.751 -> 0.760-0.761 of a D2D
  // copy, 16 frames letterboxed 0.749-0.751 -> 0.774-0.775; launches behind their
  // table's copy (a wait on its event between them) do not start early.
  if (params.early_start != 0 && shape.pipelined && compute_major() >= 9) config.attrs = &early, config.numAttrs = 1;
  FERRY_CUDA_TRY(cudaLaunchKernelExC(&config, kernel, args));
}

}  // namespace ferry::core::cuda_convert
