// The staging threads' copy of pageable bytes into pinned memory
// (Stager::gather_chunk): non-temporal stores on x86-64 (SSE2, which every
// x86-64 CPU has), memcpy elsewhere. The copy engine reads the pinned bytes
// next; plain stores first read every destination line (write-allocate) and
// evict what the cache held (often the source batch itself), and that
// traffic competes with the DMA's own reads of host memory.
//
// Measured on an H200 host (16-core Xeon, 300 MB L3): 256 MB in 1 MB
// pieces over 12 threads while a DMA read other pinned memory, memcpy 32.4
// GB/s (the DMA 44.5), these stores 43.4 GB/s (the DMA 46.7); with no DMA,
// 41.6 against 46.0. In ferry, old and new code alternated: pageable batches
// (ferry-bench) 0.572 -> 0.608 of the bus limit, a CIFAR-sized dataset upload
// 0.37-0.42 -> 0.43-0.47, but a 2.46 GB upload about 5% slower, its source
// streaming from DRAM either way (bench/RESULTS.md, 2026-11-28).
#pragma once

#include <cstddef>

namespace ferry::core {

// Copies n bytes from src to dst (not overlapping). Its stores are not
// ordered with the thread's later ones: call store_fence()
// (core/store_fence.h) after a thread's last copy, before the bytes are
// handed on (the join that lets the DMA start).
void staging_copy(void* dst, const void* src, std::size_t n) noexcept;

}  // namespace ferry::core
