// ferry_bench_dataset's second baseline for the gather rows: the plainest
// kernel that gathers the same random samples of a resident set, so a row's
// ratio to it is its distance from what any gather of those samples costs.
// A D2D copy reads one contiguous span; a gather of 256 random samples of a
// 154 MB set reads 256 places over some 75 of its 2 MB pages. Measured
// (H200, CIFAR batch 256): this kernel 4.4-4.6 us against the copy's
// 4.3-4.5, so those places cost a gather little; ferry's kernel's distance
// from it is ferry's own.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace ferry::bench {

// The most indices one bare gather takes (its launch parameter holds them, as ferry's gather's does).
inline constexpr int kBareGatherMaxCount = 1024;

// Reads the whole of samples indices[0..count) of `set` (each sample_bytes,
// a multiple of 16; `set` 16-byte aligned) once, each in 16-byte vectors,
// and writes each byte widened to 16 bits into `out` (2 * count *
// sample_bytes bytes, 16-byte aligned): the bytes a uint8 -> f16 gather
// without resize writes, in two planes so that every store of a warp is 512
// contiguous bytes. One launch, the indices in its parameter (1 KB for up
// to 256, 4 KB for more). Enqueued on `stream`; returns the launch's error,
// cudaErrorInvalidValue for count outside 1..kBareGatherMaxCount or a
// sample size that is not a multiple of 16.
cudaError_t launch_bare_gather(const std::uint8_t* set, std::size_t sample_bytes, const std::int64_t* indices,
                               int count, void* out, cudaStream_t stream);

}  // namespace ferry::bench
