// Resident datasets through the C ABI on the CPU backend: the epoch orders,
// gathers from several threads, a dataset destroyed under a gather, indices
// in the context's memory, and every bad input with its own status.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/dataset_fixture.h"

namespace {

using namespace ferry::test;

TEST_F(DatasetTest, EpochsArePermutationsSharedOutAmongRanks) {
  const Images images(11, 2, 2, 1, 5);
  ferry_dataset_t ds = create(images.source());
  std::vector<std::int64_t> a(11), b(11), c(11), in_order(11);
  ASSERT_EQ(ferry_dataset_epoch(a.data(), 11, ds, 42, 0, 1), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_dataset_epoch(b.data(), 11, ds, 42, 0, 1), FERRY_OK);
  ASSERT_EQ(ferry_dataset_epoch(c.data(), 11, ds, 42, 1, 1), FERRY_OK);
  ASSERT_EQ(ferry_dataset_epoch(in_order.data(), 11, ds, 42, 1, 0), FERRY_OK);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<std::int64_t>(a.begin(), a.end()).size(), 11u);
  for (std::int64_t i = 0; i < 11; ++i) EXPECT_EQ(in_order[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(ferry_dataset_epoch(a.data(), 10, ds, 42, 0, 1), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ferry_last_error()).find("epoch_size"), std::string::npos);
  EXPECT_EQ(ferry_dataset_epoch(a.data(), 11, ds, 42, 0, 2), FERRY_ERR_INVALID_ARGUMENT);

  // Three ranks of replicas: ceil(11 / 3) = 4 places each, together every
  // sample of the same permutation, one repeated as padding.
  std::multiset<std::int64_t> seen;
  for (int rank = 0; rank < 3; ++rank) {
    ferry_dataset_options o;
    ferry_dataset_options_init(&o, sizeof o);
    o.world_size = 3;
    o.rank = rank;
    ferry_dataset_t r = create(images.source(), &o);
    ASSERT_EQ(info_of(r).epoch_size, 4);
    std::vector<std::int64_t> share(4);
    ASSERT_EQ(ferry_dataset_epoch(share.data(), 4, r, 42, 0, 1), FERRY_OK);
    for (std::int64_t k = 0; k < 4; ++k) {
      const std::int64_t place = rank + 3 * k;
      EXPECT_EQ(share[static_cast<std::size_t>(k)], a[static_cast<std::size_t>(place % 11)]) << rank << " " << k;
      seen.insert(share[static_cast<std::size_t>(k)]);
    }
    ferry_dataset_destroy(r);
  }
  EXPECT_EQ(std::set<std::int64_t>(seen.begin(), seen.end()).size(), 11u);
  EXPECT_EQ(seen.size(), 12u);
  ferry_dataset_destroy(ds);
}

TEST_F(DatasetTest, GathersFromSeveralThreadsAtOnce) {
  const Images images(64, 16, 16, 3, 6);
  ferry_dataset_t ds = create(images.source());
  ferry_augment augment;
  ferry_transform t = normalized_f16_crop_flip(&augment, 3);
  t.resize_w = t.resize_h = 16;
  std::vector<std::vector<std::int64_t>> lists;
  std::vector<std::vector<std::uint8_t>> expected;
  for (int k = 0; k < 4; ++k) {
    std::vector<std::int64_t> indices;
    for (int i = 0; i < 16; ++i) indices.push_back((k * 16 + i * 7) % 64);
    expected.push_back(reference(images.source(), images.sample_bytes(), indices, &t));
    lists.push_back(indices);
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int round = 0; round < 20; ++round) {
        ferry_batch_t batch = nullptr;
        if (ferry_dataset_gather(&batch, ds, lists[k].data(), 16, &t, nullptr, nullptr) != FERRY_OK ||
            ferry_batch_wait(batch) != FERRY_OK) {
          ++mismatches[k];
          ferry_batch_release(batch);
          continue;
        }
        ferry_tensor_info info;
        ferry_tensor_info_init(&info, sizeof info);
        ferry_batch_describe_output(&info, batch);
        if (info.bytes != expected[k].size() || std::memcmp(info.data, expected[k].data(), info.bytes) != 0)
          ++mismatches[k];
        ferry_batch_release(batch);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
  ferry_dataset_destroy(ds);
}

TEST_F(DatasetTest, AGatherKeepsTheMemoryOfADatasetDestroyedMeanwhile) {
  const Images images(8, 8, 8, 3, 7);
  ferry_dataset_t ds = create(images.source());
  const std::vector<std::int64_t> indices{7, 6, 5};
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  const std::vector<std::uint8_t> expected = reference(images.source(), images.sample_bytes(), indices, &t);
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_dataset_gather(&batch, ds, indices.data(), 3, &t, nullptr, nullptr), FERRY_OK);
  ASSERT_EQ(ferry_dataset_destroy(ds), FERRY_OK);
  EXPECT_EQ(ferry_dataset_destroy(ds), FERRY_ERR_INVALID_HANDLE);
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_batch_describe_output(&info, batch), FERRY_OK);
  EXPECT_EQ(std::memcmp(info.data, expected.data(), expected.size()), 0);
  ferry_batch_release(batch);
  ferry_stats stats;
  ferry_stats_init(&stats, sizeof stats);
  ASSERT_EQ(ferry_stats_get(&stats, ctx), FERRY_OK);
  EXPECT_EQ(stats.resident_bytes, 0u);  // the batch's release let it go
}

