// Resident datasets (ferry/dataset.h) on the GPU, against the CPU backend: a
// CUDA and a CPU context build datasets from the same random sources (one
// pageable buffer, one pinned buffer uploaded in several parts, sample
// pointers, samples of different sizes with row pitches, a DistributedSampler
// shard) and gather the same epoch slices over several steps with CIFAR's
// training recipe, RandomResizedCrop + colour jitter + grayscale + erasing,
// and a uint8 identity: every output byte equal, the GPU outputs poisoned
// first (a caller's buffer between canaries; ferry-allocated blocks the test
// filled before giving them back, where the cache hands them out again), the
// drawn parameters equal. The rest of the suite: dataset_gpu_lifetime_test.cpp
// and dataset_gpu_refusals_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
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

// Every recipe, several steps, every kind of source; both output kinds.
TEST_F(DatasetGpu, GathersEqualTheCpuBackendByteForByte) {
  std::mt19937 rng(17);
  cases_.push_back(one_buffer("pageable buffer", 500, 32, 32, rng));
  cases_.push_back(pinned_buffer(gpu_, 500, 32, 32, rng));
  cases_.back()->options.part_bytes = 37 * 32 * 32 * 3;  // 14 parts, the last of 19 samples
  cases_.push_back(sample_pointers(200, 36, 44, rng));
  cases_.push_back(different_sizes(120, rng));
  cases_.back()->options.part_bytes = 20000;  // parts end at every change of size
  cases_.push_back(one_buffer("shard 2 of 3", 500, 32, 32, rng));
  cases_.back()->options.placement = FERRY_DATASET_SHARD;
  cases_.back()->options.world_size = 3, cases_.back()->options.rank = 2;  // 167 places, the last wraps to 0
  cases_.back()->options.part_bytes = 50 * 32 * 32 * 3;

  std::vector<DatasetPair> pairs;
  std::uint64_t held = 0;
  for (const auto& s : cases_) {
    pairs.push_back(create(*s));
    ASSERT_NE(pairs.back().gpu, nullptr) << s->name;
    ASSERT_NE(pairs.back().cpu, nullptr) << s->name;
    held += info_of(pairs.back().gpu).bytes;
  }
  ferry_stats before = stats();
  EXPECT_EQ(before.resident_bytes, held);
  EXPECT_EQ(before.resident_datasets, cases_.size());

  int gpu_gathers = 0;
  for (std::size_t k = 0; k < cases_.size(); ++k) {
    const SourceCase& s = *cases_[k];
    const DatasetPair& p = pairs[k];
    const ferry_dataset_info info = info_of(p.gpu);
    for (std::uint64_t step = 0; step < 4; ++step) {
      // This step's slice of the epoch (the same order on both backends), the last sample and a repeat.
      const std::uint64_t epoch = step / 2;
      std::vector<std::int64_t> order(static_cast<std::size_t>(info.epoch_size)), cpu_order(order.size());
      ASSERT_EQ(ferry_dataset_epoch(order.data(), info.epoch_size, p.gpu, 5, epoch, 1), FERRY_OK) << ferry_last_error();
      ASSERT_EQ(ferry_dataset_epoch(cpu_order.data(), info.epoch_size, p.cpu, 5, epoch, 1), FERRY_OK);
      EXPECT_EQ(order, cpu_order) << s.name;
      std::vector<std::int64_t> indices;
      for (std::int64_t i = 0; i < 64; ++i)
        indices.push_back(order[static_cast<std::size_t>((static_cast<std::int64_t>(step % 2) * 64 + i) % info.epoch_size)]);
      indices.push_back(info.count - 1);
      indices.push_back(indices.front());
      const auto n = static_cast<std::int64_t>(indices.size());

      for (int recipe = 0; recipe < 3; ++recipe) {
        ferry_augment augment{};  // the identity leaves it unread
        ferry_transform t = recipe == 0 ? cifar_recipe(augment, step)
                            : recipe == 1 ? jitter_recipe(augment, step)
                                          : rgb_u8_transform();  // uint8 NHWC, as stored
        const std::string what = s.name + ", step " + std::to_string(step) + ", recipe " +
                                 (recipe == 0 ? "CIFAR" : recipe == 1 ? "RandomResizedCrop + jitter" : "uint8 identity");
        if (recipe == 2 && info.variable_sizes) {
          // Samples of different sizes have no one output size without a resize: refused alike, nothing run.
          ferry_batch_t b = nullptr;
          EXPECT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), n, &t, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
          EXPECT_NE(std::string(ferry_last_error()).find("resize"), std::string::npos) << ferry_last_error();
          EXPECT_EQ(ferry_dataset_gather(&b, p.cpu, indices.data(), n, &t, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
          EXPECT_EQ(b, nullptr);
          continue;
        }
        std::vector<ferry_augment_params> cpu_drawn(indices.size()), gpu_drawn(indices.size());
        augment.drawn = cpu_drawn.data();
        const std::vector<std::uint8_t> want = cpu_gather(p.cpu, indices, t);
        augment.drawn = gpu_drawn.data();
        std::string problem;
        const bool caller = (step + static_cast<std::uint64_t>(recipe)) % 2 == 0;
        const std::vector<std::uint8_t> got = caller ? gpu_gather_into_caller(p.gpu, indices, t, problem)
                                                     : gpu_gather_into_ferry(p.gpu, indices, t, problem);
        ++gpu_gathers;
        ASSERT_EQ(problem, "") << what;
        EXPECT_EQ(first_difference(got, want), "") << what << (caller ? ", caller's output" : ", ferry's output");
        if (recipe < 2) {
          EXPECT_EQ(std::memcmp(cpu_drawn.data(), gpu_drawn.data(), cpu_drawn.size() * sizeof(ferry_augment_params)), 0)
              << what << ": the drawn parameters differ";
        } else {
          // uint8 NHWC identity: the source samples themselves, as each dataset index maps to the source.
          for (std::int64_t i = 0; i < n; ++i) {
            std::int64_t g = -1;
            ASSERT_EQ(ferry_dataset_source_index(&g, p.gpu, indices[static_cast<std::size_t>(i)]), FERRY_OK);
            ASSERT_EQ(std::memcmp(got.data() + i * s.sample_bytes, s.sample(g), static_cast<std::size_t>(s.sample_bytes)), 0)
                << what << ": batch sample " << i << " (source sample " << g << ")";
          }
        }
      }
    }
  }
  // A gather moves nothing over the bus: no input bytes counted, every gather completed.
  const ferry_stats after = stats();
  EXPECT_EQ(after.input_bytes, before.input_bytes);
  EXPECT_EQ(after.batches_completed - before.batches_completed, static_cast<std::uint64_t>(gpu_gathers));
  EXPECT_EQ(after.batches_failed, before.batches_failed);
  std::printf("[          ] %d of %d ferry-allocated outputs landed on a block the test had filled with 0x%02X\n",
              reused_poisoned_, ferry_outputs_, kGpuPoison);
  for (DatasetPair& p : pairs) {
    EXPECT_EQ(ferry_dataset_destroy(p.gpu), FERRY_OK);
    EXPECT_EQ(ferry_dataset_destroy(p.cpu), FERRY_OK);
  }
  EXPECT_EQ(stats().resident_bytes, 0u);
  EXPECT_EQ(stats().resident_datasets, 0u);
}

#else
TEST(DatasetGpu, GathersEqualTheCpuBackendByteForByte) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
