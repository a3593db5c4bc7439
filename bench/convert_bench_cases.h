// The rows of ferry_bench_convert's kernel table (issue 12): each case of the
// measured table, and each case the window kernel added, on n x h x w uint8
// NHWC images already on the device. A case knows the bytes its kernel reads
// (the window's pixels inside the image) and writes, its target against a
// D2D copy of those bytes (0.9 for the base cases, 0.85 for the rest), and
// which kernel takes it (core/convert/kernel_choice.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/kernel_choice.h"
#include "ferry/ferry.h"

namespace ferry::bench {

inline constexpr double kBaseTarget = 0.90, kTarget = 0.85;

struct KernelCase {
  std::string name;
  double target = kTarget;
  std::int64_t n = 0, h = 0, w = 0, c = 3;
  ferry_transform transform{};
  std::vector<ferry_rect> crops;       // per sample, or empty
  std::vector<std::uint8_t> mirrors;   // per sample, or empty
  ferry_source source{};
  ferry_output output{};

  std::size_t input_bytes() const { return static_cast<std::size_t>(n * h * w * c); }
  std::size_t output_bytes() const {
    ferry_source s = source_desc(nullptr);
    ferry_transform t = transform;
    point_tables(t);
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    return ferry_transform_describe_output(&info, &s, &t) == FERRY_OK ? info.bytes : 0;
  }
  // The source bytes the kernel reads: each window's pixels inside the image.
  std::size_t bytes_read() const {
    std::int64_t px = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const ferry_rect r = window(i);
      const std::int64_t x0 = std::max<std::int64_t>(0, r.x), x1 = std::min<std::int64_t>(w, r.x + r.w);
      const std::int64_t y0 = std::max<std::int64_t>(0, r.y), y1 = std::min<std::int64_t>(h, r.y + r.h);
      px += std::max<std::int64_t>(0, x1 - x0) * std::max<std::int64_t>(0, y1 - y0);
    }
    return static_cast<std::size_t>(px * c);
  }
  // Points the case at device buffers (and its structs at its own tables).
  void bind(const void* in, void* out) {
    source = source_desc(in);
    point_tables(transform);
    ferry_output_init(&output, sizeof output);
    output.data = out;
    output.bytes = output_bytes();
  }
  const char* kernel_path() const {
    const core::SourceDesc s = api::to_core(source);
    const core::OutputDesc o = api::to_core(output);
    const core::ConvertPlan plan = core::make_convert_plan(s, api::to_core(transform), &o);
    return core::kernel_path_name(
        core::choose_kernel(plan, core::source_view_of(plan, s), 0, plan.n, output.data).path);
  }

 private:
  ferry_source source_desc(const void* data) const {
    ferry_source s;
    ferry_source_init(&s, sizeof s);
    s.data = data != nullptr ? data : reinterpret_cast<const void*>(std::uintptr_t{256});
    s.bytes = input_bytes();
    s.n = n, s.h = h, s.w = w, s.c = c;
    return s;
  }
  void point_tables(ferry_transform& t) const {
    t.per_sample_crop = crops.empty() ? nullptr : crops.data();
    t.per_sample_mirror = mirrors.empty() ? nullptr : mirrors.data();
    t.per_sample_count = crops.empty() && mirrors.empty() ? 0 : n;
  }
  ferry_rect window(std::int64_t i) const {
    if (!crops.empty()) return crops[static_cast<std::size_t>(i)];
    const ferry_rect& r = transform.crop;
    return r.w == 0 ? ferry_rect{0, 0, w, h} : r;
  }
};