TEST_F(DatasetTest, IndicesInTheContextsMemoryGatherAsHostIndicesAndClamp) {
  const Images images(12, 8, 8, 3, 9);
  ferry_dataset_t ds = create(images.source());
  ferry_augment augment;
  ferry_transform t = normalized_f16_crop_flip(&augment, 4);
  t.resize_w = t.resize_h = 8;
  // On the CPU backend the context's memory is host memory.
  const std::vector<std::int64_t> indices{11, 0, -5, 40, 3};
  const std::vector<std::int64_t> clamped{11, 0, 0, 11, 3};
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_dataset_gather_device(&batch, ds, indices.data(), 5, &t, nullptr, nullptr), FERRY_OK)
      << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_batch_describe_output(&info, batch), FERRY_OK);
  const std::vector<std::uint8_t> expected = gather(ds, clamped, &t);
  ASSERT_EQ(info.bytes, expected.size());
  EXPECT_EQ(std::memcmp(info.data, expected.data(), expected.size()), 0);
  ferry_batch_release(batch);
  EXPECT_EQ(ferry_dataset_gather_device(&batch, ds, indices.data(), 0, &t, nullptr, nullptr),
            FERRY_ERR_INVALID_ARGUMENT);
  ferry_dataset_destroy(ds);

  std::vector<std::uint8_t> a(4 * 5 * 3), b(6 * 2 * 3);
  ferry_sample_desc descs[2] = {};
  descs[0].data = a.data(), descs[0].bytes = a.size(), descs[0].h = 4, descs[0].w = 5;
  descs[1].data = b.data(), descs[1].bytes = b.size(), descs[1].h = 6, descs[1].w = 2;
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.sample_descs = descs;
  s.n = 2, s.c = 3;
  ferry_dataset_t variable = create(s);
  batch = nullptr;
  EXPECT_EQ(ferry_dataset_gather_device(&batch, variable, indices.data(), 1, &t, nullptr, nullptr),
            FERRY_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(ferry_last_error()).find("different sizes"), std::string::npos) << ferry_last_error();
  EXPECT_EQ(batch, nullptr);
  ferry_dataset_destroy(variable);
}

void expect_error(ferry_status got, ferry_status want, const std::vector<std::string>& message_has) {
  EXPECT_EQ(got, want) << ferry_last_error();
  const std::string message = ferry_last_error();
  for (const std::string& part : message_has) EXPECT_NE(message.find(part), std::string::npos) << message;
}

