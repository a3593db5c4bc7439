// The large-batch cases of tests/gpu/convert_many_steps_gpu_test.cpp: 1024
// images each, so that every thread of the unit kernels takes many steps:
// the pixel-stream kernel's four units a thread, and the vector kernel's
// where a call has 2^20 units or more (one a thread below), within a run and
// across run and sample ends; the window kernel's block shares across
// samples and its staged NHWC stores across row ends. Each case with the
// kernel it must take (checked without a GPU in
// tests/unit/convert/kernel_choice_test.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <random>

#include "c_api/struct_convert.h"
#include "core/convert/kernel_choice.h"
#include "ferry/ferry.h"
#include "tests/support/convert_window_cases.h"

namespace ferry::test {

inline constexpr std::int64_t kManySamples = 1024;

// crops: odd widths at any origin; aligned_crops: rows of 64 pixels starting
// on a source word (the pixel-stream kernel's runs); unit_crops: rows of 64
// pixels (whole units) at any origin, off the load width (the vector
// kernel's unaligned variant); padded: reaching outside.
enum class ManyStepsWindows { whole, crops, aligned_crops, unit_crops, padded };

struct ManyStepsSpec {
  const char* name;
  int w, h, c;
  ferry_dtype dtype;
  ferry_layout layout;
  ManyStepsWindows windows;
  bool reorder, pad_to_4, flips, sample_stats;  // sample_stats: per-sample mean/std
  core::KernelPath path;
};

inline std::unique_ptr<WindowCase> make_many_steps_case(const ManyStepsSpec& spec, std::uint32_t seed) {
  auto wc = std::make_unique<WindowCase>();
  std::mt19937 rng(seed);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  wc->name = spec.name;
  ferry_source& s = wc->source;
  ferry_source_init(&s, sizeof s);
  s.n = kManySamples, s.h = spec.h, s.w = spec.w, s.c = spec.c;
  wc->data.resize(static_cast<std::size_t>(kManySamples * spec.h * spec.w * spec.c));
  for (auto& b : wc->data) b = static_cast<std::uint8_t>(rng());
  s.data = wc->data.data();
  s.bytes = wc->data.size();

  ferry_transform& t = wc->transform;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = spec.dtype;
  t.out_layout = spec.layout;
  const bool u8 = spec.dtype == FERRY_DTYPE_UINT8;
  if (!u8)
    for (int k = 0; k < 4; ++k) t.mean[k] = 0.1f * static_cast<float>(k + 1), t.std[k] = 0.2f + 0.05f * k;
  if (spec.reorder) {
    t.out_channels = 3;
    const int bgr[3] = {2, 1, 0};
    for (int k = 0; k < 3; ++k) t.channel_map[k] = spec.c == 1 ? 0 : bgr[k];
  }
  t.pad_channels_to_4 = spec.pad_to_4;
  t.pad_value = u8 ? 11.0f : -2.5f;
  // Windows of an odd width (a partial last unit for every dtype) at random
  // origins: inside the image, or anywhere from wholly left/above to wholly
  // right/below of it.
  const std::int64_t ww = spec.w - 19, wh = spec.h - 13;
  for (std::int64_t i = 0; i < kManySamples; ++i) {
    if (spec.windows == ManyStepsWindows::crops)
      wc->crops.push_back({uniform(0, spec.w - ww), uniform(0, spec.h - wh), ww, wh});
    if (spec.windows == ManyStepsWindows::aligned_crops)
      wc->crops.push_back({4 * uniform(0, (spec.w - 64) / 4), uniform(0, spec.h - wh), 64, wh});
    if (spec.windows == ManyStepsWindows::unit_crops)
      wc->crops.push_back({uniform(0, spec.w - 64), uniform(0, spec.h - wh), 64, wh});
    if (spec.windows == ManyStepsWindows::padded)
      wc->crops.push_back({uniform(-ww - 4, spec.w + 4), uniform(-wh - 2, spec.h + 2), ww, wh});
    wc->mirrors.push_back(spec.flips ? static_cast<std::uint8_t>(uniform(0, 3)) : 0);
  }
  if (spec.windows == ManyStepsWindows::padded) {
    t.pad_outside = 1;
    t.fill_value = u8 ? 201.0f : 7.75f;
  }
  if (!wc->crops.empty()) t.per_sample_crop = wc->crops.data();
  if (spec.flips) t.per_sample_mirror = wc->mirrors.data();
  if (spec.sample_stats) {
    const int oc = spec.reorder ? 3 : spec.c;
    for (std::int64_t i = 0; i < kManySamples * oc; ++i) {
      wc->means.push_back(static_cast<float>(uniform(0, 255)) / 256.0f);
      wc->stds.push_back(0.125f + static_cast<float>(uniform(0, 63)) / 128.0f);
    }
    t.per_sample_mean = wc->means.data();
    t.per_sample_std = wc->stds.data();
  }
  if (!wc->crops.empty() || spec.flips || spec.sample_stats) t.per_sample_count = kManySamples;

  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  if (ferry_transform_describe_output(&info, &s, &t) != FERRY_OK) return nullptr;
  ferry_output_init(&wc->output, sizeof wc->output);
  wc->output.bytes = info.bytes;
  return wc;
}

// The kernel a case takes, decided from its host addresses (the GPU check
// keeps their offsets within 16 bytes) and an aligned output.
inline core::KernelPath many_steps_path(const WindowCase& c) {
  const core::SourceDesc source = api::to_core(c.source);
  const core::ConvertPlan plan = core::make_convert_plan(source, api::to_core(c.transform), nullptr);
  return core::choose_kernel(plan, core::source_view_of(plan, source), 0, plan.n,
                             reinterpret_cast<void*>(std::uintptr_t{4096}))
      .path;
}

inline const ManyStepsSpec many_steps_specs[] = {
    {"vector f32 NCHW", 96, 64, 3, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW, ManyStepsWindows::whole, false, false, false,
     false, core::KernelPath::vector},
    {"vector f16 NCHW BGRA->RGB", 96, 64, 4, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NCHW, ManyStepsWindows::whole, true,
     false, false, false, core::KernelPath::vector},
    {"vector bf16 NHWC", 96, 64, 3, FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC, ManyStepsWindows::whole, false, false,
     false, false, core::KernelPath::vector},
    {"vector f32 NCHW aligned crops (runs of 16 units)", 96, 96, 3, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::aligned_crops, false, false, false, false, core::KernelPath::vector},
    {"vector f16 NCHW 100 px (samples across chunks)", 100, 84, 3, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::whole, false, false, false, false, core::KernelPath::vector},
    {"vector f32 NCHW flips (rows mirrored per sample)", 96, 64, 3, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::whole, false, false, true, false, core::KernelPath::vector},
    {"vector f32 NCHW BGR->RGB aligned crops + flips", 96, 96, 3, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::aligned_crops, true, false, true, false, core::KernelPath::vector},
    {"vector f16 NCHW flips, rows of 40 units (a lane's units across 2-4 rows)", 320, 26, 3, FERRY_DTYPE_FLOAT16,
     FERRY_LAYOUT_NCHW, ManyStepsWindows::whole, false, false, true, false, core::KernelPath::vector},
    {"vector f32 NCHW crops at any origin", 96, 96, 3, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::unit_crops, false, false, false, false, core::KernelPath::vector},
    {"vector f16 NCHW BGR->RGB crops at any origin + flips", 96, 144, 3, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::unit_crops, true, false, true, false, core::KernelPath::vector},
    {"vector bf16 NCHW BGRA->RGB crops at any origin + flips", 96, 144, 4, FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::unit_crops, true, false, true, false, core::KernelPath::vector},
    {"vector f32 NCHW gray->RGB crops at any origin + flips, per-sample mean/std", 96, 80, 1, FERRY_DTYPE_FLOAT32,
     FERRY_LAYOUT_NCHW, ManyStepsWindows::unit_crops, true, false, true, true, core::KernelPath::vector},
    {"vector u8 NCHW gray->RGB crops at any origin + flips", 160, 288, 1, FERRY_DTYPE_UINT8, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::unit_crops, true, false, true, false, core::KernelPath::vector},
    {"vector u8 NCHW BGR->RGB", 96, 64, 3, FERRY_DTYPE_UINT8, FERRY_LAYOUT_NCHW, ManyStepsWindows::whole, true, false,
     false, false, core::KernelPath::vector},
    {"vector u8 NCHW gray->RGB, flips (2^20 units)", 128, 128, 1, FERRY_DTYPE_UINT8, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::whole, true, false, true, false, core::KernelPath::vector},
    {"vector f32 NCHW gray->RGB", 96, 64, 1, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW, ManyStepsWindows::whole, true,
     false, false, false, core::KernelPath::vector},
    {"window f32 NCHW crops + flips", 90, 64, 3, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW, ManyStepsWindows::crops, false,
     false, true, false, core::KernelPath::window},
    {"window f16 NCHW padded + flips", 90, 64, 3, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NCHW, ManyStepsWindows::padded,
     false, false, true, false, core::KernelPath::window},
    {"window f16 NHWC pad to 4 + flips", 90, 64, 3, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NHWC, ManyStepsWindows::whole,
     false, true, true, false, core::KernelPath::window},
    {"window bf16 NHWC BGR->RGB crops", 90, 64, 3, FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC, ManyStepsWindows::crops,
     true, false, true, false, core::KernelPath::window},
    {"window u8 NHWC pad to 4 padded", 90, 64, 3, FERRY_DTYPE_UINT8, FERRY_LAYOUT_NHWC, ManyStepsWindows::padded, false,
     true, true, false, core::KernelPath::window},
    {"window f32 NHWC BGRA->RGB padded", 90, 64, 4, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NHWC, ManyStepsWindows::padded,
     true, false, true, false, core::KernelPath::window},
    {"vector f16 NCHW per-sample mean/std", 96, 64, 3, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NCHW, ManyStepsWindows::whole,
     false, false, false, true, core::KernelPath::vector},
    {"window f32 NCHW crops + flips, per-sample mean/std", 90, 64, 3, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW,
     ManyStepsWindows::crops, false, false, true, true, core::KernelPath::window},
    {"window bf16 NHWC pad to 4 padded, per-sample mean/std", 90, 64, 3, FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC,
     ManyStepsWindows::padded, false, true, true, true, core::KernelPath::window},
    {"pixels f16 NHWC pad to 4", 96, 64, 3, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NHWC, ManyStepsWindows::whole, false, true,
     false, false, core::KernelPath::pixels},
    {"pixels bf16 NHWC BGR->RGB aligned crops", 96, 64, 3, FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC,
     ManyStepsWindows::aligned_crops, true, false, false, false, core::KernelPath::pixels},
    {"pixels u8 NHWC BGR->RGB", 96, 64, 3, FERRY_DTYPE_UINT8, FERRY_LAYOUT_NHWC, ManyStepsWindows::whole, true, false,
     false, false, core::KernelPath::pixels},
    {"pixels u8 NHWC pad to 4 aligned crops", 96, 64, 3, FERRY_DTYPE_UINT8, FERRY_LAYOUT_NHWC,
     ManyStepsWindows::aligned_crops, false, true, false, false, core::KernelPath::pixels},
    {"pixels f32 NHWC BGRA->RGB", 96, 64, 4, FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NHWC, ManyStepsWindows::whole, true, false,
     false, false, core::KernelPath::pixels},
    {"pixels f16 NHWC gray->RGB", 96, 64, 1, FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NHWC, ManyStepsWindows::whole, true,
     false, false, false, core::KernelPath::pixels},
    {"pixels bf16 NHWC pad to 4, per-sample mean/std", 96, 64, 3, FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC,
     ManyStepsWindows::whole, false, true, false, true, core::KernelPath::pixels},
    // gray -> RGB in each unit size (4, 8 and 16 elements: each first channel r)
    {"pixels f32 NHWC gray->RGB aligned crops, per-sample mean/std", 96, 64, 1, FERRY_DTYPE_FLOAT32,
     FERRY_LAYOUT_NHWC, ManyStepsWindows::aligned_crops, true, false, false, true, core::KernelPath::pixels},
    {"pixels bf16 NHWC gray->RGB, per-sample mean/std", 96, 64, 1, FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC,
     ManyStepsWindows::whole, true, false, false, true, core::KernelPath::pixels},
    {"pixels u8 NHWC gray->RGB aligned crops", 96, 64, 1, FERRY_DTYPE_UINT8, FERRY_LAYOUT_NHWC,
     ManyStepsWindows::aligned_crops, true, false, false, false, core::KernelPath::pixels},
};

}  // namespace ferry::test
