// Crop windows at every position relative to the image, padded outside
// (transform.pad_outside): wholly left or right of it with and without a gap,
// touching its edges, overlapping one edge, inside, wider than it on both
// sides; above, below, across; with each mirror; per batch and per sample
// (mixed positions, data and sample-pointer sources). Shared by the CPU test
// (against the scalar reference) and the GPU test (against the CPU backend).
// Each case's output is exactly the bytes its strides reach, so a write past
// a row shows in the canaries the tests put around it (issue 18, finding 1).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"

namespace ferry::test {

// The output formats the windows are converted to.
struct WindowFormat {
  ferry_dtype dtype;
  ferry_layout layout;
  bool pad_to_4;
  bool padded_strides;  // gaps between rows, planes and samples (poisoned, compared)
};

inline constexpr WindowFormat window_formats[] = {
    {FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW, false, false}, {FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NHWC, true, false},
    {FERRY_DTYPE_UINT8, FERRY_LAYOUT_NHWC, false, false},   {FERRY_DTYPE_UINT8, FERRY_LAYOUT_NCHW, true, false},
    {FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NCHW, true, true},   {FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC, false, true},
};

// A case owns every buffer its structs point into; it never moves (unique_ptr).
struct WindowCase {
  std::string name;
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};  // data NULL: the user of the case supplies it; bytes is the exact extent
  std::vector<std::uint8_t> data;
  std::vector<std::vector<std::uint8_t>> sample_data;
  std::vector<const void*> sample_pointers;
  std::vector<ferry_rect> crops;
  std::vector<std::uint8_t> mirrors;
  std::vector<float> means, stds;  // per-sample mean/std (out_channels a sample), or empty
};

