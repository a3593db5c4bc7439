// Shared by the staging pipeline's tests (unit on the CPU, gpu on CUDA): the
// source kinds, destinations and transforms of the end-to-end matrix, and the
// expected output from the independent scalar reference (convert_reference.h).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"

namespace ferry::test {

inline std::vector<std::uint8_t> pattern_bytes(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> v(n);
  std::uint32_t x = seed * 2654435761u + 12345u;
  for (auto& b : v) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    b = static_cast<std::uint8_t>(x >> 7);
  }
  return v;
}

enum class SourceKind { kPacked, kPitched, kSamples, kFerryPinned, kRegistered, kStridedChannels };
enum class DestKind { kFerry, kCaller };
enum class TransformKind { kDefault, kUint8Bgr, kHalfCropMirror, kBf16PerSample };

inline const char* name_of(SourceKind k) {
  switch (k) {
    case SourceKind::kPacked: return "packed";
    case SourceKind::kPitched: return "pitched";
    case SourceKind::kSamples: return "samples";
    case SourceKind::kFerryPinned: return "ferry_pinned";
    case SourceKind::kRegistered: return "registered";
    case SourceKind::kStridedChannels: return "rgbx_strided";
  }
  return "?";
}

// A batch of n h x w x 3 images in one of the source kinds. The bytes live
// in `storage` (or ferry_memory_alloc_host'd memory, freed by the destructor).
struct TestSource {
  ferry_source source{};
  std::vector<std::uint8_t> storage;
  std::vector<std::vector<std::uint8_t>> sample_storage;
  std::vector<const void*> sample_pointers;
  void* pinned = nullptr;
  ferry_context_t ctx = nullptr;
  ferry_source_policy policy = FERRY_SOURCE_AUTO;

  TestSource() = default;
  TestSource(const TestSource&) = delete;
  TestSource& operator=(const TestSource&) = delete;
  ~TestSource() {
    if (pinned != nullptr) ferry_memory_free_host(ctx, pinned);
  }
};

inline std::unique_ptr<TestSource> make_source(ferry_context_t ctx, SourceKind kind, std::int64_t n, std::int64_t h,
                                               std::int64_t w, std::uint32_t seed) {
  auto t = std::make_unique<TestSource>();
  t->ctx = ctx;
  ferry_source& s = t->source;
  EXPECT_EQ(ferry_source_init(&s, sizeof s), FERRY_OK);
  s.n = n, s.h = h, s.w = w, s.c = 3;
  const std::size_t packed = static_cast<std::size_t>(h * w * 3);
  switch (kind) {
    case SourceKind::kPacked:
    case SourceKind::kRegistered:
      t->storage = pattern_bytes(packed * n, seed);
      s.data = t->storage.data(), s.bytes = t->storage.size();
      if (kind == SourceKind::kRegistered) t->policy = FERRY_SOURCE_REGISTER;
      break;
    case SourceKind::kFerryPinned: {
      EXPECT_EQ(ferry_memory_alloc_host(&t->pinned, ctx, packed * n), FERRY_OK) << ferry_last_error();
      const auto bytes = pattern_bytes(packed * n, seed);
      std::memcpy(t->pinned, bytes.data(), bytes.size());
      s.data = t->pinned, s.bytes = bytes.size();
      break;
    }
    case SourceKind::kPitched: {
      // A region of interest: rows of a wider frame, samples apart by more than a frame.
      s.stride_h = (w + 5) * 3;
      s.stride_n = s.stride_h * (h + 2) + 64;
      t->storage = pattern_bytes(static_cast<std::size_t>(s.stride_n * n), seed);
      s.data = t->storage.data(), s.bytes = t->storage.size();
      break;
    }
    case SourceKind::kStridedChannels: {
      // RGBX pixels read as RGB: no contiguous rows, gathered element by element.
      s.stride_w = 4;
      t->storage = pattern_bytes(static_cast<std::size_t>(4 * h * w * n), seed);
      s.data = t->storage.data(), s.bytes = t->storage.size();
      break;
    }
    case SourceKind::kSamples: {
      for (std::int64_t i = 0; i < n; ++i) {
        t->sample_storage.push_back(pattern_bytes(packed, seed + static_cast<std::uint32_t>(i)));
        t->sample_pointers.push_back(t->sample_storage.back().data());
      }
      s.samples = t->sample_pointers.data();
      s.sample_bytes = packed;
      break;
    }
  }
  return t;
}

