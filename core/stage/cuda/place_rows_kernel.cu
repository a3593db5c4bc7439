// The device side of a footprint-staged chunk (source_footprint.h): each
// staged row copied from its cell in the slot to its place among the chunk's
// packed samples. A warp a row (0.2-6 KB): its unaligned head and tail
// bytewise, the rest 16 bytes a lane, which the cells' alignment (a row's
// offset in the slot equals its place modulo 16) allows.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/device/cuda/cuda_check.h"
#include "core/stage/place_rows.h"

namespace ferry::core {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kRowsPerBlock = 4 * kWarps;  // a block: rows of one band, four a warp
constexpr unsigned kMaxBlocksY = 65535;

// One row of `bytes` bytes from `from` to `to`, equal modulo 16, by one warp.
__device__ __forceinline__ void copy_row(const std::uint8_t* from, std::uint8_t* to, std::uint32_t bytes, int lane) {
  const auto misaligned = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(to) & 15u);
  const std::uint32_t head = min(bytes, (16u - misaligned) & 15u);
  if (static_cast<std::uint32_t>(lane) < head) to[lane] = from[lane];
  const std::uint32_t vectors = (bytes - head) / 16;
  const auto* from16 = reinterpret_cast<const uint4*>(from + head);
  auto* to16 = reinterpret_cast<uint4*>(to + head);
  for (std::uint32_t q = lane; q < vectors; q += 32) to16[q] = from16[q];
  const std::uint32_t tail_at = head + vectors * 16;
  if (static_cast<std::uint32_t>(lane) < bytes - tail_at) to[tail_at + lane] = from[tail_at + lane];
}

// Block (x, y): band x's rows in groups of kRowsPerBlock, groups y, y +
// gridDim.y, ...: a 1080p plane's 448 rows take 14 blocks, not one (a block
// a band moved 8.6 MB of NV12 rows at 0.35 TB/s on an H200).
__global__ void __launch_bounds__(kThreads) place_rows_kernel(const std::uint8_t* __restrict__ slot,
                                                              const PlaceBand* __restrict__ table,
                                                              const std::int32_t* __restrict__ lists,
                                                              std::uint8_t* __restrict__ packed) {
  const PlaceBand band = table[blockIdx.x];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x & 31);
  for (std::int32_t group = blockIdx.y * kRowsPerBlock; group < band.rows; group += gridDim.y * kRowsPerBlock) {
    const std::int32_t end = min(band.rows, group + kRowsPerBlock);
    for (std::int32_t k = group + warp; k < end; k += kWarps) {
      const std::int32_t row = band_row(band, lists, k);
      copy_row(slot + row_in_slot(band, k, row), packed + band.to + static_cast<std::uint64_t>(row) * band.to_pitch,
               band.bytes, lane);
    }
  }
}

}  // namespace

void launch_place_rows(const std::uint8_t* slot, const ChunkFootprint& chunk, std::uint8_t* packed, void* stream) {
  if (chunk.band_count == 0 || chunk.max_rows <= 0) return;
  const auto* table = reinterpret_cast<const PlaceBand*>(slot + chunk.table_offset);
  const auto* lists = reinterpret_cast<const std::int32_t*>(slot + chunk.list_offset);
  void* args[] = {&slot, &table, &lists, &packed};
  const auto groups = static_cast<unsigned>((chunk.max_rows + kRowsPerBlock - 1) / kRowsPerBlock);
  const dim3 grid(static_cast<unsigned>(chunk.band_count), std::min(kMaxBlocksY, groups));
  FERRY_CUDA_TRY(cudaLaunchKernel(reinterpret_cast<const void*>(&place_rows_kernel), grid, dim3(kThreads), args, 0,
                                  static_cast<cudaStream_t>(stream)));
}

}  // namespace ferry::core
