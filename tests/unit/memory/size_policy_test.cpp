// Size classes of the caching allocators (core/memory/size_policy.h).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

#include "core/memory/size_policy.h"

namespace ferry::core {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;

Status status_of_round(const SizePolicy& p, std::size_t bytes) {
  try {
    (void)p.round_request(bytes, "bytes");
    return Status::Ok;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
    return e.status();
  }
}

TEST(MemorySizePolicy, RoundsToSmallQuantumThenLargeQuantum) {
  const SizePolicy p = SizePolicy::device();
  EXPECT_EQ(p.round_request(1, "bytes"), 512u);
  EXPECT_EQ(p.round_request(512, "bytes"), 512u);
  EXPECT_EQ(p.round_request(513, "bytes"), 1024u);
  EXPECT_EQ(p.round_request(MiB, "bytes"), MiB);
  EXPECT_EQ(p.round_request(10 * MiB, "bytes"), 10 * MiB);
  EXPECT_EQ(p.round_request(10 * MiB + 1, "bytes"), 12 * MiB);
  EXPECT_EQ(p.round_request(GiB + 1, "bytes"), GiB + 2 * MiB);
  // 20 GB of requests stay ~20 GB: waste under 2 MiB per block, never a power of two.
  const std::size_t twenty_gb = 20'000'000'000ull;
  EXPECT_LT(p.round_request(twenty_gb, "bytes") - twenty_gb, 2 * MiB);
}

TEST(MemorySizePolicy, RejectsZeroAndOverflow) {
  const SizePolicy p = SizePolicy::device();
  EXPECT_EQ(status_of_round(p, 0), Status::InvalidArgument);
  EXPECT_EQ(status_of_round(p, SIZE_MAX), Status::Overflow);
  EXPECT_EQ(status_of_round(p, SIZE_MAX - 100), Status::Overflow);
}

TEST(MemorySizePolicy, SegmentSizes) {
  const SizePolicy p = SizePolicy::device();
  EXPECT_EQ(p.segment_size(512), 2 * MiB);
  EXPECT_EQ(p.segment_size(MiB), 2 * MiB);
  EXPECT_EQ(p.segment_size(MiB + 512), 20 * MiB);
  EXPECT_EQ(p.segment_size(10 * MiB), 20 * MiB);
  EXPECT_EQ(p.segment_size(12 * MiB), 12 * MiB);
}

TEST(MemorySizePolicy, HugeBlocksAreNotSplitAndWasteAtMostAnEighth) {
  const SizePolicy p = SizePolicy::device();
  EXPECT_FALSE(p.should_split(4 * GiB, GiB));
  EXPECT_FALSE(p.can_serve(4 * GiB, GiB));          // 3 GiB of waste: allocate instead
  EXPECT_TRUE(p.can_serve(GiB + 64 * MiB, GiB));    // within 1/8
  EXPECT_FALSE(p.can_serve(2 * GiB, 100 * MiB));    // a huge block never serves a small request
  EXPECT_TRUE(p.can_serve(500 * MiB, 100 * MiB));   // a large one may, split
  EXPECT_TRUE(p.should_split(500 * MiB, 100 * MiB));
  EXPECT_FALSE(p.should_split(100 * MiB + MiB, 100 * MiB));  // remainder too small to be worth a block
  EXPECT_TRUE(p.should_split(2 * MiB, 512));
  EXPECT_FALSE(p.should_split(1024, 1024));
}

TEST(MemorySizePolicy, PinnedPolicySplitsEverything) {
  const SizePolicy p = SizePolicy::pinned();
  EXPECT_FALSE(p.is_small(512));  // one pool: the preallocated segment serves all sizes
  EXPECT_TRUE(p.should_split(8 * GiB, 512));
  EXPECT_TRUE(p.can_serve(8 * GiB, 512));
}

}  // namespace
}  // namespace ferry::core
