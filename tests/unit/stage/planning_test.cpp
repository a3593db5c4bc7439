// The staging pipeline's pure parts: chunk planning, sample layouts and the
// host gather, the in-flight gate, the staging ring's bound.
#include <gtest/gtest.h>

#include <random>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/context_options.h"
#include "core/device/make_runtime.h"
#include "core/convert/convert_plan.h"
#include "core/error.h"
#include "core/memory/memory_system.h"
#include "core/stage/chunk_planner.h"
#include "core/stage/in_flight_gate.h"
#include "core/stage/sample_layout.h"
#include "core/stage/staging_ring.h"
#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry;
using namespace ferry::core;

TEST(StageChunkPlanner, BalancedChunksOfWholeSamplesWithinTheLimit) {
  // 256 images of 150528 bytes (38.5 MB) at 16 MiB: 3 chunks of 86/85/85 images.
  const auto chunks = plan_chunks(256, 150528, 16 << 20);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].count, 86);
  EXPECT_EQ(chunks[1].count, 85);
  EXPECT_EQ(chunks[2].count, 85);
  std::int64_t next = 0;
  for (const Chunk& c : chunks) {
    EXPECT_EQ(c.first, next);
    EXPECT_LE(c.bytes, std::uint64_t{16} << 20);
    EXPECT_EQ(c.bytes, static_cast<std::uint64_t>(c.count) * 150528);
    next += c.count;
  }
  EXPECT_EQ(next, 256);
}

TEST(StageChunkPlanner, SamplesOfDifferentSizesAreCutByBytes) {
  // Random sizes: every chunk holds whole samples, in order, within the limit
  // unless one sample alone exceeds it; no more chunks than twice the minimum.
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    const int n = std::uniform_int_distribution<int>(1, 300)(rng);
    std::vector<std::uint64_t> offsets{0};
    for (int i = 0; i < n; ++i) offsets.push_back(offsets.back() + std::uniform_int_distribution<std::uint64_t>(1, 5000)(rng));
    const std::uint64_t limit = std::uniform_int_distribution<std::uint64_t>(1, 60000)(rng);
    const auto chunks = plan_chunks_by_offsets(offsets, limit);
    std::int64_t next = 0;
    for (const Chunk& c : chunks) {
      ASSERT_EQ(c.first, next);
      ASSERT_GE(c.count, 1);
      ASSERT_EQ(c.bytes, offsets[static_cast<std::size_t>(c.first + c.count)] - offsets[static_cast<std::size_t>(c.first)]);
      if (c.count > 1) ASSERT_LE(c.bytes, limit) << "round " << round;
      next += c.count;
    }
    ASSERT_EQ(next, n);
    const std::uint64_t fewest = (offsets.back() + limit - 1) / limit;
    EXPECT_LE(chunks.size(), std::max<std::uint64_t>(2 * fewest, static_cast<std::uint64_t>(n < 2 ? 1 : 2)) + 1)
        << "round " << round;
  }
  // Even shares: 256 samples of about 150 KB at 16 MiB are 3 chunks.
  std::vector<std::uint64_t> offsets{0};
  for (int i = 0; i < 256; ++i) offsets.push_back(offsets.back() + 150528 + (i % 7) * 1000);
  const auto chunks = plan_chunks_by_offsets(offsets, 16 << 20);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_NEAR(static_cast<double>(chunks[0].bytes), static_cast<double>(chunks[2].bytes), 2.0 * 160000);
  EXPECT_THROW(plan_chunks_by_offsets({0}, 10), ferry::Error);
}

TEST(StageChunkPlanner, EdgeCases) {
  EXPECT_EQ(plan_chunks(1, 100, 16 << 20).size(), 1u);
  const auto big = plan_chunks(3, 100 << 20, 16 << 20);  // a sample larger than a chunk: one per chunk
  ASSERT_EQ(big.size(), 3u);
  EXPECT_EQ(big[2].first, 2);
  const auto exact = plan_chunks(10, 10, 20);
  EXPECT_EQ(exact.size(), 5u);
  const auto tiny_limit = plan_chunks(4, 10, 0);
  EXPECT_EQ(tiny_limit.size(), 4u);
  EXPECT_THROW(plan_chunks(0, 10, 20), ferry::Error);
  EXPECT_THROW(plan_chunks(5, 0, 20), ferry::Error);
  try {
    plan_chunks(INT64_MAX, 1 << 20, 16 << 20);
    FAIL();
  } catch (const ferry::Error& e) {
    EXPECT_EQ(e.status(), Status::Overflow);
  }
}