inline std::vector<KernelCase> kernel_cases(std::int64_t n, std::int64_t h, std::int64_t w) {
  std::vector<KernelCase> cases;
  std::mt19937 rng(12);
  auto add = [&](const char* name, double target, int c, ferry_dtype dtype, ferry_layout layout) -> KernelCase& {
    KernelCase k;
    k.name = name, k.target = target, k.n = n, k.h = h, k.w = w, k.c = c;
    ferry_transform_init(&k.transform, sizeof k.transform);
    k.transform.out_dtype = dtype;
    k.transform.out_layout = layout;
    if (dtype != FERRY_DTYPE_UINT8) {
      const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
      for (int j = 0; j < 3; ++j) k.transform.mean[j] = mean[j], k.transform.std[j] = stdev[j];
    }
    cases.push_back(std::move(k));
    return cases.back();
  };
  auto to_rgb = [](KernelCase& k) {
    k.transform.out_channels = 3;
    k.transform.channel_map[0] = k.c == 1 ? 0 : 2, k.transform.channel_map[1] = k.c == 1 ? 0 : 1;
    k.transform.channel_map[2] = 0;
  };
  const auto F32 = FERRY_DTYPE_FLOAT32, F16 = FERRY_DTYPE_FLOAT16, BF16 = FERRY_DTYPE_BFLOAT16, U8 = FERRY_DTYPE_UINT8;
  const auto NCHW = FERRY_LAYOUT_NCHW, NHWC = FERRY_LAYOUT_NHWC;
  const std::int64_t cw = w * 7 / 8 / 16 * 16, ch = h * 7 / 8 / 16 * 16;  // 192 of 224

  add("f32 NCHW normalize", kBaseTarget, 3, F32, NCHW);
  add("f16 NCHW", kBaseTarget, 3, F16, NCHW);
  add("bf16 NHWC", kBaseTarget, 3, BF16, NHWC);
  to_rgb(add("BGR->RGB f32 NCHW", kBaseTarget, 3, F32, NCHW));
  to_rgb(add("BGRA->RGB f32 NCHW", kBaseTarget, 4, F32, NCHW));
  to_rgb(add("gray->RGB f32 NCHW", kBaseTarget, 1, F32, NCHW));
  add("center crop f32 NCHW", kBaseTarget, 3, F32, NCHW).transform.crop = {(w - cw) / 2, (h - ch) / 2, cw, ch};
  add("mirror X f32 NCHW", kTarget, 3, F32, NCHW).transform.mirror = 1;
  add("mirror Y f32 NCHW", kTarget, 3, F32, NCHW).transform.mirror = 2;
  {
    KernelCase& k = add("per-sample random flip f32 NCHW", kTarget, 3, F32, NCHW);
    for (std::int64_t i = 0; i < n; ++i) k.mirrors.push_back(static_cast<std::uint8_t>(rng() % 2));
  }
  {
    KernelCase& k = add("per-sample random crop f32 NCHW", kTarget, 3, F32, NCHW);
    for (std::int64_t i = 0; i < n; ++i)
      k.crops.push_back({static_cast<std::int64_t>(rng() % (w - cw + 1)), static_cast<std::int64_t>(rng() % (h - ch + 1)),
                         cw, ch});
  }
  {
    KernelCase& k = add("crop outside, padded f32 NCHW", kTarget, 3, F32, NCHW);
    k.transform.crop = {-16, -16, w + 32, h + 32};
    k.transform.pad_outside = 1;
  }
  add("f16 NHWC pad to 4", kTarget, 3, F16, NHWC).transform.pad_channels_to_4 = 1;
  {
    KernelCase& k = add("f16 NCHW BGRA->RGB mirror Y (GL readback)", kTarget, 4, F16, NCHW);
    to_rgb(k);
    k.transform.mirror = 2;
  }
  // Cases the window kernel added.
  to_rgb(add("BGR->RGB bf16 NHWC", kTarget, 3, BF16, NHWC));
  to_rgb(add("BGR->RGB u8 NCHW", kTarget, 3, U8, NCHW));
  add("u8 NHWC pad to 4", kTarget, 3, U8, NHWC).transform.pad_channels_to_4 = 1;
  // NHWC output other than the input stream (the pixel-stream kernel's other shapes).
  to_rgb(add("BGRA->RGB f16 NHWC", kTarget, 4, F16, NHWC));
  to_rgb(add("gray->RGB bf16 NHWC", kTarget, 1, BF16, NHWC));
  {
    KernelCase& k = add("per-sample crop + flip f16 NCHW", kTarget, 3, F16, NCHW);
    for (std::int64_t i = 0; i < n; ++i) {
      k.crops.push_back({static_cast<std::int64_t>(rng() % (w - cw + 1)), static_cast<std::int64_t>(rng() % (h - ch + 1)),
                         cw, ch});
      k.mirrors.push_back(static_cast<std::uint8_t>(rng() % 4));
    }
  }
  return cases;
}

}  // namespace ferry::bench
