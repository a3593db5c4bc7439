// Stager: the gather of a staged batch's chunks into pinned slots, each chunk
// started on the staging threads before the previous chunk's copy is queued.
//
// With one gather at a time (a parallel_for a chunk, then its copy), the
// threads waited at each chunk's end for the slowest piece, and again while
// the copy was queued. H200, 64 1080p NV12 frames from pageable memory, 12
// staging threads: ferry staged them at 0.65-0.68 of the bus limit, where a
// bare pipeline of the same threads, pieces and chunks without those waits
// reached 0.81-0.82 (the host's copies under the DMA ran at 45 GB/s).
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "core/stage/nvtx.h"
#include "core/stage/stager.h"
#include "core/stage/staging_copy.h"
#include "core/store_fence.h"

namespace ferry::core {
namespace {

using Clock = std::chrono::steady_clock;

// Gather work is cut into pieces of about this many bytes over the staging threads.
// 256 KiB: a 12.8 MB chunk is 50 pieces, so 8 threads end within a piece of each other.
constexpr std::uint64_t kGatherPieceBytes = std::uint64_t{256} << 10;

// One chunk's gather: its slot, its pieces and the job on the staging
// threads. Neither copied nor moved: the started job reads body_ in place.
class ChunkGather {
 public:
  // f: the batch's footprint (off: its samples are staged whole).
  ChunkGather(const Batch& b, const SourceFootprint& f, const ChunkWork& w, void* slot, ThreadPool& pool,
              PipelineCounters& counters, StagingRing& ring);
  ChunkGather(const ChunkGather&) = delete;
  ChunkGather& operator=(const ChunkGather&) = delete;
  // Waits for the pieces still being copied, then gives the slot back unused.
  ~ChunkGather();

  // The slot, gathered, once every piece is; the gather's error rethrown,
  // its slot given back.
  void* finish();

 private:
  struct Piece {
    std::size_t g;  // the sample
    std::uint64_t from, to;
  };
  void piece_body(const Batch& b, const SourceFootprint& f, const ChunkWork& w, std::uint8_t* dst, std::int64_t& count,
                  std::int64_t& grain);

