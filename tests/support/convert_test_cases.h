// Conversion test cases shared by the CPU tests (against a scalar reference)
// and the GPU tests (against the CPU backend): every combination of dtype x
// output layout x channel map x crop x mirror x per-sample mean/std x source
// layout x source form (packed, pitched and unaligned, sample pointers) x
// output strides, on awkward sizes, with random input.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"

namespace ferry::test {

enum class ChannelCase { identity, bgr_to_rgb, bgra_to_rgb, rgba_to_rgb, gray_to_rgb, pad_to_4, count };
enum class CropCase { none, batch, per_sample, outside_padded, count };
enum class MirrorCase { none, x, y, xy, per_sample, count };
enum class SourceForm { packed, pitched_unaligned, sample_pointers, count };

struct CaseKey {
  ferry_dtype dtype;
  ferry_layout out_layout;
  ChannelCase channels;
  CropCase crop;
  MirrorCase mirror;
  bool per_sample_norm;
  ferry_layout src_layout;
  SourceForm form;
  bool padded_output;
  int size_index;  // which awkward size
};

// A case owns every buffer its structs point into; it never moves (unique_ptr).
struct ConvertCase {
  CaseKey key{};
  std::string name;
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};          // data NULL: the user of the case supplies it
  std::vector<std::uint8_t> data;  // the data form's buffer (with leading slack)
  std::size_t data_offset = 0;     // source.data = data.data() + data_offset
  std::vector<std::vector<std::uint8_t>> sample_data;
  std::vector<const void*> sample_pointers;
  std::vector<float> mean, stdev;
  std::vector<ferry_rect> crops;
  std::vector<std::uint8_t> mirrors;
  std::size_t output_bytes = 0;
};

inline const char* dtype_name(ferry_dtype d) {
  switch (d) {
    case FERRY_DTYPE_UINT8: return "u8";
    case FERRY_DTYPE_FLOAT32: return "f32";
    case FERRY_DTYPE_FLOAT16: return "f16";
    case FERRY_DTYPE_BFLOAT16: return "bf16";
  }
  return "?";
}

inline std::int64_t element_size(ferry_dtype d) {
  return d == FERRY_DTYPE_FLOAT32 ? 4 : d == FERRY_DTYPE_UINT8 ? 1 : 2;
}

// Image sizes (w x h): 1x1, widths not a multiple of 16, tall and thin, wide.
inline constexpr int case_sizes[][2] = {{1, 1}, {17, 5}, {3, 11}, {33, 4}, {300, 2}};
inline constexpr int case_size_count = 5;

// Fills `s` (n, h, w, c and layout set) with random bytes in `form`: packed;
// pitched (rows padded by 5 bytes, samples 3 bytes apart, an odd base); or
// sample pointers (odd addresses for half of them). The buffers are the caller's.
template <typename Uniform>
void fill_case_source(ferry_source& s, SourceForm form, Uniform&& uniform, std::vector<std::uint8_t>& data,
                      std::size_t& data_offset, std::vector<std::vector<std::uint8_t>>& sample_data,
                      std::vector<const void*>& sample_pointers) {
  const std::int64_t N = s.n, H = s.h, W = s.w, C = s.c;
  std::int64_t sample_bytes = static_cast<std::int64_t>(H) * W * C;
  if (form == SourceForm::pitched_unaligned) {
    // Padded rows (a pitch of width + 5 pixels' worth), samples 3 bytes apart, an odd base.
    if (s.layout == FERRY_LAYOUT_NHWC) {
      s.stride_h = static_cast<std::int64_t>(W) * C + 5;
      sample_bytes = s.stride_h * H;
    } else {
      s.stride_h = W + 5;
      s.stride_c = s.stride_h * H + 2;
      sample_bytes = s.stride_c * C;
    }
    s.stride_n = sample_bytes + 3;
    data_offset = 1;
  }
  const std::int64_t stride_n = s.stride_n ? s.stride_n : sample_bytes;
  if (form == SourceForm::sample_pointers) {
    sample_data.resize(static_cast<std::size_t>(N));
    for (auto& buf : sample_data) {
      buf.resize(static_cast<std::size_t>(sample_bytes) + 1);
      for (auto& b : buf) b = static_cast<std::uint8_t>(uniform(0, 255));
    }
    for (std::int64_t i = 0; i < N; ++i)  // odd sample addresses for half of them
      sample_pointers.push_back(sample_data[static_cast<std::size_t>(i)].data() + (i & 1));
    s.samples = sample_pointers.data();
    s.sample_bytes = static_cast<std::size_t>(sample_bytes);
  } else {
    data.resize(data_offset + static_cast<std::size_t>(stride_n * N));
    for (auto& b : data) b = static_cast<std::uint8_t>(uniform(0, 255));
    s.data = data.data() + data_offset;
    s.bytes = static_cast<std::size_t>(stride_n * N);
  }
}

