#include "core/stage/chunk_planner.h"

#include <algorithm>

#include "core/checked_math.h"
#include "core/error.h"

namespace ferry::core {

std::uint64_t choose_chunk_bytes(std::uint64_t submit_option, std::uint64_t context_option, bool direct,
                                 bool cuda) noexcept {
  if (submit_option != 0) return submit_option;
  if (context_option != 0) return context_option;
  if (!cuda) return kAutoChunkBytesCpu;
  return direct ? kAutoChunkBytesCudaDirect : kAutoChunkBytesCuda;
}

std::vector<Chunk> plan_chunks(std::int64_t n, std::uint64_t bytes_per_sample,
                               std::uint64_t chunk_bytes) {
  FERRY_EXPECT(n > 0, Status::InvalidArgument, "n is ", n, ": a batch needs at least one sample");
  FERRY_EXPECT(bytes_per_sample > 0, Status::InvalidArgument,
               "bytes_per_sample is 0: a sample holds at least one byte");
  const auto samples = static_cast<std::uint64_t>(n);
  // The whole batch must be addressable before it is cut.
  (void)checked_mul(samples, bytes_per_sample, "batch bytes (n * sample bytes)");
  // The most whole samples a chunk may hold, then as few chunks as that allows,
  // with the samples spread evenly (no chunk exceeds the limit, none is a stub).
  const std::uint64_t per_chunk_max = std::max<std::uint64_t>(chunk_bytes / bytes_per_sample, 1);
  const std::uint64_t chunk_count = samples / per_chunk_max + (samples % per_chunk_max != 0 ? 1 : 0);
  const std::uint64_t base = samples / chunk_count;
  const std::uint64_t extra = samples % chunk_count;  // the first `extra` chunks get one more

  std::vector<Chunk> chunks;
  chunks.reserve(chunk_count);
  std::uint64_t first = 0;
  for (std::uint64_t k = 0; k < chunk_count; ++k) {
    const std::uint64_t count = base + (k < extra ? 1 : 0);
    chunks.push_back(Chunk{static_cast<std::int64_t>(first), static_cast<std::int64_t>(count),
                           count * bytes_per_sample});
    first += count;
  }
  return chunks;
}

std::vector<Chunk> plan_chunks_by_offsets(const std::vector<std::uint64_t>& offsets, std::uint64_t chunk_bytes) {
  FERRY_EXPECT(offsets.size() >= 2, Status::InvalidArgument, "offsets has ", offsets.size(),
               " entries: a batch needs at least one sample (n + 1 offsets)");
  const auto n = static_cast<std::int64_t>(offsets.size() - 1);
  const std::uint64_t total = offsets.back();
  const std::uint64_t limit = std::max<std::uint64_t>(chunk_bytes, 1);
  // As many chunks as the limit asks for, each closed once it reaches its even
  // share of the bytes or the next sample would take it past the limit.
  const std::uint64_t chunk_count = std::max<std::uint64_t>(1, (total + limit - 1) / limit);
  const std::uint64_t share = (total + chunk_count - 1) / chunk_count;
  std::vector<Chunk> chunks;
  std::int64_t first = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t held = offsets[static_cast<std::size_t>(i + 1)] - offsets[static_cast<std::size_t>(first)];
    const bool last = i + 1 == n;
    const std::uint64_t with_next =
        last ? 0 : offsets[static_cast<std::size_t>(i + 2)] - offsets[static_cast<std::size_t>(first)];
    if (last || held >= share || with_next > limit) {
      chunks.push_back(Chunk{first, i + 1 - first, held});
      first = i + 1;
    }
  }
  return chunks;
}

}  // namespace ferry::core
