// The host's staging ceiling, for the pageable rows to be read against: what
// a bare pipeline moves from pageable memory onto the GPU on this host, with
// nothing of ferry's in it. `threads` threads copy 256 KiB pieces of the
// source into a pinned buffer with non-temporal stores (as ferry's staging
// threads do); each chunk of `chunk_bytes` is queued for its DMA as soon as
// its last piece is in; no conversion, no ring to reuse, no events. From
// pageable memory every byte is read and written by the host and then read
// again by the DMA, so this is bound by the host's memory, not the bus
// (bench/RESULTS.md, 2026-11-30 third session: 0.74-0.82 of the bus limit on
// two H200 hosts, whose copies under a DMA ran at 39-45 GB/s with 12 threads).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace ferry::bench {

// The source: ranges of pageable memory (one per sample, or one for a batch in one buffer), laid
// out back to back in the pinned and device buffers.
using SourceRanges = std::vector<std::pair<const void*, std::size_t>>;

// Seconds for one pass of every range onto the device, start to the DMA's end: the median of `passes`.
double staging_ceiling_seconds(const SourceRanges& source, int threads, std::size_t chunk_bytes, int passes,
                               cudaStream_t stream);

}  // namespace ferry::bench