inline std::unique_ptr<ConvertCase> make_case(const CaseKey& key, std::uint32_t seed) {
  auto c = std::make_unique<ConvertCase>();
  c->key = key;
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int W = case_sizes[key.size_index][0], H = case_sizes[key.size_index][1];
  const std::int64_t N = 3;
  int C = 3;
  ferry_transform& t = c->transform;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = key.dtype;
  t.out_layout = key.out_layout;
  switch (key.channels) {
    case ChannelCase::identity: C = 3; break;
    case ChannelCase::bgr_to_rgb: C = 3, t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0; break;
    case ChannelCase::bgra_to_rgb: C = 4, t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0; break;
    case ChannelCase::rgba_to_rgb: C = 4, t.out_channels = 3, t.channel_map[0] = 0, t.channel_map[1] = 1, t.channel_map[2] = 2; break;
    case ChannelCase::gray_to_rgb: C = 1, t.out_channels = 3, t.channel_map[0] = t.channel_map[1] = t.channel_map[2] = 0; break;
    case ChannelCase::pad_to_4: C = 3, t.pad_channels_to_4 = 1; t.pad_value = key.dtype == FERRY_DTYPE_UINT8 ? 7.0f : -1.5f; break;
    default: break;
  }
  const int OC = t.out_channels ? t.out_channels : C;
  const bool arithmetic = key.dtype != FERRY_DTYPE_UINT8;
  if (arithmetic) {
    const float means[4] = {0.485f, 0.456f, 0.406f, 0.5f}, stds[4] = {0.229f, 0.224f, 0.225f, 0.25f};
    for (int k = 0; k < 4; ++k) t.mean[k] = means[k], t.std[k] = stds[k];
    if (key.per_sample_norm) {
      for (std::int64_t i = 0; i < N * OC; ++i) {
        c->mean.push_back(static_cast<float>(uniform(-100, 100)) / 50.0f);
        c->stdev.push_back(static_cast<float>(uniform(1, 100)) / 37.0f * (uniform(0, 1) ? 1.0f : -1.0f));
      }
      t.per_sample_mean = c->mean.data();
      t.per_sample_std = c->stdev.data();
    }
  }
  switch (key.crop) {
    case CropCase::none: break;
    case CropCase::batch: {
      const int cw = std::max(1, W * 2 / 3), ch = std::max(1, H / 2);
      t.crop = {uniform(0, W - cw), uniform(0, H - ch), cw, ch};
      break;
    }
    case CropCase::per_sample: {
      const int cw = std::max(1, W - 1), ch = std::max(1, H - 1);
      for (std::int64_t i = 0; i < N; ++i) c->crops.push_back({uniform(0, W - cw), uniform(0, H - ch), cw, ch});
      t.per_sample_crop = c->crops.data();
      break;
    }
    case CropCase::outside_padded:
      t.crop = {-2, -1, W + 3, H + 2};
      t.pad_outside = 1;
      t.fill_value = arithmetic ? 9.25f : 200.0f;
      break;
    default: break;
  }
  switch (key.mirror) {
    case MirrorCase::none: break;
    case MirrorCase::x: t.mirror = FERRY_MIRROR_X; break;
    case MirrorCase::y: t.mirror = FERRY_MIRROR_Y; break;
    case MirrorCase::xy: t.mirror = FERRY_MIRROR_X | FERRY_MIRROR_Y; break;
    case MirrorCase::per_sample:
      for (std::int64_t i = 0; i < N; ++i) c->mirrors.push_back(static_cast<std::uint8_t>(i % 4));
      t.per_sample_mirror = c->mirrors.data();
      break;
    default: break;
  }
  if (t.per_sample_mean || t.per_sample_crop || t.per_sample_mirror) t.per_sample_count = N;

  ferry_source& s = c->source;
  ferry_source_init(&s, sizeof s);
  s.n = N, s.h = H, s.w = W, s.c = C;
  s.layout = key.src_layout;
  fill_case_source(s, key.form, uniform, c->data, c->data_offset, c->sample_data, c->sample_pointers);

  ferry_output& o = c->output;
  ferry_output_init(&o, sizeof o);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  if (ferry_transform_describe_output(&info, &s, &t) != FERRY_OK) return nullptr;
  c->output_bytes = info.bytes;
  if (key.padded_output) {
    // Rows padded by 3 elements, planes / samples by one more row's worth.
    const std::int64_t e = element_size(key.dtype);
    const std::int64_t OCT = t.pad_channels_to_4 ? 4 : OC;
    const std::int64_t ow = info.layout == FERRY_LAYOUT_NCHW ? info.shape[3] : info.shape[2];
    const std::int64_t oh = info.layout == FERRY_LAYOUT_NCHW ? info.shape[2] : info.shape[1];
    if (key.out_layout == FERRY_LAYOUT_NCHW) {
      o.stride_w = e;
      o.stride_h = (ow + 3) * e;
      o.stride_c = o.stride_h * oh + e;
      o.stride_n = o.stride_c * OCT + 2 * e;
    } else {
      o.stride_c = e;
      o.stride_w = OCT * e;
      o.stride_h = (ow + 3) * OCT * e;
      o.stride_n = o.stride_h * oh + e;
    }
    c->output_bytes = static_cast<std::size_t>(o.stride_n * N);
  }
  o.bytes = c->output_bytes;
  c->name = std::string(dtype_name(key.dtype)) + (key.out_layout == FERRY_LAYOUT_NCHW ? "/NCHW" : "/NHWC") +
            "/ch" + std::to_string(static_cast<int>(key.channels)) + "/crop" +
            std::to_string(static_cast<int>(key.crop)) + "/mirror" + std::to_string(static_cast<int>(key.mirror)) +
            (key.per_sample_norm ? "/psnorm" : "") + (key.src_layout == FERRY_LAYOUT_NCHW ? "/srcNCHW" : "/srcNHWC") +
            "/form" + std::to_string(static_cast<int>(key.form)) + (key.padded_output ? "/outpad" : "") + "/" +
            std::to_string(W) + "x" + std::to_string(H);
  return c;
}

