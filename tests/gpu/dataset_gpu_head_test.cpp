// A resident dataset of 16 MB or more on the GPU: its first samples go ahead
// into a block of the device cache while the storage is allocated, then move
// into place on the device (ResidentDataset::head_samples). Every held sample
// is gathered back and compared: as stored (uint8 identity) against the
// source, and with CIFAR's recipe against the CPU backend (samples of
// different sizes, which have no one stored size to compare).
// tests/unit/dataset/upload_head_test.cpp splits heads and parts every way on the CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include "tests/gpu/dataset_gpu_fixture.h"
#include "tests/gpu/gpu_compare.h"
#include "tests/support/frame_cases.h"  // rgb_u8_transform: the uint8 NHWC identity

using namespace ferry::test;

TEST_F(DatasetGpu, ASetOf16MBOrMoreLandsWholeWithItsHeadAhead) {
  std::mt19937 rng(23);
  cases_.push_back(pinned_buffer(gpu_, 7000, 32, 32, rng));  // 21.5 MB: a head of a quarter
  cases_.push_back(one_buffer("pageable shard 2 of 2", 13001, 32, 32, rng));  // 6501 held, 20.0 MB
  cases_.back()->options.placement = FERRY_DATASET_SHARD;
  cases_.back()->options.world_size = 2, cases_.back()->options.rank = 1;
  cases_.back()->options.part_bytes = 1000 * 32 * 32 * 3;  // parts end inside the head and after it
  cases_.push_back(different_sizes(3200, rng));  // about 21 MB, sizes of 24-70 px
  const ferry_stats before = stats();
  for (const auto& s : cases_) {
    const DatasetPair p = create(*s);
    ASSERT_NE(p.gpu, nullptr) << s->name;
    ASSERT_NE(p.cpu, nullptr) << s->name;
    const ferry_dataset_info info = info_of(p.gpu);
    EXPECT_GE(info.bytes, std::uint64_t{16} << 20) << s->name;
    if (s == cases_.front()) {
      // The first head's block, back in the cache (a quarter of the set: 5.4 MB); nothing else of it is used yet.
      EXPECT_GE(stats().device_cached_bytes - before.device_cached_bytes, info.bytes / 8) << "no head went ahead";
    }
    std::vector<std::int64_t> all(static_cast<std::size_t>(info.count));
    for (std::int64_t k = 0; k < info.count; ++k) all[static_cast<std::size_t>(k)] = k;
    std::string problem;
    if (!info.variable_sizes) {
      const std::vector<std::uint8_t> got = gpu_gather_into_caller(p.gpu, all, rgb_u8_transform(), problem);
      ASSERT_EQ(problem, "") << s->name;
      for (std::int64_t k = 0; k < info.count; ++k) {
        std::int64_t g = -1;
        ASSERT_EQ(ferry_dataset_source_index(&g, p.gpu, k), FERRY_OK);
        const auto bytes = static_cast<std::size_t>(s->sample_bytes);
        ASSERT_EQ(std::memcmp(got.data() + k * s->sample_bytes, s->sample(g), bytes), 0)
            << s->name << ": held sample " << k << " (source sample " << g << ")";
      }
    } else {
      ferry_augment augment{};
      const ferry_transform t = cifar_recipe(augment, 0);
      const std::vector<std::uint8_t> want = cpu_gather(p.cpu, all, t);
      const std::vector<std::uint8_t> got = gpu_gather_into_caller(p.gpu, all, t, problem);
      ASSERT_EQ(problem, "") << s->name;
      EXPECT_EQ(first_difference(got, want), "") << s->name;
    }
    EXPECT_EQ(ferry_dataset_destroy(p.gpu), FERRY_OK);
    EXPECT_EQ(ferry_dataset_destroy(p.cpu), FERRY_OK);
  }
  const ferry_stats after = stats();
  EXPECT_EQ(after.device_in_use_bytes, before.device_in_use_bytes) << "a head's block was kept";
  EXPECT_EQ(after.resident_bytes, 0u);
}

#else
TEST(DatasetGpu, ASetOf16MBOrMoreLandsWholeWithItsHeadAhead) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