// Window origins along one axis of `image` pixels for a window of `size`:
// far before (a gap of 1 and of 98, the reproducer), touching,
// overlapping by one, at 0, at the far edge, overlapping, touching, far after.
inline std::vector<std::int64_t> window_origins(std::int64_t image, std::int64_t size) {
  std::vector<std::int64_t> v = {-size - 98, -size - 1, -size, -size + 1, -1,          0,
                                 image - size, image - 1, image, image + 1, image + 98};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

struct WindowImage {
  int w, h, c;
};
// A small image, and one wider than the CPU's 256-pixel blocks.
inline constexpr WindowImage window_images[] = {{7, 5, 3}, {300, 3, 4}};

inline std::unique_ptr<WindowCase> make_window_case(const WindowImage& img, const WindowFormat& f,
                                                    const std::vector<ferry_rect>& windows,
                                                    const std::vector<std::uint8_t>& mirrors, bool per_sample,
                                                    bool sample_pointers, std::uint32_t seed) {
  auto c = std::make_unique<WindowCase>();
  std::mt19937 rng(seed);
  const auto n = static_cast<std::int64_t>(windows.size());
  ferry_source& s = c->source;
  ferry_source_init(&s, sizeof s);
  s.n = n, s.h = img.h, s.w = img.w, s.c = img.c;
  const std::size_t sample_bytes = static_cast<std::size_t>(img.w) * img.h * img.c;
  if (sample_pointers) {
    c->sample_data.assign(static_cast<std::size_t>(n), std::vector<std::uint8_t>(sample_bytes));
    for (auto& buf : c->sample_data) {
      for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
      c->sample_pointers.push_back(buf.data());
    }
    s.samples = c->sample_pointers.data();
    s.sample_bytes = sample_bytes;
  } else {
    c->data.resize(sample_bytes * static_cast<std::size_t>(n));
    for (auto& b : c->data) b = static_cast<std::uint8_t>(rng());
    s.data = c->data.data();
    s.bytes = c->data.size();
  }

  ferry_transform& t = c->transform;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = f.dtype;
  t.out_layout = f.layout;
  const bool u8 = f.dtype == FERRY_DTYPE_UINT8;
  t.out_channels = 3;  // BGR(A) -> RGB: the channel map matters too
  t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
  t.pad_channels_to_4 = f.pad_to_4;
  t.pad_value = u8 ? 7.0f : -1.5f;
  if (!u8)
    for (int k = 0; k < 3; ++k) t.mean[k] = 0.25f * static_cast<float>(k + 1), t.std[k] = 0.5f;
  t.pad_outside = 1;
  t.fill_value = u8 ? 200.0f : 9.25f;
  c->crops = windows;
  c->mirrors = mirrors;
  if (per_sample) {
    t.per_sample_crop = c->crops.data();
    t.per_sample_mirror = c->mirrors.data();
    t.per_sample_count = n;
  } else {
    t.crop = windows[0];
    t.mirror = mirrors[0];
  }

  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  if (ferry_transform_describe_output(&info, &s, &t) != FERRY_OK) return nullptr;
  ferry_output& o = c->output;
  ferry_output_init(&o, sizeof o);
  o.bytes = info.bytes;
  if (f.padded_strides) {
    const std::int64_t e = f.dtype == FERRY_DTYPE_FLOAT32 ? 4 : u8 ? 1 : 2, oct = f.pad_to_4 ? 4 : 3;
    const std::int64_t ow = windows[0].w, oh = windows[0].h;
    if (f.layout == FERRY_LAYOUT_NCHW) {
      o.stride_w = e, o.stride_h = (ow + 3) * e, o.stride_c = o.stride_h * oh + e, o.stride_n = o.stride_c * oct + e;
      o.bytes = static_cast<std::size_t>(o.stride_n * (n - 1) + o.stride_c * (oct - 1) + o.stride_h * (oh - 1) + ow * e);
    } else {
      o.stride_c = e, o.stride_w = oct * e, o.stride_h = (ow + 3) * oct * e, o.stride_n = o.stride_h * oh + e;
      o.bytes = static_cast<std::size_t>(o.stride_n * (n - 1) + o.stride_h * (oh - 1) + ow * oct * e);
    }
  }
  c->name = std::string("img ") + std::to_string(img.w) + "x" + std::to_string(img.h) + " dtype " +
            std::to_string(static_cast<int>(f.dtype)) + (f.layout == FERRY_LAYOUT_NCHW ? " NCHW" : " NHWC") +
            (f.pad_to_4 ? " pad4" : "") + (f.padded_strides ? " strided" : "") +
            (per_sample ? " per-sample" : "") + (sample_pointers ? " samples" : "");
  for (std::size_t i = 0; i < windows.size(); ++i)
    c->name += " [x " + std::to_string(windows[i].x) + " y " + std::to_string(windows[i].y) + " w " +
               std::to_string(windows[i].w) + " h " + std::to_string(windows[i].h) + " mirror " +
               std::to_string(mirrors[i]) + "]";
  return c;
}

// Calls fn(case) for every batch window (each image, window size, x and y
// origin, mirror and format), then for mixed per-sample windows.
template <typename Fn>
void for_each_window_case(Fn&& fn) {
  std::uint32_t seed = 1;
  for (const WindowImage& img : window_images) {
    // A small window, and one larger than the image on both axes.
    const std::int64_t sizes[2][2] = {{2, 2}, {img.w + 4, img.h + 3}};
    for (const auto& size : sizes) {
      const std::int64_t ww = size[0], wh = size[1];
      const std::vector<std::int64_t> xs = window_origins(img.w, ww), ys = window_origins(img.h, wh);
      for (const WindowFormat& f : window_formats) {
        for (std::int64_t x : xs)
          for (std::int64_t y : ys)
            for (std::uint8_t m = 0; m < 4; ++m) {
              auto c = make_window_case(img, f, {ferry_rect{x, y, ww, wh}}, {m}, false, false, seed++);
              fn(c.get());
            }
        // Per sample: 4 samples, each window and mirror drawn from the same origins.
        std::mt19937 rng(seed);
        for (int round = 0; round < 24; ++round) {
          std::vector<ferry_rect> windows;
          std::vector<std::uint8_t> mirrors;
          for (int i = 0; i < 4; ++i) {
            windows.push_back({xs[rng() % xs.size()], ys[rng() % ys.size()], ww, wh});
            mirrors.push_back(static_cast<std::uint8_t>(rng() % 4));
          }
          auto c = make_window_case(img, f, windows, mirrors, true, round % 2 == 1, seed++);
          fn(c.get());
        }
      }
    }
  }
}

}  // namespace ferry::test
