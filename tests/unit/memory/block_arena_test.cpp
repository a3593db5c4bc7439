// BlockArena: best fit, split, merge, stream keys, promotion, segment release.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

#include <random>
#include <vector>

#include "core/memory/block_arena.h"

namespace ferry::core {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::uintptr_t kBase = std::uintptr_t{1} << 40;
constexpr StreamKey S1 = 0x100, S2 = 0x200;

TEST(MemoryBlockArena, SplitsASegmentAndMergesItBack) {
  BlockArena a(SizePolicy::device());
  ArenaBlock* b1 = a.allocate_from_new_segment(kBase, 2 * MiB, 4096, S1);
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(b1->addr, kBase);
  EXPECT_EQ(a.free_block_count(), 1u);  // the remainder
  ArenaBlock* b2 = a.allocate(8192, S1);
  ASSERT_NE(b2, nullptr);
  EXPECT_EQ(b2->addr, kBase + 4096);  // carved from the remainder
  EXPECT_EQ(a.allocated_bytes(), 4096u + 8192u);
  EXPECT_EQ(a.check_invariants(), "");
  a.release(b1, S1, 0);
  a.release(b2, S1, 0);
  EXPECT_EQ(a.free_block_count(), 2u);  // b1 + b2 merged on S1; the remainder is free everywhere
  a.promote(S1, 1);
  EXPECT_EQ(a.free_block_count(), 1u);  // all three pieces merged
  EXPECT_EQ(a.allocated_bytes(), 0u);
  EXPECT_EQ(a.check_invariants(), "");
}

TEST(MemoryBlockArena, BestFitPicksTheSmallestBlockThatFits) {
  BlockArena a(SizePolicy::device());
  ArenaBlock* x = a.allocate_from_new_segment(kBase, 2 * MiB, 64 * 1024, kAnyStream);
  ArenaBlock* sep1 = a.allocate(512, kAnyStream);
  ArenaBlock* y = a.allocate(16 * 1024, kAnyStream);
  ArenaBlock* sep2 = a.allocate(512, kAnyStream);
  a.release(x, kAnyStream, 0);
  a.release(y, kAnyStream, 0);
  ArenaBlock* got = a.allocate(8 * 1024, kAnyStream);
  EXPECT_EQ(got->addr, y->addr);  // 16 KiB hole, not the 64 KiB one
  (void)sep1;
  (void)sep2;
  EXPECT_EQ(a.check_invariants(), "");
}

TEST(MemoryBlockArena, ABlockFreedOnAStreamServesOnlyThatStreamUntilPromoted) {
  BlockArena a(SizePolicy::device());
  ArenaBlock* b = a.allocate_from_new_segment(kBase, 12 * MiB, 12 * MiB, S1);
  a.release(b, S1, /*epoch=*/3);
  EXPECT_EQ(a.allocate(12 * MiB, S2), nullptr);
  a.promote(S1, 3);  // safe below 3: epoch 3 is not yet covered
  EXPECT_EQ(a.allocate(12 * MiB, S2), nullptr);
  a.promote(S1, 4);
  ArenaBlock* again = a.allocate(12 * MiB, S2);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->addr, kBase);
  EXPECT_EQ(a.check_invariants(), "");
}

TEST(MemoryBlockArena, SameStreamReusesAtOnce) {
  BlockArena a(SizePolicy::device());
  ArenaBlock* b = a.allocate_from_new_segment(kBase, 12 * MiB, 12 * MiB, S1);
  a.release(b, S1, 7);
  ArenaBlock* again = a.allocate(12 * MiB, S1);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->addr, kBase);
}

TEST(MemoryBlockArena, BlocksOfDifferentStreamsDoNotMergeUntilPromoted) {
  BlockArena a(SizePolicy::device());
  ArenaBlock* b1 = a.allocate_from_new_segment(kBase, 2 * MiB, MiB, S1);
  ArenaBlock* b2 = a.allocate(MiB, S2);
  ASSERT_NE(b2, nullptr);
  a.release(b1, S1, 0);
  a.release(b2, S2, 0);
  EXPECT_EQ(a.free_block_count(), 2u);
  EXPECT_TRUE(a.take_free_segments().empty());  // not wholly free on any stream yet
  a.promote(S1, 1);
  a.promote(S2, 1);
  EXPECT_EQ(a.free_block_count(), 1u);
  EXPECT_EQ(a.check_invariants(), "");
  auto spans = a.take_free_segments();
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].base, kBase);
  EXPECT_EQ(spans[0].size, 2 * MiB);
  EXPECT_EQ(a.reserved_bytes(), 0u);
}

