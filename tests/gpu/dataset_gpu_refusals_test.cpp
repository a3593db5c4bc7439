// What a resident dataset on the GPU refuses before anything runs: more
// memory than the device has (FERRY_ERR_OUT_OF_MEMORY, nothing kept), and
// indices out of range (FERRY_ERR_OUT_OF_RANGE on both backends, the output
// untouched).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/gpu/dataset_gpu_fixture.h"
#include "tests/gpu/gpu_compare.h"

using namespace ferry::test;

// More memory than the device has: FERRY_ERR_OUT_OF_MEMORY naming the bytes
// and the device's memory; no handle, no statistic moved, no memory kept.
// The sources claim bytes they do not have: nothing reads them before the
// allocation fails.
TEST_F(DatasetGpu, MoreThanTheDeviceHasIsOutOfMemoryAndLeavesNothing) {
  std::mt19937 rng(37);
  cases_.push_back(one_buffer("tiny", 4, 4, 4, rng));
  ferry_dataset_t warm = nullptr;  // the context's upload buffers exist before anything is measured
  ASSERT_EQ(ferry_dataset_create(&warm, gpu_, &cases_[0]->source, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_dataset_destroy(warm), FERRY_OK);
  std::size_t free_before = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  const ferry_stats before = stats();

  // 2^20 samples of 2^15 x 2^15 x 4 (2^52 bytes); and just past the device's whole memory, 4 GiB samples.
  const std::int64_t side = std::int64_t{1} << 15, sample = side * side * 4;
  const std::int64_t counts[] = {std::int64_t{1} << 20, static_cast<std::int64_t>(total) / sample + 1};
  for (std::int64_t n : counts) {
    ferry_source huge = cases_[0]->source;
    huge.n = n, huge.h = side, huge.w = side, huge.c = 4;
    huge.bytes = static_cast<std::size_t>(n * sample);
    ferry_dataset_t ds = nullptr;
    EXPECT_EQ(ferry_dataset_create(&ds, gpu_, &huge, nullptr), FERRY_ERR_OUT_OF_MEMORY) << n << " samples";
    const std::string message = ferry_last_error();
    EXPECT_NE(message.find(std::to_string(n * sample) + " bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("device memory"), std::string::npos) << message;
    EXPECT_NE(message.find("of " + std::to_string(total) + " are free"), std::string::npos) << message;
    EXPECT_EQ(ds, nullptr);
  }
  const ferry_stats after = stats();
  EXPECT_EQ(after.resident_bytes, before.resident_bytes);
  EXPECT_EQ(after.resident_datasets, before.resident_datasets);
  EXPECT_EQ(after.device_in_use_bytes, before.device_in_use_bytes);
  EXPECT_EQ(after.device_cached_bytes, before.device_cached_bytes);
  EXPECT_EQ(after.pinned_in_use_bytes, before.pinned_in_use_bytes);
  EXPECT_EQ(after.batches_submitted, before.batches_submitted);
  EXPECT_EQ(after.batches_unreleased, before.batches_unreleased);
  EXPECT_GE(device_free_bytes(), free_before) << "device memory was kept";
  // The context is unharmed.
  ASSERT_EQ(ferry_dataset_create(&warm, gpu_, &cases_[0]->source, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_dataset_destroy(warm), FERRY_OK);
}

// An index past the end (or negative) is FERRY_ERR_OUT_OF_RANGE on both
// backends before any work: no batch, nothing submitted, the output untouched.
TEST_F(DatasetGpu, IndicesOutOfRangeAreRefusedBeforeAnythingRuns) {
  std::mt19937 rng(41);
  cases_.push_back(one_buffer("pageable buffer", 50, 32, 32, rng));
  const DatasetPair p = create(*cases_.back());
  ASSERT_NE(p.gpu, nullptr);
  ferry_augment augment;
  const ferry_transform t = cifar_recipe(augment, 0);
  GuardedOutput out(gather_bytes(info_of(p.gpu), 3, t));
  ASSERT_EQ(out.status, cudaSuccess);
  const ferry_output o = out.output();
  const ferry_stats before = stats();
  const std::vector<std::vector<std::int64_t>> bad{{0, 1, 50}, {-1, 0, 1}, {49, std::int64_t{1} << 40, 0}};
  for (const auto& indices : bad) {
    for (ferry_dataset_t ds : {p.gpu, p.cpu}) {
      ferry_batch_t b = nullptr;
      EXPECT_EQ(ferry_dataset_gather(&b, ds, indices.data(), 3, &t, ds == p.gpu ? &o : nullptr, nullptr),
                FERRY_ERR_OUT_OF_RANGE);
      const std::string message = ferry_last_error();
      const std::size_t at = indices[0] < 0 ? 0 : indices[1] > 49 ? 1 : 2;
      EXPECT_NE(message.find("indices[" + std::to_string(at) + "] is " + std::to_string(indices[at])),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("50 samples"), std::string::npos) << message;
      EXPECT_EQ(b, nullptr);
    }
  }
  const ferry_stats after = stats();
  EXPECT_EQ(after.batches_submitted, before.batches_submitted);
  EXPECT_EQ(after.batches_unreleased, before.batches_unreleased);
  EXPECT_EQ(after.device_in_use_bytes, before.device_in_use_bytes);
  std::string problem;
  const std::vector<std::uint8_t> untouched = out.read(stream_, problem);
  ASSERT_EQ(problem, "");
  EXPECT_EQ(first_difference(untouched, std::vector<std::uint8_t>(out.bytes, kGpuPoison)), "");
  std::int64_t g = 0;
  EXPECT_EQ(ferry_dataset_source_index(&g, p.gpu, 50), FERRY_ERR_OUT_OF_RANGE);
  ferry_dataset_destroy(p.gpu);
  ferry_dataset_destroy(p.cpu);
}

#endif
