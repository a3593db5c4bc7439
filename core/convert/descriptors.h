// The descriptions of one conversion as core takes them: the uint8 source,
// the transform, the output, and the tensor a conversion produces. Plain
// values with their defaults; the C ABI's structs are read into these once,
// in c_api/. Enum fields hold whatever int a caller gave until the plan
// validates them (each enum's underlying type is fixed, so that is defined).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/device/device_kind.h"

namespace ferry::core {

enum class DType : int { UInt8 = 1, Float32 = 2, Float16 = 3, BFloat16 = 4 };
enum class Layout : int { NHWC = 1, NCHW = 2 };

// Mirror bits, for the batch or per sample.
constexpr int kMirrorX = 1;  // horizontal flip
constexpr int kMirrorY = 2;  // vertical flip

struct Rect {
  std::int64_t x = 0, y = 0, w = 0, h = 0;
};

// A window with fractional edges, in source pixels (pixel j covers [j, j + 1)).
struct RectF {
  float x = 0, y = 0, w = 0, h = 0;
};

// Resize (include/ferry/transform.h defines each exactly).
enum class Interpolation : int { Nearest = 1, Linear = 2, Cubic = 3, Area = 4, LinearAntialias = 5 };
enum class ResizeMode : int { Stretch = 1, Letterbox = 2, ShorterSide = 3 };
enum class LetterboxAlign : int { Center = 0, TopLeft = 1 };

// Camera and video frames (include/ferry/pixel_format.h defines each exactly).
enum class PixelFormat : int {
  Channels = 0,
  NV12 = 1,
  NV21 = 2,
  I420 = 3,
  YV12 = 4,
  YUYV = 5,
  UYVY = 6,
  BayerRGGB = 7,
  BayerBGGR = 8,
  BayerGRBG = 9,
  BayerGBRG = 10
};
enum class ColorMatrix : int { BT601 = 0, BT709 = 1, BT2020 = 2 };
enum class ColorRange : int { Limited = 0, Full = 1 };
enum class ChromaFilter : int { Nearest = 0, Linear = 1 };

// Random augmentation (include/ferry/augment.h defines each field), drawn per
// sample when a plan is built (core/convert/augment.h).
enum class AugmentCrop : int { None = 0, RandomResized = 1, Random = 2, Center = 3 };
enum class EraseFill : int { Value = 0, Random = 1 };

// The four colour operations, as jitter orders name them.
enum JitterOp : int { kBrightness = 0, kContrast = 1, kSaturation = 2, kHue = 3 };

struct AugmentDraw;

struct Augment {
  std::uint64_t seed = 0, step = 0;
  std::int64_t first_index = 0;
  AugmentCrop crop = AugmentCrop::None;
  float scale[2] = {0.08f, 1.0f};
  float ratio[2] = {3.0f / 4.0f, 4.0f / 3.0f};
  std::int64_t padding = 0;
  float flip_x_probability = 0.0f, flip_y_probability = 0.0f;
  float brightness[2] = {1, 1}, contrast[2] = {1, 1}, saturation[2] = {1, 1};
  float hue[2] = {0, 0};
  float grayscale_probability = 0.0f;
  float erase_probability = 0.0f;
  float erase_scale[2] = {0.02f, 0.33f};
  float erase_ratio[2] = {0.3f, 3.3f};
  EraseFill erase_fill = EraseFill::Value;
  float erase_value[4] = {0, 0, 0, 0};

  // Called once per plan with every sample's draw (the C ABI's `drawn`), or NULL.
  void (*report)(void* user, const AugmentDraw* draws, std::int64_t n) = nullptr;
  void* report_user = nullptr;

  bool jitters() const noexcept;      // some colour operation is on
  bool colours() const noexcept;      // jitter or grayscale may apply
};

// One sample of a batch of different sizes: pointer, readable bytes, size,
// byte strides in the batch's layout (0: packed).
struct SampleDesc {
  const void* data = nullptr;
  std::size_t bytes = 0;
  std::int64_t h = 0, w = 0;
  std::int64_t stride_c = 0, stride_h = 0, stride_w = 0;
};

// n uint8 images of h x w x c: one buffer (`data`, sample i at data + i *
// stride_n), n sample pointers (`samples`), or n samples each of its own
// size (`sample_descs`). Byte strides; 0 means packed.
struct SourceDesc {
  const void* data = nullptr;
  std::size_t bytes = 0;
  const void* const* samples = nullptr;
  std::size_t sample_bytes = 0;
  std::int64_t n = 0, h = 0, w = 0, c = 0;
  Layout layout = Layout::NHWC;
  std::int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;
  const SampleDesc* sample_descs = nullptr;  // n entries, or NULL
  // A frame format: each sample a frame whose planes lie plane_offset[p]
  // bytes from its start, plane_pitch[p] bytes a row (0s: the defaults).
  PixelFormat format = PixelFormat::Channels;
  ColorMatrix color_matrix = ColorMatrix::BT601;
  ColorRange color_range = ColorRange::Limited;
  ChromaFilter chroma_filter = ChromaFilter::Nearest;
  std::int64_t plane_offset[3] = {0, 0, 0};
  std::int64_t plane_pitch[3] = {0, 0, 0};
};

// One fused pass: window, mirror, channel map, out = (in * scale - mean) / std,
// dtype and layout change. The defaults are the C ABI's documented ones.
struct Transform {
  DType out_dtype = DType::Float32;
  Layout out_layout = Layout::NCHW;
  int out_channels = 0;  // 0: the source's c, identity map
  int channel_map[4] = {0, 1, 2, 3};
  int pad_channels_to_4 = 0;
  float pad_value = 0.0f;
  float scale = 1.0f / 255.0f;
  float mean[4] = {0, 0, 0, 0};
  float std[4] = {1, 1, 1, 1};
  const float* per_sample_mean = nullptr;
  const float* per_sample_std = nullptr;
  Rect crop;
  const Rect* per_sample_crop = nullptr;
  int mirror = 0;  // kMirrorX | kMirrorY
  const std::uint8_t* per_sample_mirror = nullptr;
  std::int64_t per_sample_count = 0;
  int pad_outside = 0;
  float fill_value = 0.0f;
  // Resize: resize_w, resize_h > 0 resample each sample's window to that size.
  std::int64_t resize_w = 0, resize_h = 0;
  Interpolation interpolation = Interpolation::Linear;
  ResizeMode resize_mode = ResizeMode::Stretch;
  std::int64_t resize_shorter = 0;
  LetterboxAlign letterbox_align = LetterboxAlign::Center;
  float letterbox_value[4] = {0, 0, 0, 0};
  RectF window;                            // w = h = 0: the crop
  const RectF* per_sample_window = nullptr;
  bool has_augment = false;  // transform.augment was given: `augment` holds it
  Augment augment;
};

// A caller's destination: `bytes` bytes at `data`, byte strides n, c, h, w
// (0: packed for the transform's layout and dtype).
struct OutputDesc {
  void* data = nullptr;
  std::size_t bytes = 0;
  std::int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;
};

// A converted tensor: dimensions and byte strides in memory-layout order
// (N,C,H,W for NCHW; N,H,W,C for NHWC); `bytes` its extent.
struct TensorDesc {
  void* data = nullptr;
  DeviceKind device_kind = DeviceKind::Cpu;
  int device_index = -1;
  DType dtype = DType::Float32;
  Layout layout = Layout::NCHW;
  int ndim = 4;
  std::int64_t shape[4] = {0, 0, 0, 0};
  std::int64_t strides[4] = {0, 0, 0, 0};
  std::size_t bytes = 0;
};

}  // namespace ferry::core
