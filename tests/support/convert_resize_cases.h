// Random resize cases (transform.resize_w/h) for the CPU tests against the
// scalar reference and the pipeline tests: the interpolation, mode and dtype
// chosen by the caller, everything else drawn from the seed: source layout,
// form (packed, pitched with an odd base, sample pointers) and channels,
// channel map or pad-to-4, windows (whole image, batch crop, per-sample crops
// of different sizes, fractional batch or per-sample windows), mirror (batch
// or per sample), per-sample mean/std, output layout and padded strides,
// upscales, downscales, odd sizes, 1-pixel sides and extreme aspect ratios.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/convert_test_cases.h"

namespace ferry::test {

struct ResizeCase {
  std::string name;
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};  // data NULL: the user supplies it
  std::vector<std::uint8_t> data;
  std::size_t data_offset = 0;
  std::vector<std::vector<std::uint8_t>> sample_data;
  std::vector<const void*> sample_pointers;
  std::vector<float> mean, stdev;
  std::vector<ferry_rect> crops;
  std::vector<ferry_rectf> windows;
  std::vector<std::uint8_t> mirrors;
  std::size_t output_bytes = 0;
};

inline const char* interpolation_name(ferry_interpolation m) {
  switch (m) {
    case FERRY_INTERP_NEAREST: return "nearest";
    case FERRY_INTERP_LINEAR: return "linear";
    case FERRY_INTERP_CUBIC: return "cubic";
    case FERRY_INTERP_AREA: return "area";
    case FERRY_INTERP_LINEAR_ANTIALIAS: return "antialias";
  }
  return "?";
}

inline const char* resize_mode_name(ferry_resize_mode m) {
  switch (m) {
    case FERRY_RESIZE_STRETCH: return "stretch";
    case FERRY_RESIZE_LETTERBOX: return "letterbox";
    case FERRY_RESIZE_SHORTER_SIDE: return "shorter";
  }
  return "?";
}

