// Resident datasets through the C ABI on the CPU backend, shared by the
// dataset tests: random images, a context with helpers that gather and wait,
// and the same samples converted from host memory as the reference.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/test_context.h"

namespace ferry::test {

inline std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
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

inline ferry_transform normalized_f16_crop_flip(ferry_augment* augment, std::uint64_t step) {
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

}  // namespace ferry::test
