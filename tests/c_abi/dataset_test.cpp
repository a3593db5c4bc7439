// Resident datasets through the C ABI on the CPU backend: the upload (one
// buffer, sample pointers, strided, NCHW, in many parts, shards, samples of
// different sizes), gathers checked element by element against
// ferry_transform_apply on the same samples from the caller's memory
// (augmentation included), the epoch orders, the statistics, gathers from
// several threads, and every bad input with its own status.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

// n h x w x c samples in one buffer.
struct Images {
  std::int64_t n, h, w, c;
  std::vector<std::uint8_t> bytes;
  Images(std::int64_t n_, std::int64_t h_, std::int64_t w_, std::int64_t c_, unsigned seed)
      : n(n_), h(h_), w(w_), c(c_), bytes(random_bytes(static_cast<std::size_t>(n_ * h_ * w_ * c_), seed)) {}
  std::int64_t sample_bytes() const { return h * w * c; }
  ferry_source source() const {
    ferry_source s;
    ferry_source_init(&s, sizeof s);
    s.data = bytes.data();
    s.bytes = bytes.size();
    s.n = n, s.h = h, s.w = w, s.c = c;
    return s;
  }
};

struct DatasetTest : ::testing::Test {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  ~DatasetTest() override { ferry_context_destroy(ctx); }

  ferry_dataset_t create(const ferry_source& source, const ferry_dataset_options* options = nullptr) {
    ferry_dataset_t ds = nullptr;
    EXPECT_EQ(ferry_dataset_create(&ds, ctx, &source, options), FERRY_OK) << ferry_last_error();
    return ds;
  }

  // The gather's output bytes (waited for, released).
  std::vector<std::uint8_t> gather(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                   const ferry_transform* transform) {
    ferry_batch_t batch = nullptr;
    EXPECT_EQ(ferry_dataset_gather(&batch, ds, indices.data(), static_cast<std::int64_t>(indices.size()), transform,
                                   nullptr, nullptr),
              FERRY_OK)
        << ferry_last_error();
    if (batch == nullptr) return {};
    EXPECT_EQ(ferry_batch_wait(batch), FERRY_OK) << ferry_last_error();
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_batch_describe_output(&info, batch), FERRY_OK);
    const auto* p = static_cast<const std::uint8_t*>(info.data);
    std::vector<std::uint8_t> out(p, p + info.bytes);
    ferry_batch_release(batch);
    return out;
  }

  // The same samples converted from host memory: sample indices[i] of `source`, as pointers.
  std::vector<std::uint8_t> reference(const ferry_source& source, std::int64_t sample_bytes,
                                      const std::vector<std::int64_t>& indices, const ferry_transform* transform) {
    std::vector<const void*> pointers;
    for (std::int64_t i : indices)
      pointers.push_back(static_cast<const std::uint8_t*>(source.data) + i * sample_bytes);
    ferry_source s = source;
    s.data = nullptr, s.bytes = 0;
    s.samples = pointers.data();
    s.sample_bytes = static_cast<std::size_t>(sample_bytes);
    s.n = static_cast<std::int64_t>(indices.size());
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_transform_describe_output(&info, &s, transform), FERRY_OK) << ferry_last_error();
    std::vector<std::uint8_t> out(info.bytes, 0xCD);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out.data();
    o.bytes = out.size();
    EXPECT_EQ(ferry_transform_apply(ctx, &s, transform, &o, nullptr), FERRY_OK) << ferry_last_error();
    return out;
  }

  ferry_dataset_info info_of(ferry_dataset_t ds) {
    ferry_dataset_info info;
    ferry_dataset_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_dataset_get_info(&info, ds), FERRY_OK) << ferry_last_error();
    return info;
  }
};

ferry_transform normalized_f16_crop_flip(ferry_augment* augment, std::uint64_t step) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.mean[0] = 0.49f, t.mean[1] = 0.48f, t.mean[2] = 0.45f;
  t.std[0] = 0.25f, t.std[1] = 0.24f, t.std[2] = 0.26f;
  t.resize_w = 32, t.resize_h = 32;
  ferry_augment_init(augment, sizeof *augment);
  augment->seed = 7;
  augment->step = step;
  augment->crop = FERRY_AUGMENT_CROP_RANDOM;
  augment->padding = 4;
  augment->flip_x_probability = 0.5f;
  t.augment = augment;
  return t;
}

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