  StagingRing& ring_;
  PipelineCounters& counters_;
  void* slot_;
  std::vector<Piece> pieces_;  // samples of different sizes
  struct Rows {
    std::uint32_t band;  // of the chunk
    std::int32_t first, end;  // its rows [first, end)
  };
  std::vector<Rows> rows_;  // a footprint: the bands' rows, in pieces
  std::function<void(std::int64_t, std::int64_t)> body_;
  ThreadPool::Started started_;
};

ChunkGather::ChunkGather(const Batch& b, const SourceFootprint& f, const ChunkWork& w, void* slot, ThreadPool& pool,
                         PipelineCounters& counters, StagingRing& ring)
    : ring_(ring), counters_(counters), slot_(slot) {
  std::int64_t count = 0, grain = 1;
  try {
    piece_body(b, f, w, static_cast<std::uint8_t*>(slot), count, grain);
    started_ = pool.start_for(0, count, body_, grain);
  } catch (...) {
    ring_.release_unused(slot_);
    throw;
  }
}

ChunkGather::~ChunkGather() {
  if (slot_ == nullptr) return;
  try {
    started_.wait();
  } catch (...) {
    // The owner is already failing the batch.
  }
  ring_.release_unused(slot_);
}

void* ChunkGather::finish() {
  NvtxRange range("ferry stage");
  started_.wait();  // on a throw the destructor gives the slot back
  void* slot = slot_;
  slot_ = nullptr;
  return slot;
}

// The job's body over [0, count): the pieces of the chunk's samples.
void ChunkGather::piece_body(const Batch& b, const SourceFootprint& f, const ChunkWork& w, std::uint8_t* dst,
                             std::int64_t& count, std::int64_t& grain) {
  const Chunk& c = w.chunk;
  // The job runs after this returns: its bodies hold the batch's Submitted by pointer (the batch
  // outlives the job), the rest by value.
  const Submitted* s = &b.submitted;
  // Each run of pieces ends with a store fence (their stores are
  // non-temporal) and adds its time to the counters.
  auto timed = [counters = &counters_](auto work) {
    return [counters, work](std::int64_t begin, std::int64_t end) {
      const auto start = Clock::now();
      work(begin, end);
      store_fence();
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
      counters->staging_ns.fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
    };
  };
  if (f.on()) {
    // The chunk's bands, in pieces of about kGatherPieceBytes of rows, each
    // row to the place in the slot the table (written here first) gives.
    const PlaceBand* table = write_place_table(f, c.first, w.footprint, dst);
    const auto* lists = reinterpret_cast<const std::int32_t*>(dst + w.footprint.list_offset);
    for (std::size_t i = 0; i < w.footprint.band_count; ++i) {
      const auto step = static_cast<std::int32_t>(std::max<std::uint64_t>(1, kGatherPieceBytes / table[i].bytes));
      for (std::int32_t k = 0; k < table[i].rows; k += step)
        rows_.push_back({static_cast<std::uint32_t>(i), k, std::min(table[i].rows, k + step)});
    }
    const FootprintBand* bands = f.bands.data() + w.footprint.first_band;
    const Rows* rows = rows_.data();
    count = static_cast<std::int64_t>(rows_.size());
    // Small bands (a 224 x 224 image's window: 50-150 KB) go several to a piece.
    const std::uint64_t slot_bytes = std::max<std::uint64_t>(1, w.footprint.slot_bytes);
    grain = static_cast<std::int64_t>(std::max<std::uint64_t>(1, kGatherPieceBytes * rows_.size() / slot_bytes));
    body_ = timed([dst, table, lists, bands, rows](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const PlaceBand& p = table[rows[i].band];
        const FootprintBand& band = bands[rows[i].band];
        for (std::int32_t k = rows[i].first; k < rows[i].end; ++k) {
          const std::int32_t row = band_row(p, lists, k);
          staging_copy(dst + row_in_slot(p, k, row), band.from + row * band.from_pitch, p.bytes);
        }
      }
    });
    return;
  }
  if (s->plan.variable_sizes()) {
    // Pieces of at most kGatherPieceBytes, cut inside samples whose rows a
    // memcpy reads: a sample each left the threads unevenly loaded (images
    // of 300-500 px are 0.27-0.75 MB, a 16 MB chunk about 30 of them for 8
    // threads). Element-wise gathers stay whole.
    for (std::int64_t i = 0; i < c.count; ++i) {
      const auto g = static_cast<std::size_t>(c.first + i);
      const SampleLayout& L = s->sample_layouts[g];
      const std::uint64_t step = L.is_rows() ? kGatherPieceBytes : L.packed_bytes;
      for (std::uint64_t from = 0; from < L.packed_bytes; from += step)
        pieces_.push_back({g, from, std::min(L.packed_bytes, from + step)});
    }
    const std::uint64_t origin = s->sample_offsets[static_cast<std::size_t>(c.first)];
    const Piece* pieces = pieces_.data();
    count = static_cast<std::int64_t>(pieces_.size());
    body_ = timed([s, dst, origin, pieces](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const Piece& piece = pieces[i];
        const SampleLayout& L = s->sample_layouts[piece.g];
        std::uint8_t* to = dst + (s->sample_offsets[piece.g] - origin);
        const std::uint8_t* from = s->plan.sample_data[piece.g];
        if (L.is_rows())
          pack_sample_range(to, from, L, piece.from, piece.to);
        else
          pack_sample(to, from, shape_of(s->plan, static_cast<std::int64_t>(piece.g)), L);
      }
    });
    return;
  }
  if (is_dense_batch(s->plan, s->layout)) {
    const std::uint8_t* src = s->view.base + c.first * s->plan.source_strides.n;
    const std::uint64_t bytes = c.bytes;
    count = static_cast<std::int64_t>((bytes + kGatherPieceBytes - 1) / kGatherPieceBytes);
    body_ = timed([dst, src, bytes](std::int64_t begin, std::int64_t end) {
      const std::uint64_t from = static_cast<std::uint64_t>(begin) * kGatherPieceBytes;
      const std::uint64_t to = std::min(bytes, static_cast<std::uint64_t>(end) * kGatherPieceBytes);
      staging_copy(dst + from, src + from, static_cast<std::size_t>(to - from));
    });
    return;
  }
  const std::uint64_t packed = s->layout.packed_bytes;
  const std::int64_t first = c.first;
  count = c.count;
  grain = static_cast<std::int64_t>(std::max<std::uint64_t>(1, kGatherPieceBytes / packed));
  body_ = timed([s, dst, packed, first](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      pack_sample(dst + static_cast<std::uint64_t>(i) * packed, sample_at(s->view, first + i), shape_of(s->plan),
                  s->layout);
  });
}

}  // namespace

// Chunk k + 1's gather is started (when the ring has a slot for it without
// waiting on this thread) before chunk k's is finished and its copy queued:
// the staging threads go from one chunk's pieces to the next.
void Stager::run_staged(Batch& b) {
  take_footprint(b);
  auto start = [&](ChunkWork& w, bool may_wait) -> std::unique_ptr<ChunkGather> {
    if (b.footprint_.on()) w.footprint = chunk_footprint_of(b.footprint_, w.chunk.first, w.chunk.count);
    const auto bytes = static_cast<std::size_t>(b.footprint_.on() ? w.footprint.slot_bytes : w.chunk.bytes);
    void* slot = may_wait ? ring_->acquire(bytes) : ring_->try_acquire(bytes);
    if (slot == nullptr) return nullptr;
    return std::make_unique<ChunkGather>(b, b.footprint_, w, slot, staging_pool_, counters_, *ring_);
  };
  std::unique_ptr<ChunkGather> next;
  for (std::size_t k = 0; k < b.chunks_.size(); ++k) {
    std::unique_ptr<ChunkGather> current = next ? std::move(next) : start(b.chunks_[k], true);
    if (k + 1 < b.chunks_.size()) next = start(b.chunks_[k + 1], false);
    run_chunk(b, b.chunks_[k], current->finish());
  }
}

}  // namespace ferry::core
