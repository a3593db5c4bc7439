// Chunk planning: how a batch of n samples is cut into chunks of whole
// samples, each copied and converted on its own as soon as it is staged, so
// copies and kernels overlap within a batch and across batches. Pure
// arithmetic, no CUDA, tested on every machine.
//
// Measured on an H200 (pinned source, 4 streams): 16 MB chunks reached 96% of the
// copy-alone limit, 4 MB 93%, 1 MB 81%. Chunks are balanced (a 38.5 MB batch
// becomes 3 x 12.8 MB, never 16 + 16 + 6.5), so no tail chunk runs alone.
// A chunk is never part of a sample: a 1080p frame cut into four row bands,
// each converted on a second stream once its copy ended, ran slower (each
// band's copy and event cost the copy engine ~3 us; bench/RESULTS.md,
// 2026-11-27 night).
#pragma once

#include <cstdint>
#include <vector>

namespace ferry::core {

struct Chunk {
  std::int64_t first = 0;   // the chunk's first sample
  std::int64_t count = 0;   // samples in the chunk (>= 1)
  std::uint64_t bytes = 0;  // count * bytes_per_sample (the staged or copied uint8 bytes)
};

// The automatic chunk size of the uint8 input.
// CUDA, staged (pageable) sources: 16 MiB, so a batch's host staging overlaps
// its own DMA (measured on the same H200).
// CUDA, direct DMA (pinned or registered sources): 64 MiB. Batches in flight
// already overlap one another's copies and kernels, and fewer, larger copies
// keep the bus busier (H200, 256x224x224x3 batch, pinned source, fp32 NCHW:
// 16 MiB chunks 0.943 of the bus limit, 32 MiB 0.966, 64 MiB 0.989).
// CPU: the conversion reads the source directly; chunks only let several
// batches share the threads fairly: 8 MiB.
constexpr std::uint64_t kAutoChunkBytesCuda = std::uint64_t{16} << 20;
constexpr std::uint64_t kAutoChunkBytesCudaDirect = std::uint64_t{64} << 20;
constexpr std::uint64_t kAutoChunkBytesCpu = std::uint64_t{8} << 20;

// A batch whose input is at most this many bytes takes the short path: it is
// copied and converted from the submitting thread, with no thread hand-off
// (a hand-off to a staging thread costs tens of microseconds; a memcpy of
// 256 KB from the caller's thread costs less).
constexpr std::uint64_t kShortPathBytes = std::uint64_t{256} << 10;

// The chunk size to use: the submit option if set, else the context option,
// else the backend's automatic size. Never below one byte.
std::uint64_t choose_chunk_bytes(std::uint64_t submit_option, std::uint64_t context_option, bool direct,
                                 bool cuda) noexcept;

// Cuts [0, n) into balanced chunks of whole samples, each of at most
// chunk_bytes unless a single sample is larger (then one sample per chunk).
// Throws Status::InvalidArgument for n <= 0 or bytes_per_sample == 0,
// Status::Overflow where n * bytes_per_sample overflows.
std::vector<Chunk> plan_chunks(std::int64_t n, std::uint64_t bytes_per_sample,
                               std::uint64_t chunk_bytes);

// Samples of different sizes: sample i's packed bytes are offsets[i] ..
// offsets[i + 1] (offsets has n + 1 ascending entries, the first 0). Chunks of
// whole samples, each at most chunk_bytes unless one sample is larger (then
// it is a chunk of its own), about evenly filled. Throws
// Status::InvalidArgument for fewer than two offsets.
std::vector<Chunk> plan_chunks_by_offsets(const std::vector<std::uint64_t>& offsets, std::uint64_t chunk_bytes);

}  // namespace ferry::core
