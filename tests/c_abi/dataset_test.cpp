// Resident datasets through the C ABI on the CPU backend: the upload (one
// buffer, sample pointers, strided, NCHW, in many parts, shards, samples of
// different sizes) and gathers checked element by element against
// ferry_transform_apply on the same samples from the caller's memory
// (augmentation included), and the statistics.
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

TEST_F(DatasetTest, HoldsEverySampleAndGathersThemAsFromHostMemory) {
  const Images images(40, 32, 32, 3, 1);
  ferry_dataset_t ds = create(images.source());
  const ferry_dataset_info info = info_of(ds);
  EXPECT_EQ(info.count, 40);
  EXPECT_EQ(info.source_count, 40);
  EXPECT_EQ(info.h, 32);
  EXPECT_EQ(info.c, 3);
  EXPECT_EQ(info.bytes, images.bytes.size());
  EXPECT_EQ(info.device_kind, FERRY_DEVICE_CPU);
  EXPECT_EQ(info.epoch_size, 40);
  EXPECT_EQ(info.variable_sizes, 0);

  ferry_stats stats;
  ferry_stats_init(&stats, sizeof stats);
  ASSERT_EQ(ferry_stats_get(&stats, ctx), FERRY_OK);
  EXPECT_EQ(stats.resident_bytes, images.bytes.size());
  EXPECT_EQ(stats.resident_datasets, 1u);

  const std::vector<std::int64_t> indices{5, 0, 39, 5, 17, 2};
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.mean[0] = 0.5f, t.std[0] = 0.25f;
  EXPECT_EQ(gather(ds, indices, &t), reference(images.source(), images.sample_bytes(), indices, &t));
  // uint8 NHWC, untouched: the samples themselves.
  ferry_transform copy;
  ferry_transform_init(&copy, sizeof copy);
  copy.out_dtype = FERRY_DTYPE_UINT8;
  copy.out_layout = FERRY_LAYOUT_NHWC;
  const std::vector<std::uint8_t> bytes = gather(ds, {39}, &copy);
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), images.bytes.end() - images.sample_bytes()));

  EXPECT_EQ(ferry_dataset_destroy(ds), FERRY_OK);
  ASSERT_EQ(ferry_stats_get(&stats, ctx), FERRY_OK);
  EXPECT_EQ(stats.resident_bytes, 0u);
  EXPECT_EQ(stats.resident_datasets, 0u);
}

TEST_F(DatasetTest, AugmentedGathersDrawAsTheSameBatchFromHostMemory) {
  const Images images(24, 32, 32, 3, 2);
  ferry_dataset_t ds = create(images.source());
  const std::vector<std::int64_t> indices{3, 9, 1, 23, 0, 12, 7, 7};
  for (std::uint64_t step : {0u, 1u, 5u}) {
    ferry_augment augment;
    const ferry_transform t = normalized_f16_crop_flip(&augment, step);
    EXPECT_EQ(gather(ds, indices, &t), reference(images.source(), images.sample_bytes(), indices, &t))
        << "step " << step;
  }
  ferry_dataset_destroy(ds);
}

TEST_F(DatasetTest, UploadsInPartsFromPointersStridesAndPlanarLayouts) {
  // Each sample 4 x 5 x 3 planar (NCHW), rows padded to 7 bytes, reached by pointer.
  const std::int64_t n = 9, h = 4, w = 5, c = 3, row = 7;
  const std::int64_t extent = c * h * row;
  std::vector<std::uint8_t> strided = random_bytes(static_cast<std::size_t>(n * extent), 3);
  std::vector<const void*> pointers;
  for (std::int64_t i = 0; i < n; ++i) pointers.push_back(strided.data() + i * extent);
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.samples = pointers.data();
  s.sample_bytes = static_cast<std::size_t>(extent);
  s.n = n, s.h = h, s.w = w, s.c = c;
  s.layout = FERRY_LAYOUT_NCHW;
  s.stride_c = h * row, s.stride_h = row, s.stride_w = 1;
  ferry_dataset_options o;
  ferry_dataset_options_init(&o, sizeof o);
  o.part_bytes = 2 * h * w * c;  // two samples a part: five parts
  ferry_dataset_t ds = create(s, &o);
  EXPECT_EQ(info_of(ds).layout, FERRY_LAYOUT_NCHW);
  ferry_transform copy;
  ferry_transform_init(&copy, sizeof copy);
  copy.out_dtype = FERRY_DTYPE_UINT8;
  copy.out_layout = FERRY_LAYOUT_NCHW;
  std::vector<std::int64_t> all(n);
  for (std::int64_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  const std::vector<std::uint8_t> packed = gather(ds, all, &copy);
  ASSERT_EQ(packed.size(), static_cast<std::size_t>(n * c * h * w));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < c; ++k)
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
          ASSERT_EQ(packed[static_cast<std::size_t>(((i * c + k) * h + y) * w + x)],
                    strided[static_cast<std::size_t>(i * extent + k * h * row + y * row + x)])
              << i << " " << k << " " << y << " " << x;
  ferry_dataset_destroy(ds);
}