TEST_F(DatasetTest, BadInputHasItsOwnStatusAndLeavesNothingHeld) {
  const Images images(6, 4, 4, 3, 8);
  ferry_dataset_t ds = create(images.source());
  ferry_batch_t batch = nullptr;
  const std::int64_t out_of_range[] = {0, 6};
  expect_error(ferry_dataset_gather(&batch, ds, out_of_range, 2, nullptr, nullptr, nullptr), FERRY_ERR_OUT_OF_RANGE,
               {"indices[1] is 6", "6 samples"});
  const std::int64_t negative[] = {-1};
  expect_error(ferry_dataset_gather(&batch, ds, negative, 1, nullptr, nullptr, nullptr), FERRY_ERR_OUT_OF_RANGE,
               {"indices[0] is -1"});
  expect_error(ferry_dataset_gather(&batch, ds, out_of_range, 0, nullptr, nullptr, nullptr),
               FERRY_ERR_INVALID_ARGUMENT, {"n is 0"});
  expect_error(ferry_dataset_gather(&batch, ds, nullptr, 1, nullptr, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT,
               {"indices"});
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.chunk_bytes = 1024;
  expect_error(ferry_dataset_gather(&batch, ds, out_of_range, 1, nullptr, nullptr, &so), FERRY_ERR_INVALID_ARGUMENT,
               {"options->chunk_bytes"});
  EXPECT_EQ(batch, nullptr);
  std::int64_t index = 0;
  expect_error(ferry_dataset_source_index(&index, ds, 6), FERRY_ERR_OUT_OF_RANGE, {"index is 6"});

  ferry_dataset_options o;
  ferry_dataset_options_init(&o, sizeof o);
  o.world_size = 2;
  o.rank = 2;
  ferry_dataset_t bad = nullptr;
  const ferry_source s = images.source();
  expect_error(ferry_dataset_create(&bad, ctx, &s, &o), FERRY_ERR_INVALID_ARGUMENT, {"options->rank is 2"});
  o.rank = 0, o.world_size = 0;
  expect_error(ferry_dataset_create(&bad, ctx, &s, &o), FERRY_ERR_INVALID_ARGUMENT, {"options->world_size is 0"});
  ferry_dataset_options_init(&o, sizeof o);
  o.placement = static_cast<ferry_dataset_placement>(9);
  expect_error(ferry_dataset_create(&bad, ctx, &s, &o), FERRY_ERR_UNSUPPORTED, {"options->placement is 9"});
  ferry_source frames = s;
  frames.format = FERRY_FORMAT_NV12;
  frames.c = 0;
  expect_error(ferry_dataset_create(&bad, ctx, &frames, nullptr), FERRY_ERR_UNSUPPORTED, {"source.format"});
  ferry_source empty = s;
  empty.n = 0;
  expect_error(ferry_dataset_create(&bad, ctx, &empty, nullptr), FERRY_ERR_INVALID_ARGUMENT, {"source.n"});
  // More memory than there is: 2^20 samples of 2^15 x 2^15 x 4 (2^52 bytes), never read.
  ferry_source huge = s;
  huge.n = std::int64_t{1} << 20, huge.h = std::int64_t{1} << 15, huge.w = std::int64_t{1} << 15, huge.c = 4;
  huge.bytes = std::size_t{1} << 52;
  expect_error(ferry_dataset_create(&bad, ctx, &huge, nullptr), FERRY_ERR_OUT_OF_MEMORY,
               {"4503599627370496 bytes", "free"});
  EXPECT_EQ(bad, nullptr);
  ferry_stats stats;
  ferry_stats_init(&stats, sizeof stats);
  ASSERT_EQ(ferry_stats_get(&stats, ctx), FERRY_OK);
  EXPECT_EQ(stats.resident_datasets, 1u);
  EXPECT_EQ(stats.resident_bytes, images.bytes.size());

  EXPECT_EQ(ferry_dataset_destroy(nullptr), FERRY_OK);
  ferry_context_destroy(ctx);
  ctx = nullptr;
  ferry_dataset_info info;
  ferry_dataset_info_init(&info, sizeof info);
  expect_error(ferry_dataset_get_info(&info, ds), FERRY_ERR_INVALID_HANDLE, {"dataset"});
  expect_error(ferry_dataset_gather(&batch, ds, out_of_range, 1, nullptr, nullptr, nullptr),
               FERRY_ERR_INVALID_HANDLE, {"dataset"});
  EXPECT_EQ(ferry_dataset_destroy(ds), FERRY_ERR_INVALID_HANDLE);
}

}  // namespace