// NULL if ferry rejects the drawn case (it should not: the test then fails).
// min_samples: 1 draws batches of 1-3 samples; more draws min_samples ..
// min_samples + 4 (the GPU's bilinear batches of 8 or more take blocks of
// four warps: resample_kernels.h).
inline std::unique_ptr<ResizeCase> make_resize_case(std::uint32_t seed, ferry_interpolation interp,
                                                    ferry_resize_mode mode, ferry_dtype dtype, int min_samples = 1) {
  auto c = std::make_unique<ResizeCase>();
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto real = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  // Image sizes: small, odd, 1-pixel sides, extreme aspect ratios.
  static constexpr int sizes[][2] = {{1, 1}, {7, 5}, {13, 17}, {1, 23}, {40, 1}, {31, 3}, {2, 29}, {24, 24}, {9, 2}};
  const int si = uniform(0, 8);
  const int W = sizes[si][0], H = sizes[si][1];
  const std::int64_t N = min_samples <= 1 ? uniform(1, 3) : uniform(min_samples, min_samples + 4);
  ferry_transform& t = c->transform;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = dtype;
  t.out_layout = uniform(0, 1) ? FERRY_LAYOUT_NCHW : FERRY_LAYOUT_NHWC;
  t.interpolation = interp;
  t.resize_mode = mode;
  t.letterbox_align = uniform(0, 1) ? FERRY_ALIGN_CENTER : FERRY_ALIGN_TOP_LEFT;
  // Output sizes: down, up, 1, odd.
  const int out_sizes[] = {1, 2, 3, 5, 8, 11, 16, 27, 64};
  t.resize_w = out_sizes[uniform(0, 8)];
  t.resize_h = out_sizes[uniform(0, 8)];
  if (mode == FERRY_RESIZE_SHORTER_SIDE) t.resize_shorter = out_sizes[uniform(0, 7)];
  int C = 3;
  std::string channels = "rgb";
  switch (uniform(0, 4)) {
    case 0: break;
    case 1: C = 3, t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0, channels = "bgr"; break;
    case 2: C = 4, t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 0, t.channel_map[2] = 3, channels = "rgba>3"; break;
    case 3: C = 1, t.out_channels = uniform(1, 3), t.channel_map[0] = t.channel_map[1] = t.channel_map[2] = 0, channels = "gray"; break;
    default: C = uniform(0, 1) ? 3 : 4, t.pad_channels_to_4 = 1, channels = "pad4"; break;
  }
  if (t.pad_channels_to_4) t.pad_value = dtype == FERRY_DTYPE_UINT8 ? 7.0f : -1.5f;
  const int OC = t.out_channels ? t.out_channels : C;
  const bool arithmetic = dtype != FERRY_DTYPE_UINT8;
  for (int k = 0; k < 4; ++k)
    t.letterbox_value[k] = arithmetic ? real(-3.0f, 3.0f) : static_cast<float>(uniform(0, 255));
  if (arithmetic) {
    t.scale = 1.0f / 255.0f;
    const float means[4] = {0.485f, 0.456f, 0.406f, 0.5f}, stds[4] = {0.229f, 0.224f, 0.225f, 0.25f};
    for (int k = 0; k < 4; ++k) t.mean[k] = means[k], t.std[k] = stds[k];
    if (uniform(0, 2) == 0) {
      for (std::int64_t i = 0; i < N * OC; ++i) {
        c->mean.push_back(static_cast<float>(uniform(-100, 100)) / 50.0f);
        c->stdev.push_back(static_cast<float>(uniform(1, 100)) / 37.0f * (uniform(0, 1) ? 1.0f : -1.0f));
      }
      t.per_sample_mean = c->mean.data();
      t.per_sample_std = c->stdev.data();
    }
  }
  std::string window = "whole";
  switch (uniform(0, 4)) {
    case 0: break;
    case 1: {
      const int cw = uniform(1, W), ch = uniform(1, H);
      t.crop = {uniform(0, W - cw), uniform(0, H - ch), cw, ch};
      window = "crop";
      break;
    }
    case 2:
      for (std::int64_t i = 0; i < N; ++i) {
        const int cw = uniform(1, W), ch = uniform(1, H);
        c->crops.push_back({uniform(0, W - cw), uniform(0, H - ch), cw, ch});
      }
      t.per_sample_crop = c->crops.data();
      window = "per_sample_crop";
      break;
    default: {
      auto draw = [&] {
        const float w = real(0.05f, static_cast<float>(W)), h = real(0.05f, static_cast<float>(H));
        float x = real(0.0f, static_cast<float>(W) - w), y = real(0.0f, static_cast<float>(H) - h);
        while (static_cast<double>(x) + w > W) x = std::nextafter(x, 0.0f);  // inside, in double as ferry checks
        while (static_cast<double>(y) + h > H) y = std::nextafter(y, 0.0f);
        return ferry_rectf{x, y, w, h};
      };
      if (uniform(0, 1)) {
        t.window = draw();
        window = "window";
      } else {
        for (std::int64_t i = 0; i < N; ++i) c->windows.push_back(draw());
        t.per_sample_window = c->windows.data();
        window = "per_sample_window";
      }
      break;
    }
  }
  switch (uniform(0, 4)) {
    case 0: break;
    case 1: t.mirror = FERRY_MIRROR_X; break;
    case 2: t.mirror = FERRY_MIRROR_Y; break;
    case 3: t.mirror = FERRY_MIRROR_X | FERRY_MIRROR_Y; break;
    default:
      for (std::int64_t i = 0; i < N; ++i) c->mirrors.push_back(static_cast<std::uint8_t>(uniform(0, 3)));
      t.per_sample_mirror = c->mirrors.data();
      break;
  }
  if (t.per_sample_mean || t.per_sample_crop || t.per_sample_mirror || t.per_sample_window) t.per_sample_count = N;

  ferry_source& s = c->source;
  ferry_source_init(&s, sizeof s);
  s.n = N, s.h = H, s.w = W, s.c = C;
  s.layout = uniform(0, 1) ? FERRY_LAYOUT_NHWC : FERRY_LAYOUT_NCHW;
  const int form = uniform(0, 2);
  fill_case_source(s, static_cast<SourceForm>(form), uniform, c->data, c->data_offset, c->sample_data,
                   c->sample_pointers);

  ferry_output& o = c->output;
  ferry_output_init(&o, sizeof o);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  if (ferry_transform_describe_output(&info, &s, &t) != FERRY_OK) return nullptr;
  c->output_bytes = info.bytes;
  const bool padded = uniform(0, 2) == 0;
  if (padded) {
    const std::int64_t e = dtype == FERRY_DTYPE_FLOAT32 ? 4 : dtype == FERRY_DTYPE_UINT8 ? 1 : 2;
    const std::int64_t OCT = t.pad_channels_to_4 ? 4 : OC;
    if (t.out_layout == FERRY_LAYOUT_NCHW) {
      o.stride_w = e;
      o.stride_h = (t.resize_w + 3) * e;
      o.stride_c = o.stride_h * t.resize_h + e;
      o.stride_n = o.stride_c * OCT + 2 * e;
    } else {
      o.stride_c = e;
      o.stride_w = OCT * e;
      o.stride_h = (t.resize_w + 3) * OCT * e;
      o.stride_n = o.stride_h * t.resize_h + e;
    }
    c->output_bytes = static_cast<std::size_t>(o.stride_n * N);
  }
  o.bytes = c->output_bytes;
  c->name = std::string(interpolation_name(interp)) + "/" + resize_mode_name(mode) + "/" +
            (dtype == FERRY_DTYPE_UINT8 ? "u8" : dtype == FERRY_DTYPE_FLOAT32 ? "f32" : dtype == FERRY_DTYPE_FLOAT16 ? "f16" : "bf16") +
            (t.out_layout == FERRY_LAYOUT_NCHW ? "/NCHW" : "/NHWC") + "/" + channels + "/" + window + "/mirror" +
            std::to_string(t.per_sample_mirror ? -1 : t.mirror) + "/form" + std::to_string(form) +
            (padded ? "/outpad" : "") + "/" + std::to_string(W) + "x" + std::to_string(H) + "->" +
            std::to_string(t.resize_w) + "x" + std::to_string(t.resize_h) + "/seed" + std::to_string(seed);
  return c;
}

// Every interpolation x mode x dtype, `reps` random cases each (seeds 1, 2, ...
// scrambled): fn(case, seed), the case NULL where ferry rejected what was drawn.
// Returns the number of cases. The CPU test against the reference and the GPU
// test against the CPU walk the same cases. min_samples: make_resize_case's.
template <typename Fn>
int for_each_resize_case(int reps, Fn&& fn, int min_samples = 1) {
  const ferry_interpolation interps[] = {FERRY_INTERP_NEAREST, FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC,
                                         FERRY_INTERP_AREA, FERRY_INTERP_LINEAR_ANTIALIAS};
  const ferry_resize_mode modes[] = {FERRY_RESIZE_STRETCH, FERRY_RESIZE_LETTERBOX, FERRY_RESIZE_SHORTER_SIDE};
  const ferry_dtype dtypes[] = {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16};
  int cases = 0;
  std::uint32_t seed = 1;
  for (ferry_interpolation m : interps)
    for (ferry_resize_mode mode : modes)
      for (ferry_dtype d : dtypes)
        for (int r = 0; r < reps; ++r, ++seed, ++cases)
          fn(make_resize_case(seed * 2654435761u, m, mode, d, min_samples), seed);
  return cases;
}

}  // namespace ferry::test