TEST_F(DatasetTest, AShardHoldsItsRanksSamplesByDistributedSamplersRule) {
  const Images images(10, 3, 4, 1, 4);
  ferry_dataset_options o;
  ferry_dataset_options_init(&o, sizeof o);
  o.placement = FERRY_DATASET_SHARD;
  o.world_size = 3;
  o.rank = 1;
  o.part_bytes = 1;  // one sample a part: the strided stretch and the wrap alike
  ferry_dataset_t ds = create(images.source(), &o);
  const ferry_dataset_info info = info_of(ds);
  ASSERT_EQ(info.count, 4);  // ceil(10 / 3)
  EXPECT_EQ(info.epoch_size, 4);
  const std::int64_t expected[4] = {1, 4, 7, 0};  // 10 wraps to 0
  ferry_transform copy;
  ferry_transform_init(&copy, sizeof copy);
  copy.out_dtype = FERRY_DTYPE_UINT8;
  copy.out_layout = FERRY_LAYOUT_NHWC;
  for (std::int64_t i = 0; i < 4; ++i) {
    std::int64_t source_index = -1;
    ASSERT_EQ(ferry_dataset_source_index(&source_index, ds, i), FERRY_OK);
    EXPECT_EQ(source_index, expected[i]);
    const std::vector<std::uint8_t> bytes = gather(ds, {i}, &copy);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), images.bytes.begin() + expected[i] * images.sample_bytes()))
        << "sample " << i;
  }
  // Default parts too: the stretch 1, 4, 7 as one strided range, then the wrap.
  o.part_bytes = 0;
  ferry_dataset_t whole = create(images.source(), &o);
  EXPECT_EQ(gather(whole, {0, 1, 2, 3}, &copy), gather(ds, {0, 1, 2, 3}, &copy));
  ferry_dataset_destroy(whole);
  ferry_dataset_destroy(ds);
}

TEST_F(DatasetTest, SamplesOfDifferentSizesAreResizedOnTheWayOut) {
  const std::int64_t sizes[][2] = {{20, 30}, {20, 30}, {33, 17}, {8, 8}, {20, 30}};
  std::vector<std::vector<std::uint8_t>> samples;
  std::vector<ferry_sample_desc> descs;
  for (const auto& hw : sizes) {
    samples.push_back(random_bytes(static_cast<std::size_t>(hw[0] * hw[1] * 3), static_cast<unsigned>(hw[0] + hw[1])));
    ferry_sample_desc d{};
    d.data = samples.back().data();
    d.bytes = samples.back().size();
    d.h = hw[0], d.w = hw[1];
    descs.push_back(d);
  }
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.sample_descs = descs.data();
  s.n = static_cast<std::int64_t>(descs.size());
  s.c = 3;
  ferry_dataset_t ds = create(s);
  const ferry_dataset_info info = info_of(ds);
  EXPECT_EQ(info.variable_sizes, 1);
  EXPECT_EQ(info.h, 33);
  EXPECT_EQ(info.w, 30);
  EXPECT_EQ(info.bytes, (3u * 20 * 30 + 33 * 17 + 64) * 3);

  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.resize_w = 12, t.resize_h = 10;
  const std::vector<std::int64_t> indices{2, 4, 3, 0};
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_dataset_gather(&batch, ds, indices.data(), 4, &t, nullptr, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  ferry_tensor_info out;
  ferry_tensor_info_init(&out, sizeof out);
  ASSERT_EQ(ferry_batch_describe_output(&out, batch), FERRY_OK);
  std::vector<ferry_sample_desc> picked;
  for (std::int64_t i : indices) picked.push_back(descs[static_cast<std::size_t>(i)]);
  ferry_source host = s;
  host.sample_descs = picked.data();
  host.n = 4;
  std::vector<std::uint8_t> expected(out.bytes, 0xCD);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = expected.data();
  o.bytes = expected.size();
  ASSERT_EQ(ferry_transform_apply(ctx, &host, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(std::memcmp(out.data, expected.data(), expected.size()), 0);
  ferry_batch_release(batch);

  // Without one output size the plan refuses, naming what is missing.
  ferry_transform plain;
  ferry_transform_init(&plain, sizeof plain);
  batch = nullptr;
  EXPECT_EQ(ferry_dataset_gather(&batch, ds, indices.data(), 4, &plain, nullptr, nullptr),
            FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ferry_last_error()).find("resize"), std::string::npos) << ferry_last_error();
  EXPECT_EQ(batch, nullptr);
  ferry_dataset_destroy(ds);
}

}  // namespace
