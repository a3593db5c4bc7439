// What the resident-dataset GPU tests build and gather: random sources of
// every kind a dataset is made from (one pageable buffer, one pinned buffer,
// sample pointers, samples of different sizes with row pitches), each owning
// the memory behind it, the output size of a gather, and the gathers'
// recipes (CIFAR's training augmentation; RandomResizedCrop + colour jitter +
// grayscale + erasing).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/variable_size_cases.h"

namespace ferry::test {

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::mt19937& rng) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

// One source both contexts build a dataset from, with the memory behind it.
struct SourceCase {
  std::string name;
  ferry_source source{};
  ferry_dataset_options options{};
  std::int64_t sample_bytes = 0;  // one size: h * w * c, samples packed
  std::vector<std::uint8_t> buffer;
  std::vector<std::vector<std::uint8_t>> pieces;
  std::vector<const void*> pointers;
  std::vector<VariableSample> variable;
  std::vector<ferry_sample_desc> descs;
  ferry_context_t pinned_owner = nullptr;
  void* pinned = nullptr;

  SourceCase(std::string n) : name(std::move(n)) {
    ferry_source_init(&source, sizeof source);
    ferry_dataset_options_init(&options, sizeof options);
  }
  ~SourceCase() {
    if (pinned != nullptr) ferry_memory_free_host(pinned_owner, pinned);
  }
  SourceCase(const SourceCase&) = delete;
  SourceCase& operator=(const SourceCase&) = delete;

  // Source sample g, packed h x w x c (one size only).
  const std::uint8_t* sample(std::int64_t g) const {
    if (source.samples != nullptr) return static_cast<const std::uint8_t*>(source.samples[g]);
    return static_cast<const std::uint8_t*>(source.data) + g * sample_bytes;
  }
};

// n h x w x 3 samples in one pageable buffer.
inline std::unique_ptr<SourceCase> one_buffer(std::string name, std::int64_t n, std::int64_t h, std::int64_t w,
                                              std::mt19937& rng) {
  auto s = std::make_unique<SourceCase>(std::move(name));
  s->sample_bytes = h * w * 3;
  s->buffer = random_bytes(static_cast<std::size_t>(n * s->sample_bytes), rng);
  s->source.data = s->buffer.data();
  s->source.bytes = s->buffer.size();
  s->source.n = n, s->source.h = h, s->source.w = w, s->source.c = 3;
  return s;
}

// The same in memory from ferry_memory_alloc_host (DMA'd, no staging copy).
inline std::unique_ptr<SourceCase> pinned_buffer(ferry_context_t gpu, std::int64_t n, std::int64_t h,
                                                 std::int64_t w, std::mt19937& rng) {
  auto s = one_buffer("pinned buffer", n, h, w, rng);
  s->pinned_owner = gpu;
  EXPECT_EQ(ferry_memory_alloc_host(&s->pinned, gpu, s->buffer.size()), FERRY_OK) << ferry_last_error();
  if (s->pinned == nullptr) return s;
  std::memcpy(s->pinned, s->buffer.data(), s->buffer.size());
  s->buffer.clear();
  s->source.data = s->pinned;
  return s;
}

// n h x w x 3 samples, each in its own allocation, reached by pointer.
inline std::unique_ptr<SourceCase> sample_pointers(std::int64_t n, std::int64_t h, std::int64_t w, std::mt19937& rng) {
  auto s = std::make_unique<SourceCase>("sample pointers");
  s->sample_bytes = h * w * 3;
  for (std::int64_t i = 0; i < n; ++i) {
    s->pieces.push_back(random_bytes(static_cast<std::size_t>(s->sample_bytes), rng));
    s->pointers.push_back(s->pieces.back().data());
  }
  s->source.samples = s->pointers.data();
  s->source.sample_bytes = static_cast<std::size_t>(s->sample_bytes);
  s->source.n = n, s->source.h = h, s->source.w = w, s->source.c = 3;
  return s;
}

// n samples of 24-70 px a side (a 4-px padded RandomCrop of 32 fits), rows padded now and then.
inline std::unique_ptr<SourceCase> different_sizes(std::int64_t n, std::mt19937& rng) {
  auto s = std::make_unique<SourceCase>("samples of different sizes");
  std::uniform_int_distribution<int> side(24, 70);
  for (std::int64_t i = 0; i < n; ++i) s->variable.push_back(random_sample(rng, side(rng), side(rng), 3, FERRY_LAYOUT_NHWC));
  for (const VariableSample& v : s->variable) s->descs.push_back(v.desc());
  s->source = variable_source(s->descs, 3, FERRY_LAYOUT_NHWC);
  return s;
}

// Output bytes of a gather of n samples of a dataset shaped as `info` (described, never read).
inline std::size_t gather_bytes(const ferry_dataset_info& info, std::int64_t n, const ferry_transform& t) {
  static const std::uint8_t any = 0;
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = &any;
  s.n = n, s.h = info.h, s.w = info.w, s.c = info.c;
  s.layout = info.layout;
  s.bytes = static_cast<std::size_t>(n * info.h * info.w * info.c);
  ferry_tensor_info out;
  ferry_tensor_info_init(&out, sizeof out);
  EXPECT_EQ(ferry_transform_describe_output(&out, &s, &t), FERRY_OK) << ferry_last_error();
  return out.bytes;
}

// The gathers' transforms; `a` holds the augmentation the transform points at.
inline ferry_transform cifar_recipe(ferry_augment& a, std::uint64_t step) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.resize_w = t.resize_h = 32;
  const float mean[3] = {0.4914f, 0.4822f, 0.4465f}, stdev[3] = {0.2470f, 0.2435f, 0.2616f};
  for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  ferry_augment_init(&a, sizeof a);
  a.seed = 1234, a.step = step;
  a.crop = FERRY_AUGMENT_CROP_RANDOM;
  a.padding = 4;
  a.flip_x_probability = 0.5f;
  t.augment = &a;
  return t;
}

inline ferry_transform jitter_recipe(ferry_augment& a, std::uint64_t step) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT32;
  t.resize_w = t.resize_h = 24;
  t.mean[0] = t.mean[1] = t.mean[2] = 0.5f;
  t.std[0] = t.std[1] = t.std[2] = 0.25f;
  ferry_augment_init(&a, sizeof a);
  a.seed = 99, a.step = step;
  a.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  a.flip_x_probability = 0.5f;
  a.brightness[0] = a.contrast[0] = a.saturation[0] = 0.6f;
  a.brightness[1] = a.contrast[1] = a.saturation[1] = 1.4f;
  a.hue[0] = -0.1f, a.hue[1] = 0.1f;
  a.grayscale_probability = 0.2f;
  a.erase_probability = 0.5f;
  a.erase_fill = step % 2 ? FERRY_ERASE_RANDOM : FERRY_ERASE_VALUE;  // both fills over the steps
  t.augment = &a;
  return t;
}

}  // namespace ferry::test
