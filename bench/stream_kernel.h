// The kernel table's second baseline (ferry_bench_convert): the plainest
// streaming kernel that reads and writes as many bytes as a row does, so a
// row's ratio to it is its distance from what any kernel of the same
// read:write mix reaches. A D2D copy reads and writes equally; rows that
// write 2-12 bytes a byte read sit lower against it on HBM (H200: a
// 1:4 streaming kernel 0.88-0.89 of the copy, 1:12 0.86; write-only 1.03).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace ferry::bench {

// Reads in_bytes from `in` once and writes out_bytes to `out` once
// (out_bytes >= in_bytes, both multiples of 16, 16-byte aligned), in 16-byte
// vectors, the output as planes of the input's size. Enqueued on `stream`;
// returns the launch's error.
cudaError_t launch_stream_kernel(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                                 cudaStream_t stream);

}  // namespace ferry::bench
