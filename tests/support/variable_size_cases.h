// Batches of samples of different sizes (ferry_source.sample_descs) for the
// tests: random images at random sizes, strides and layouts, with windows of
// one size (inside, or reaching past the image with pad_outside) or resized
// to one output. Shared by the CPU tests (tests/c_abi/variable_sizes_test.cpp)
// and the GPU tests against the CPU backend (tests/gpu/resize_gpu_test.cpp).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "ferry/ferry.h"

namespace ferry::test {

struct VariableSample {
  std::vector<std::uint8_t> pixels;
  ferry_sample_desc geometry{};  // h, w and strides; data and bytes are the pixels' (a copied VariableSample points at its own)

  ferry_sample_desc desc() const {
    ferry_sample_desc d = geometry;
    d.data = pixels.data();
    d.bytes = pixels.size();
    return d;
  }
};

// A random h x w x c image in `layout`, its rows padded now and then (a pitch).
inline VariableSample random_sample(std::mt19937& rng, std::int64_t h, std::int64_t w, std::int64_t c, ferry_layout layout) {
  VariableSample s;
  const std::int64_t pad = std::uniform_int_distribution<int>(0, 1)(rng) * 5;
  s.geometry.h = h, s.geometry.w = w;
  std::int64_t bytes = 0;
  if (layout == FERRY_LAYOUT_NHWC) {
    s.geometry.stride_w = c, s.geometry.stride_c = 1, s.geometry.stride_h = w * c + pad;
    bytes = h * s.geometry.stride_h;
  } else {
    s.geometry.stride_w = 1, s.geometry.stride_h = w + pad, s.geometry.stride_c = h * (w + pad);
    bytes = c * s.geometry.stride_c;
  }
  s.pixels.resize(static_cast<std::size_t>(bytes));
  for (auto& p : s.pixels) p = static_cast<std::uint8_t>(rng());
  return s;
}

inline ferry_source variable_source(const std::vector<ferry_sample_desc>& descs, std::int64_t c, ferry_layout layout) {
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.n = static_cast<std::int64_t>(descs.size());
  src.c = c;
  src.layout = layout;
  src.sample_descs = descs.data();
  return src;
}

// Sample i alone: a one-sample batch of its own size and strides.
inline ferry_source alone(const ferry_sample_desc& d, std::int64_t c, ferry_layout layout) {
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.data = d.data, src.bytes = d.bytes;
  src.n = 1, src.h = d.h, src.w = d.w, src.c = c;
  src.layout = layout;
  src.stride_n = static_cast<std::int64_t>(d.bytes);
  src.stride_c = d.stride_c, src.stride_h = d.stride_h, src.stride_w = d.stride_w;
  return src;
}

struct VariableCase {
  std::vector<VariableSample> samples;
  std::vector<ferry_sample_desc> descs;
  std::vector<ferry_rect> windows;
  std::vector<std::uint8_t> mirrors;
  std::int64_t c = 3;
  ferry_layout layout = FERRY_LAYOUT_NHWC;
  ferry_transform transform{};
};

// n samples of random sizes; windows of one size, inside each image or (with
// pad_outside) reaching past it; a random output format and mirror per sample.
inline VariableCase random_case(std::mt19937& rng, bool padded) {
  VariableCase k;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int n = pick(1, 6);
  const int cs[] = {1, 3, 4};
  k.c = cs[pick(0, 2)];
  k.layout = pick(0, 1) ? FERRY_LAYOUT_NHWC : FERRY_LAYOUT_NCHW;
  const std::int64_t win_w = pick(1, 12), win_h = pick(1, 12);
  for (int i = 0; i < n; ++i) {
    const std::int64_t h = padded ? pick(1, 30) : pick(static_cast<int>(win_h), 30);
    const std::int64_t w = padded ? pick(1, 30) : pick(static_cast<int>(win_w), 30);
    k.samples.push_back(random_sample(rng, h, w, k.c, k.layout));
    const std::int64_t x = padded ? pick(-static_cast<int>(win_w) - 2, static_cast<int>(w) + 2)
                                  : pick(0, static_cast<int>(w - win_w));
    const std::int64_t y = padded ? pick(-static_cast<int>(win_h) - 2, static_cast<int>(h) + 2)
                                  : pick(0, static_cast<int>(h - win_h));
    k.windows.push_back(ferry_rect{x, y, win_w, win_h});
    k.mirrors.push_back(static_cast<std::uint8_t>(pick(0, 3)));
  }
  for (const VariableSample& s : k.samples) k.descs.push_back(s.desc());
  ferry_transform& t = k.transform;
  ferry_transform_init(&t, sizeof t);
  const ferry_dtype dtypes[] = {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16};
  t.out_dtype = dtypes[pick(0, 3)];
  t.out_layout = pick(0, 1) ? FERRY_LAYOUT_NHWC : FERRY_LAYOUT_NCHW;
  if (k.c >= 3 && pick(0, 1)) {
    t.out_channels = 3;
    t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
  }
  if (t.out_dtype != FERRY_DTYPE_UINT8) {
    for (int j = 0; j < 4; ++j) t.mean[j] = 0.1f * static_cast<float>(j + 1), t.std[j] = 0.5f + 0.25f * static_cast<float>(j);
  }
  t.per_sample_crop = k.windows.data();
  t.per_sample_mirror = k.mirrors.data();
  t.per_sample_count = n;
  t.pad_outside = padded ? 1 : 0;
  t.fill_value = t.out_dtype == FERRY_DTYPE_UINT8 ? 7.0f : -1.5f;
  return k;
}

// n images at their own sizes resized to one output by a random
// interpolation and mode: the whole image, or a fractional window per sample
// (in `windows`, set in the transform when with_windows), a mirror per sample.
struct ResizedVariableCase {
  VariableCase k;
  std::vector<ferry_rectf> windows;
  bool with_windows = false;
};

// min_samples: 1 draws 1-5 samples, more draws min_samples .. min_samples + 4.
inline ResizedVariableCase random_resized_case(std::mt19937& rng, int max_side = 40, int max_out = 24,
                                               int min_samples = 1) {
  ResizedVariableCase r;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  VariableCase& k = r.k;
  std::vector<ferry_rectf>& windows = r.windows;
  const int n = min_samples <= 1 ? pick(1, 5) : pick(min_samples, min_samples + 4);
  k.c = pick(0, 1) ? 3 : 1;
  k.layout = pick(0, 1) ? FERRY_LAYOUT_NHWC : FERRY_LAYOUT_NCHW;
  for (int i = 0; i < n; ++i) {
    const std::int64_t h = pick(1, max_side), w = pick(1, max_side);
    k.samples.push_back(random_sample(rng, h, w, k.c, k.layout));
    k.descs.push_back(k.samples.back().desc());
    const float x = static_cast<float>(pick(0, static_cast<int>(w) - 1)) * 0.5f;
    const float y = static_cast<float>(pick(0, static_cast<int>(h) - 1)) * 0.5f;
    windows.push_back(ferry_rectf{x, y, (static_cast<float>(w) - x) * 0.75f, (static_cast<float>(h) - y) * 0.75f});
    k.mirrors.push_back(static_cast<std::uint8_t>(pick(0, 3)));
  }
  ferry_transform& t = k.transform;
  ferry_transform_init(&t, sizeof t);
  t.resize_w = pick(1, max_out), t.resize_h = pick(1, max_out);
  t.interpolation = static_cast<ferry_interpolation>(pick(1, 5));
  t.resize_mode = static_cast<ferry_resize_mode>(pick(1, 3));
  t.resize_shorter = pick(1, 30);
  t.out_dtype = pick(0, 1) ? FERRY_DTYPE_UINT8 : FERRY_DTYPE_FLOAT16;
  t.per_sample_mirror = k.mirrors.data();
  t.per_sample_count = n;
  r.with_windows = pick(0, 1) != 0;
  if (r.with_windows) t.per_sample_window = windows.data();
  return r;
}

}  // namespace ferry::test
