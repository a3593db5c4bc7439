// The inputs of ferry_bench_resize (resize_bench.cpp): a training batch of
// images at their own sizes with RandomResizedCrop windows and flips, 1080p
// frames and a detector's letterbox, and the source bytes a resized
// conversion reads (its window), for the kernel table's effective bandwidth.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/convert_plan.h"
#include "ferry/ferry.h"

namespace ferry::bench {

// A batch of images at their own sizes, each drawn 300-500 px per side, with
// a RandomResizedCrop window (scale 0.08-1, ratio 3/4-4/3) and a random flip.
struct ImageBatch {
  std::vector<std::vector<std::uint8_t>> pixels;  // pageable
  std::vector<ferry_sample_desc> descs;
  std::vector<ferry_rectf> windows;
  std::vector<std::uint8_t> mirrors;
  std::size_t bytes = 0;

  explicit ImageBatch(int n, std::uint32_t seed = 7) {
    std::mt19937 rng(seed);
    auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    for (int i = 0; i < n; ++i) {
      const int h = std::uniform_int_distribution<int>(300, 500)(rng), w = std::uniform_int_distribution<int>(300, 500)(rng);
      pixels.emplace_back(static_cast<std::size_t>(h * w * 3));
      for (auto& p : pixels.back()) p = static_cast<std::uint8_t>(rng());
      ferry_sample_desc d{};
      d.data = pixels.back().data(), d.bytes = pixels.back().size(), d.h = h, d.w = w;
      descs.push_back(d);
      bytes += d.bytes;
      const double area = real(0.08, 1.0) * h * w, ratio = std::exp(real(std::log(0.75), std::log(4.0 / 3.0)));
      const double cw = std::floor(std::min<double>(w, std::sqrt(area * ratio)));
      const double ch = std::floor(std::min<double>(h, std::sqrt(area / ratio)));
      windows.push_back(ferry_rectf{static_cast<float>(std::floor(real(0.0, w - cw))),
                                    static_cast<float>(std::floor(real(0.0, h - ch))), static_cast<float>(cw),
                                    static_cast<float>(ch)});
      mirrors.push_back(static_cast<std::uint8_t>(rng() % 2));
    }
  }
  ferry_source source() const {
    ferry_source s;
    ferry_source_init(&s, sizeof s);
    s.n = static_cast<std::int64_t>(descs.size()), s.c = 3;
    s.sample_descs = descs.data();
    return s;
  }
  // RandomResizedCrop + flip to 224x224, normalized f16 NCHW.
  ferry_transform transform(ferry_interpolation interp = FERRY_INTERP_LINEAR) const {
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.out_dtype = FERRY_DTYPE_FLOAT16;
    t.resize_w = t.resize_h = 224;
    t.interpolation = interp;
    const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
    for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
    t.per_sample_window = windows.data();
    t.per_sample_mirror = mirrors.data();
    t.per_sample_count = static_cast<std::int64_t>(descs.size());
    return t;
  }
};

// The source bytes a resized conversion reads: per sample, the pixels the
// shown part of the resized image covers (letterbox bars read nothing).
inline std::size_t window_bytes(const ferry_source& s, const ferry_transform& t) {
  const ferry::core::ConvertPlan plan =
      ferry::core::make_convert_plan(ferry::api::to_core(s), ferry::api::to_core(t), nullptr);
  auto span = [](const ferry::core::ResizeAxis& a, std::int64_t out) {
    const std::int64_t r0 = std::max<std::int64_t>(0, a.offset), r1 = std::min<std::int64_t>(a.length, a.offset + out);
    if (r1 <= r0) return std::int64_t{0};
    const auto lo = std::max<std::int64_t>(a.lo, static_cast<std::int64_t>(std::floor(a.origin + r0 * a.scale)));
    const auto hi = std::min<std::int64_t>(a.hi + 1, static_cast<std::int64_t>(std::ceil(a.origin + r1 * a.scale)));
    return std::max<std::int64_t>(0, hi - lo);
  };
  std::size_t bytes = 0;
  for (std::int64_t g = 0; g < plan.n; ++g) {
    const ferry::core::ResizeAxes& ax = plan.resize_of(g);
    bytes += static_cast<std::size_t>(span(ax.x, plan.out_w) * span(ax.y, plan.out_h) * plan.c);
  }
  return bytes;
}

inline const char* interpolation_name(ferry_interpolation m) {
  switch (m) {
    case FERRY_INTERP_NEAREST: return "nearest";
    case FERRY_INTERP_LINEAR: return "bilinear";
    case FERRY_INTERP_CUBIC: return "bicubic";
    case FERRY_INTERP_AREA: return "area";
    case FERRY_INTERP_LINEAR_ANTIALIAS: return "bilinear antialias";
  }
  return "?";
}

// 1080p BGR frames at `data` (n of them).
inline ferry_source frames_source(const void* data, std::int64_t n) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = data, s.bytes = static_cast<std::size_t>(n) * 1080 * 1920 * 3, s.n = n, s.h = 1080, s.w = 1920, s.c = 3;
  return s;
}

// A detector's input: letterboxed to 640x640, BGR -> RGB f16 NCHW in [0, 1], bars of 114 (YOLO's gray).
inline ferry_transform letterbox_transform() {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16, t.resize_w = t.resize_h = 640, t.resize_mode = FERRY_RESIZE_LETTERBOX;
  t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
  t.scale = 1.0f / 255.0f;
  for (int k = 0; k < 3; ++k) t.letterbox_value[k] = 114.0f / 255.0f;
  return t;
}

}  // namespace ferry::bench
