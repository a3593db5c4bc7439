// Cases for the unit kernels' fast path (issue 12): every dtype and output
// layout, source channels 1, 3 and 4 with the identity map, a reordering map
// (BGR -> RGB, BGRA -> RGB, gray -> RGB) and padding to 4, under each geometry
// (whole image; mirror X, Y, XY; per-sample random flips; per-sample random
// crops at unaligned origins; padded windows partly and wholly outside, per
// sample), on images with odd widths, a single row and a single column, from
// packed, pitched-unaligned and sample-pointer sources. Built as WindowCase
// (convert_window_cases.h) so the GPU test compares them with canaries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/convert_window_cases.h"

namespace ferry::test {

enum class FastGeometry { whole, mirror_x, mirror_y, mirror_xy, random_flips, random_crops, padded, count };
enum class FastChannels { identity, reorder, pad_to_4, count };
enum class FastSource { packed, pitched_unaligned, sample_pointers, count };

inline const char* fast_geometry_name(FastGeometry g) {
  static const char* const names[] = {"whole", "mirror-x", "mirror-y", "mirror-xy", "random-flips", "random-crops",
                                      "padded"};
  return names[static_cast<int>(g)];
}

struct FastImage {
  int w, h;
};
// Odd widths, a single row, a single column, one pixel, and a row of 67 (4 units
// of 16 bytes and a partial one for every dtype).
inline constexpr FastImage fast_images[] = {{17, 5}, {67, 3}, {9, 1}, {1, 7}, {1, 1}, {31, 2}};

inline std::unique_ptr<WindowCase> make_fast_case(const FastImage& img, int c, ferry_dtype dtype, ferry_layout layout,
                                                  FastChannels channels, FastGeometry geometry, FastSource form,
                                                  std::uint32_t seed) {
  auto wc = std::make_unique<WindowCase>();
  std::mt19937 rng(seed);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const std::int64_t n = 4;
  ferry_source& s = wc->source;
  ferry_source_init(&s, sizeof s);
  s.n = n, s.h = img.h, s.w = img.w, s.c = c;
  // Pitched: 3 bytes of row padding and an odd start, so no row is aligned.
  const std::int64_t pitch = img.w * c + (form == FastSource::pitched_unaligned ? 3 : 0);
  const std::size_t sample_bytes = static_cast<std::size_t>(pitch * img.h);
  if (form == FastSource::sample_pointers) {
    s.sample_bytes = sample_bytes;
    for (std::int64_t i = 0; i < n; ++i) {
      wc->sample_data.emplace_back(sample_bytes + 16);
      for (auto& b : wc->sample_data.back()) b = static_cast<std::uint8_t>(rng());
    }
    for (std::int64_t i = 0; i < n; ++i)  // each sample at a different offset from 16 bytes
      wc->sample_pointers.push_back(wc->sample_data[static_cast<std::size_t>(i)].data() + 1 + 2 * i);
    s.samples = wc->sample_pointers.data();
  } else {
    const std::size_t offset = form == FastSource::pitched_unaligned ? 1 : 0;
    wc->data.resize(sample_bytes * static_cast<std::size_t>(n) + offset);
    for (auto& b : wc->data) b = static_cast<std::uint8_t>(rng());
    s.data = wc->data.data() + offset;
    s.bytes = sample_bytes * static_cast<std::size_t>(n);
    s.stride_h = pitch;
  }

  ferry_transform& t = wc->transform;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = dtype;
  t.out_layout = layout;
  const bool u8 = dtype == FERRY_DTYPE_UINT8;
  if (channels == FastChannels::reorder) {
    t.out_channels = 3;  // BGR(A) -> RGB; gray -> RGB
    const int bgr[3] = {2, 1, 0};
    for (int k = 0; k < 3; ++k) t.channel_map[k] = c == 1 ? 0 : bgr[k];
  }
  t.pad_channels_to_4 = channels == FastChannels::pad_to_4;
  t.pad_value = u8 ? 11.0f : -2.5f;
  if (!u8)
    for (int k = 0; k < 4; ++k) t.mean[k] = 0.125f * static_cast<float>(k + 1), t.std[k] = 0.25f + 0.125f * k;

  // Windows: the whole image, a random window inside it, or one anywhere
  // within a window's width of it (partly or wholly outside), per sample.
  const std::int64_t ww = std::max<std::int64_t>(1, img.w - uniform(0, img.w / 2));
  const std::int64_t wh = std::max<std::int64_t>(1, img.h - uniform(0, img.h / 2));
  for (std::int64_t i = 0; i < n; ++i) {
    if (geometry == FastGeometry::random_crops) {
      wc->crops.push_back({uniform(0, img.w - ww), uniform(0, img.h - wh), ww, wh});
    } else if (geometry == FastGeometry::padded) {
      const std::int64_t pw = ww + 2, ph = wh + 1;  // wider and taller than the window inside
      wc->crops.push_back({uniform(-pw - 2, img.w + 1), uniform(-ph - 1, img.h), pw, ph});
    }
    std::uint8_t m = 0;
    if (geometry == FastGeometry::mirror_x) m = 1;
    if (geometry == FastGeometry::mirror_y) m = 2;
    if (geometry == FastGeometry::mirror_xy) m = 3;
    if (geometry == FastGeometry::random_flips || geometry == FastGeometry::padded ||
        geometry == FastGeometry::random_crops)
      m = static_cast<std::uint8_t>(uniform(0, 3));
    wc->mirrors.push_back(m);
  }
  if (geometry == FastGeometry::padded) {
    t.pad_outside = 1;
    t.fill_value = u8 ? 201.0f : 7.75f;
  }
  const bool per_sample = geometry == FastGeometry::random_flips || geometry == FastGeometry::random_crops ||
                          geometry == FastGeometry::padded;
  if (per_sample) {
    if (!wc->crops.empty()) t.per_sample_crop = wc->crops.data();
    t.per_sample_mirror = wc->mirrors.data();
    t.per_sample_count = n;
  } else {
    t.mirror = wc->mirrors[0];
  }

  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  if (ferry_transform_describe_output(&info, &s, &t) != FERRY_OK) return nullptr;
  ferry_output_init(&wc->output, sizeof wc->output);
  wc->output.bytes = info.bytes;

  static const char* const channel_names[] = {"identity", "reorder", "pad4"};
  static const char* const form_names[] = {"packed", "pitched-unaligned", "sample-pointers"};
  wc->name = std::string(dtype == FERRY_DTYPE_FLOAT32 ? "f32" : dtype == FERRY_DTYPE_FLOAT16 ? "f16"
                         : dtype == FERRY_DTYPE_BFLOAT16 ? "bf16" : "u8") +
             (layout == FERRY_LAYOUT_NCHW ? " NCHW" : " NHWC") + " c" + std::to_string(c) + " " +
             channel_names[static_cast<int>(channels)] + " " + fast_geometry_name(geometry) + " " +
             form_names[static_cast<int>(form)] + " img " + std::to_string(img.w) + "x" + std::to_string(img.h);
  for (std::size_t i = 0; i < wc->mirrors.size(); ++i) {
    wc->name += " [";
    if (!wc->crops.empty())
      wc->name += "x " + std::to_string(wc->crops[i].x) + " y " + std::to_string(wc->crops[i].y) + " w " +
                  std::to_string(wc->crops[i].w) + " h " + std::to_string(wc->crops[i].h) + " ";
    wc->name += "mirror " + std::to_string(wc->mirrors[i]) + "]";
  }
  return wc;
}

// Calls fn(case) for every combination.
template <typename Fn>
void for_each_fast_case(Fn&& fn) {
  const ferry_dtype dtypes[] = {FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16, FERRY_DTYPE_UINT8};
  std::uint32_t seed = 1;
  for (const FastImage& img : fast_images)
    for (int c : {1, 3, 4})
      for (ferry_dtype dtype : dtypes)
        for (ferry_layout layout : {FERRY_LAYOUT_NCHW, FERRY_LAYOUT_NHWC})
          for (int ch = 0; ch < static_cast<int>(FastChannels::count); ++ch)
            for (int g = 0; g < static_cast<int>(FastGeometry::count); ++g)
              for (int f = 0; f < static_cast<int>(FastSource::count); ++f) {
                auto wc = make_fast_case(img, c, dtype, layout, static_cast<FastChannels>(ch),
                                         static_cast<FastGeometry>(g), static_cast<FastSource>(f), seed++);
                fn(wc.get());
              }
}

}  // namespace ferry::test