TEST(StageChunkPlanner, ChunkSizeChoice) {
  EXPECT_EQ(choose_chunk_bytes(0, 0, false, true), kAutoChunkBytesCuda);
  EXPECT_EQ(choose_chunk_bytes(0, 0, true, true), kAutoChunkBytesCudaDirect);
  EXPECT_EQ(choose_chunk_bytes(0, 0, false, false), kAutoChunkBytesCpu);
  EXPECT_EQ(choose_chunk_bytes(0, 0, true, false), kAutoChunkBytesCpu);
  EXPECT_EQ(choose_chunk_bytes(0, 1234, true, true), 1234u);
  EXPECT_EQ(choose_chunk_bytes(99, 1234, false, true), 99u);
}

ConvertPlan plan_for(const ferry_source& s) {
  return make_convert_plan(api::to_core(s), Transform{}, nullptr);
}

TEST(StageSampleLayout, RowsOfEachSourceShape) {
  using test::SourceKind;
  struct Case {
    SourceKind kind;
    std::int64_t rows, row_bytes;
  };
  const std::int64_t h = 7, w = 5;
  for (const Case& c : {Case{SourceKind::kPacked, 1, h * w * 3}, Case{SourceKind::kPitched, h, w * 3},
                        Case{SourceKind::kSamples, 1, h * w * 3}, Case{SourceKind::kStridedChannels, 0, 0}}) {
    auto src = test::make_source(nullptr, c.kind, 3, h, w, 1);
    const ConvertPlan plan = plan_for(src->source);
    const SampleLayout layout = sample_layout_of(plan);
    EXPECT_EQ(layout.rows, c.rows) << test::name_of(c.kind);
    EXPECT_EQ(layout.row_bytes, c.row_bytes) << test::name_of(c.kind);
    EXPECT_EQ(layout.packed_bytes, static_cast<std::uint64_t>(h * w * 3));
    EXPECT_EQ(is_dense_batch(plan, layout), c.kind == SourceKind::kPacked) << test::name_of(c.kind);
    // Packing each sample gives the packed image of the caller's pixels.
    std::vector<std::uint8_t> packed(layout.packed_bytes);
    const SourceView view = source_view_of(plan, api::to_core(src->source));
    for (std::int64_t i = 0; i < 3; ++i) {
      pack_sample(packed.data(), sample_at(view, i), shape_of(plan), layout);
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
          for (int k = 0; k < 3; ++k)
            ASSERT_EQ(packed[static_cast<std::size_t>((y * w + x) * 3 + k)],
                      sample_at(view, i)[y * plan.source_strides.h + x * plan.source_strides.w +
                                         k * plan.source_strides.c]);
    }
  }
}

// A large sample is gathered in pieces by several threads: any cut of its
// packed bytes into ranges, each packed on its own, gives what packing the
// whole sample gives (rows cut in their middle, pieces of a byte, a range
// spanning several rows).
TEST(StageSampleLayout, PiecesOfASamplePackAsTheWholeDoes) {
  using test::SourceKind;
  std::mt19937 rng(11);
  for (SourceKind kind : {SourceKind::kPacked, SourceKind::kPitched, SourceKind::kSamples}) {
    auto src = test::make_source(nullptr, kind, 2, 9, 7, 3);
    const ConvertPlan plan = plan_for(src->source);
    const SampleLayout layout = sample_layout_of(plan);
    ASSERT_TRUE(layout.is_rows()) << test::name_of(kind);
    const SourceView view = source_view_of(plan, api::to_core(src->source));
    std::vector<std::uint8_t> whole(layout.packed_bytes), pieces(layout.packed_bytes);
    for (std::int64_t i = 0; i < 2; ++i) {
      pack_sample(whole.data(), sample_at(view, i), shape_of(plan), layout);
      for (int trial = 0; trial < 20; ++trial) {
        std::fill(pieces.begin(), pieces.end(), std::uint8_t{0xA5});
        for (std::uint64_t from = 0; from < layout.packed_bytes;) {
          const std::uint64_t to = std::min<std::uint64_t>(layout.packed_bytes, from + 1 + rng() % 40);
          pack_sample_range(pieces.data(), sample_at(view, i), layout, from, to);
          from = to;
        }
        ASSERT_EQ(pieces, whole) << test::name_of(kind) << " sample " << i << " trial " << trial;
      }
    }
  }
}