TEST(MemoryBlockArena, BlocksFreedOnAStreamServeHostRequestsOnlyOncePromoted) {
  BlockArena a(SizePolicy::pinned());
  ArenaBlock* b = a.allocate_from_new_segment(kBase, 4 * MiB, 4 * MiB, kAnyStream);
  a.release(b, /*stream=*/0x10, /*epoch=*/3);
  EXPECT_EQ(a.find_allocated(kBase), nullptr);  // freeing it again is an error for the owner
  EXPECT_EQ(a.allocate(4 * MiB, kAnyStream), nullptr);  // the stream's work may still read it
  a.promote(0x10, 3);                                   // epoch 3 is not safe yet
  EXPECT_EQ(a.allocate(4 * MiB, kAnyStream), nullptr);
  a.promote(0x10, 4);
  EXPECT_NE(a.allocate(4 * MiB, kAnyStream), nullptr);
  EXPECT_EQ(a.check_invariants(), "");
}

TEST(MemoryBlockArena, SegmentContains) {
  BlockArena a(SizePolicy::pinned());
  a.add_free_segment(kBase, 2 * MiB);
  EXPECT_TRUE(a.segment_contains(kBase, 2 * MiB));
  EXPECT_TRUE(a.segment_contains(kBase + 100, 1000));
  EXPECT_FALSE(a.segment_contains(kBase + 100, 2 * MiB));
  EXPECT_FALSE(a.segment_contains(kBase - 1, 10));
  EXPECT_FALSE(a.segment_contains(kBase + 2 * MiB, 1));
}

TEST(MemoryBlockArena, RandomOperationsKeepEveryInvariant) {
  BlockArena a(SizePolicy::device());
  std::mt19937 rng(12345);
  std::vector<ArenaBlock*> live;
  std::uintptr_t next_base = kBase;
  const StreamKey streams[] = {S1, S2, kAnyStream};
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 2 == 0) {
      const std::size_t sizes[] = {512, 4096, 100000, MiB, 3 * MiB, 12 * MiB};
      const std::size_t rounded = a.policy().round_request(sizes[rng() % 6] + rng() % 777, "bytes");
      const StreamKey s = streams[rng() % 3];
      ArenaBlock* b = a.allocate(rounded, s);
      if (b == nullptr) {
        const std::size_t seg = a.policy().segment_size(rounded);
        b = a.allocate_from_new_segment(next_base, seg, rounded, s);
        next_base += seg + MiB;
      }
      live.push_back(b);
    } else {
      const std::size_t i = rng() % live.size();
      a.release(live[i], streams[rng() % 3], step);
      live[i] = live.back();
      live.pop_back();
    }
    if (step % 97 == 0) {
      a.promote(S1, static_cast<std::uint64_t>(step));
      a.promote(S2, static_cast<std::uint64_t>(step) / 2);
    }
    if (step % 1000 == 0) ASSERT_EQ(a.check_invariants(), "") << "step " << step;
  }
  for (ArenaBlock* b : live) a.release(b, kAnyStream, 0);
  a.promote(S1, UINT64_MAX);
  a.promote(S2, UINT64_MAX);
  ASSERT_EQ(a.check_invariants(), "");
  EXPECT_EQ(a.allocated_bytes(), 0u);
  EXPECT_EQ(a.free_block_count(), a.segment_count());  // each segment one free block again
  const std::size_t reserved = a.reserved_bytes();
  std::size_t released = 0;
  for (const SegmentSpan& s : a.take_free_segments()) released += s.size;
  EXPECT_EQ(released, reserved);
}

}  // namespace
}  // namespace ferry::core
