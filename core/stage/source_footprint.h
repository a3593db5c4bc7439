// The source footprint of a staged batch: the bytes of each sample that the
// conversion reads (a resize's taps, a crop's window), so that a pageable
// batch stages and sends only those. Pure C++, tested on every machine.
//
// Why: from pageable memory the host reads and writes every staged byte
// before the DMA reads it again, which bounds staging at 0.62-0.82 of the bus
// limit on the H200 hosts (bench/RESULTS.md). A resize reads less than the
// whole image: a RandomResizedCrop its window, a 1080p frame stretched to 224
// the 2 x 224 rows its bilinear taps touch. Staging the footprint alone moves
// those bytes only; on the device a kernel (place_runs.h) puts them where the
// packed sample has them, and the kernels read the packed sample as before
// (the bytes outside the footprint are never used).
//
// A footprint is bands: rows of one plane of a sample (an image's pixels, a
// planar image's channel, a frame's plane), each row the same span of
// bytes, the rows a range or a list. A crop reads its window's rows and
// columns inside the image. A resize's taps come from resize::for_each_tap,
// the code the kernels and the CPU converter run (this file's .cpp is built
// without FMA contraction, as they are). Rows are the taps' own where a
// downscale skips rows, else the span of them; columns are always the span.
// A frame's planes are staged by whole plane rows: the rows its decoder reads
// for each image row the taps read (one more on each side where it
// interpolates: linear chroma, Bayer; not the taps of weight 0 where the
// frames are decoded at each tap, ConvertPlan::decodes_at_taps).
#pragma once

#include <cstdint>
#include <vector>

#include "core/convert/convert_plan.h"
#include "core/stage/sample_layout.h"

#if defined(__CUDACC__)
#define FERRY_FOOTPRINT_FN __host__ __device__ __forceinline__
#else
#define FERRY_FOOTPRINT_FN inline
#endif

namespace ferry::core {

// Rows of one plane of a sample that the conversion reads: row r's `bytes`
// bytes at from + r * from_pitch in the caller's memory go to to + r *
// to_pitch in the batch's packed samples (sample g's packed form,
// sample_layout.h, at landing[g]), for r in first_row .. first_row + rows - 1,
// or (list >= 0) for r in SourceFootprint::rows[list .. list + rows - 1].
struct FootprintBand {
  const std::uint8_t* from = nullptr;
  std::int64_t from_pitch = 0;
  std::uint64_t to = 0, to_pitch = 0;
  std::uint32_t bytes = 0;
  std::int32_t first_row = 0, rows = 0;
  std::int64_t list = -1;
};

struct SourceFootprint {
  std::vector<FootprintBand> bands;     // every sample's, in sample order
  std::vector<std::int32_t> rows;       // the listed bands' rows, ascending within a band
  std::vector<std::size_t> first_band;  // n + 1: sample g's bands are [first_band[g], first_band[g + 1])
  std::vector<std::uint64_t> landing;   // n + 1: sample g's packed form at landing[g] in the staged batch
  std::uint64_t row_bytes = 0;          // the bytes its rows hold

  bool on() const noexcept { return !first_band.empty(); }
};

// The footprint of a plan whose samples are `layouts` (one per sample; a
// batch of one size passes its one layout), of the caller's source `view`
// (the batch's), or an empty one (off) where staging whole samples is as
// good: windows that cover the images, a sample whose rows are not contiguous in
// the caller's memory, or a footprint that with its bookkeeping would send
// more than kMaxFootprintShare of the batch's bytes or more than twice a
// sample's.
constexpr double kMaxFootprintShare = 0.8;
SourceFootprint source_footprint_of(const ConvertPlan& plan, const SourceView& view,
                                    const std::vector<SampleLayout>& layouts);

// A band of a chunk as the device reads it from the chunk's slot, offsets
// from the slot's start (`cells`) and from the chunk's packed samples
// (`to`). Its row k (0-based) lies in a cell of bytes + 15 bytes at cells +
// k * (bytes + 15), at the cell's first byte whose offset equals its place
// in the packed samples modulo 16 (place_in_cell), so that rows are copied
// 16 bytes at a time on the device.
struct PlaceBand {
  std::uint32_t cells = 0, to = 0, to_pitch = 0, bytes = 0;
  std::int32_t first_row = 0, rows = 0, list = -1;  // list: into the slot's row list (ChunkFootprint::list_offset)
};

// The offset of a row in the slot: in its cell at `cell`, the first byte
// whose offset is `to` modulo 16.
FERRY_FOOTPRINT_FN std::uint64_t place_in_cell(std::uint64_t cell, std::uint64_t to) {
  return cell + ((to - cell) & 15u);
}

// A chunk's slot: the bands' cells, then at table_offset its PlaceBand
// table, then at list_offset the listed rows (int32). The chunk is bands
// [first_band, first_band + band_count) of the footprint. On the device the
// slot is copied to slot_at in the chunk's input buffer, behind its packed
// samples (which start the buffer).
struct ChunkFootprint {
  std::size_t first_band = 0, band_count = 0;
  std::int32_t max_rows = 0;                        // the most rows a band has
  std::uint64_t table_offset = 0, list_offset = 0;  // 16-aligned
  std::uint64_t slot_bytes = 0;
  std::uint64_t slot_at = 0;                        // 16-aligned
};

// The chunk of samples [first, first + count), whose sample g lands at
// f.landing[g] - f.landing[first] in the chunk's packed samples.
ChunkFootprint chunk_footprint_of(const SourceFootprint& f, std::int64_t first, std::int64_t count);

// Writes the chunk's PlaceBand table and row lists into its slot, and
// returns the table (the staging threads read where each row goes from it).
const PlaceBand* write_place_table(const SourceFootprint& f, std::int64_t first, const ChunkFootprint& chunk,
                                   std::uint8_t* slot);

// Row k of a band (PlaceBand p, the slot's row lists at `lists`): its row
// index, and where its bytes lie in the slot. Host and device.
FERRY_FOOTPRINT_FN std::int32_t band_row(const PlaceBand& p, const std::int32_t* lists, std::int32_t k) {
  return p.list >= 0 ? lists[p.list + k] : p.first_row + k;
}
FERRY_FOOTPRINT_FN std::uint64_t row_in_slot(const PlaceBand& p, std::int32_t k, std::int32_t row) {
  return place_in_cell(p.cells + static_cast<std::uint64_t>(k) * (p.bytes + 15u),
                       p.to + static_cast<std::uint64_t>(row) * p.to_pitch);
}

// The rows placed where the packed samples have them, on the host: the
// CPU backend's side of place_runs.h.
void place_rows_on_host(const std::uint8_t* slot, const ChunkFootprint& chunk, std::uint8_t* packed);

}  // namespace ferry::core