TEST(StageSampleLayout, PlanarSourceWithPitchedPlanes) {
  ferry_source s = api::c_defaults<ferry_source>();
  std::vector<std::uint8_t> bytes(4096);
  s.data = bytes.data(), s.bytes = bytes.size(), s.n = 2, s.h = 4, s.w = 6, s.c = 3;
  s.layout = FERRY_LAYOUT_NCHW;
  s.stride_c = 40;  // planes 40 bytes apart: rows of one plane are contiguous
  const ConvertPlan plan = plan_for(s);
  const SampleLayout layout = sample_layout_of(plan);
  EXPECT_EQ(layout.rows, 3);
  EXPECT_EQ(layout.row_bytes, 24);
  EXPECT_EQ(layout.pitch, 40);
  EXPECT_EQ(layout.packed_strides.c, 24);
  EXPECT_EQ(layout.packed_strides.h, 6);
  EXPECT_EQ(layout.packed_strides.w, 1);
}

TEST(StageInFlightGate, BlocksNonblockingFailsCloseWakes) {
  std::atomic<std::uint64_t> busy{0};
  InFlightGate gate(2, busy);
  EXPECT_TRUE(gate.enter(true));
  EXPECT_TRUE(gate.enter(false));
  EXPECT_FALSE(gate.enter(false));
  std::atomic<bool> entered{false};
  std::thread blocked([&] {
    entered = gate.enter(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(entered.load());
  gate.leave();
  blocked.join();
  EXPECT_TRUE(entered.load());
  EXPECT_EQ(gate.in_flight(), 2);
  std::thread refused([&] { EXPECT_THROW(gate.enter(true), ferry::Error); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  gate.close();
  refused.join();
  gate.leave();
  gate.leave();
  gate.wait_idle();
  EXPECT_EQ(gate.in_flight(), 0);
  EXPECT_GT(busy.load(), 0u);
}

TEST(StageStagingRing, ReusesBuffersAndNeverExceedsItsBound) {
  ContextOptions o;
  o.device_kind = DeviceKind::Cpu;
  MemorySystem memory(make_runtime(DeviceKind::Cpu, -1), o);
  StagingRing ring(memory.pinned_pool(), memory.event_pool(), 4 << 20);
  std::vector<void*> buffers;
  for (int i = 0; i < 4; ++i) buffers.push_back(ring.acquire(1 << 20));
  EXPECT_EQ(ring.held_bytes(), std::uint64_t{4} << 20);
  // A fifth waits for one to come back.
  std::atomic<void*> fifth{nullptr};
  std::thread waiter([&] { fifth = ring.acquire(1 << 20); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(fifth.load(), nullptr);
  ring.release_after_copy(buffers[2], nullptr);
  waiter.join();
  EXPECT_EQ(fifth.load(), buffers[2]);  // the same buffer: no new allocation
  EXPECT_EQ(ring.held_bytes(), std::uint64_t{4} << 20);
  // A larger request at the bound gives back idle smaller buffers to make room.
  for (void* b : {buffers[0], buffers[1], buffers[3], fifth.load()}) ring.release_unused(b);
  void* large = ring.acquire(3 << 20);
  EXPECT_TRUE(memory.pinned_pool().contains(large, 3 << 20));
  EXPECT_GE(ring.held_bytes(), std::uint64_t{3} << 20);
  EXPECT_LE(ring.held_bytes(), std::uint64_t{4} << 20);
  ring.release_unused(large);
  try {
    ring.acquire(5 << 20);
    FAIL();
  } catch (const ferry::Error& e) {
    EXPECT_EQ(e.status(), Status::OutOfMemory);
    EXPECT_NE(std::string(e.what()).find("max_staging_bytes"), std::string::npos);
  }
}

}  // namespace