// A transform with its per-sample arrays kept alive.
struct TestTransform {
  ferry_transform t{};
  std::vector<float> means, stds;
  std::vector<std::uint8_t> mirrors;
};

inline std::unique_ptr<TestTransform> make_transform(TransformKind kind, std::int64_t n, std::int64_t h, std::int64_t w) {
  auto out = std::make_unique<TestTransform>();
  ferry_transform& t = out->t;
  EXPECT_EQ(ferry_transform_init(&t, sizeof t), FERRY_OK);
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  switch (kind) {
    case TransformKind::kDefault:
      for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
      break;
    case TransformKind::kUint8Bgr:
      t.out_dtype = FERRY_DTYPE_UINT8, t.out_layout = FERRY_LAYOUT_NHWC;
      t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
      break;
    case TransformKind::kHalfCropMirror:
      t.out_dtype = FERRY_DTYPE_FLOAT16;
      t.crop = ferry_rect{1, 2, w - 3, h - 4};
      t.mirror = FERRY_MIRROR_X;
      out->mirrors.assign(static_cast<std::size_t>(n), 0);
      for (std::int64_t i = 0; i < n; i += 2) out->mirrors[static_cast<std::size_t>(i)] = FERRY_MIRROR_Y;
      t.per_sample_mirror = out->mirrors.data();
      t.per_sample_count = n;
      break;
    case TransformKind::kBf16PerSample:
      t.out_dtype = FERRY_DTYPE_BFLOAT16, t.out_layout = FERRY_LAYOUT_NHWC;
      for (std::int64_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
          out->means.push_back(mean[k] + 0.01f * static_cast<float>(i % 7));
          out->stds.push_back(stdev[k] * (1.0f + 0.02f * static_cast<float>(i % 5)));
        }
      t.per_sample_mean = out->means.data();
      t.per_sample_std = out->stds.data();
      t.per_sample_count = n;
      break;
  }
  return out;
}

// Per-sample crops (one size) with per-sample mirrors, windows reaching
// outside padded with `fill`, to `dtype`: the arrays stay the caller's.
inline ferry_transform crops_transform(const std::vector<ferry_rect>& windows, const std::vector<std::uint8_t>& mirrors,
                                       ferry_dtype dtype, float fill) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = dtype;
  t.per_sample_crop = windows.data();
  t.per_sample_mirror = mirrors.data();
  t.per_sample_count = static_cast<std::int64_t>(windows.size());
  t.pad_outside = 1;
  t.fill_value = fill;
  return t;
}

constexpr std::uint8_t kPoison = 0xCD;

// A caller's destination with padded sample strides, poisoned.
struct TestDest {
  ferry_output output{};
  std::vector<std::uint8_t> host;  // the bytes (CPU) or the expected image of them
  std::size_t bytes = 0;
};

// Describes the padded destination for (source, transform); data is left NULL.
inline ferry_output padded_output(const ferry_source& s, const ferry_transform& t, std::size_t* bytes) {
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &s, &t), FERRY_OK) << ferry_last_error();
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.stride_n = info.strides[0] + 256;  // 256 poisoned bytes after every sample
  *bytes = static_cast<std::size_t>(o.stride_n * s.n);
  o.bytes = *bytes;
  return o;
}

// The expected bytes of `bytes` bytes of output `o` (poison where nothing is written).
inline std::vector<std::uint8_t> expected_output(const ferry_source& s, const ferry_transform& t, const ferry_output& o,
                                                 std::size_t bytes) {
  std::vector<std::uint8_t> expected(bytes, kPoison);
  reference_convert(s, t, o, expected.data());
  return expected;
}

// The index of the first differing byte, or -1.
inline long long first_difference(const std::uint8_t* a, const std::uint8_t* b, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i)
    if (a[i] != b[i]) return static_cast<long long>(i);
  return -1;
}

}  // namespace ferry::test
