// Stager: which batches stage only their source footprint
// (source_footprint.h), and the placing of a staged footprint's rows.
#include <algorithm>

#include "core/stage/place_rows.h"
#include "core/stage/stager.h"

namespace ferry::core {

// Staged (pageable) batches that convert (not a copy of the bytes as they
// are), not short (the kernel reads a short batch where it lies), whose
// chunks' tables fit 32-bit offsets. Not pinned sources: their batches reach
// the bus limit already, and one pinned 1080p NV12 frame letterboxed to 640,
// sent as two 2-D copies of the rows it reads (two thirds of its luma), ran
// 2-13 us slower than one copy of it all on an H200 (the copies' host time
// outweighed the bytes saved; bench/RESULTS.md, 2026-11-30, fifth session).
void Stager::take_footprint(Batch& b) {
  const Submitted& s = b.submitted;
  if (s.route != BatchRoute::kStaged || s.copies_bytes || s.read_in_place || s.short_path) return;
  constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{1} << 31;
  auto fits = [](const ChunkWork& w) { return w.chunk.bytes < kMaxChunkBytes; };
  if (!std::all_of(b.chunks_.begin(), b.chunks_.end(), fits)) return;
  const std::vector<SampleLayout> one{s.layout};
  b.footprint_ = source_footprint_of(s.plan, s.view, s.plan.variable_sizes() ? s.sample_layouts : one);
}

void Stager::place_rows(const ChunkFootprint& chunk, std::uint8_t* buffer, StreamHandle s) {
#if FERRY_HAVE_CUDA
  if (converter_.is_cuda()) {
    launch_place_rows(buffer + chunk.slot_at, chunk, buffer, s);
    return;
  }
#endif
  (void)s;
  place_rows_on_host(buffer + chunk.slot_at, chunk, buffer);
}

}  // namespace ferry::core