// Calls fn(key, index) for every combination (uint8 output skips per-sample
// normalization, which it rejects).
template <typename Fn>
void for_each_case_key(Fn&& fn) {
  const ferry_dtype dtypes[] = {FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16, FERRY_DTYPE_UINT8};
  const ferry_layout layouts[] = {FERRY_LAYOUT_NCHW, FERRY_LAYOUT_NHWC};
  int index = 0;
  for (ferry_dtype d : dtypes)
    for (ferry_layout ol : layouts)
      for (int ch = 0; ch < static_cast<int>(ChannelCase::count); ++ch)
        for (int cr = 0; cr < static_cast<int>(CropCase::count); ++cr)
          for (int mi = 0; mi < static_cast<int>(MirrorCase::count); ++mi)
            for (int ps = 0; ps < 2; ++ps) {
              if (ps && d == FERRY_DTYPE_UINT8) continue;
              for (ferry_layout sl : layouts)
                for (int fo = 0; fo < static_cast<int>(SourceForm::count); ++fo)
                  for (int po = 0; po < 2; ++po) {
                    CaseKey k{d, ol, static_cast<ChannelCase>(ch), static_cast<CropCase>(cr),
                              static_cast<MirrorCase>(mi), ps != 0, sl, static_cast<SourceForm>(fo), po != 0,
                              index % case_size_count};
                    fn(k, index++);
                  }
            }
}

}  // namespace ferry::test
