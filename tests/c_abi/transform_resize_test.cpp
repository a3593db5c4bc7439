// The resize fields of ferry_transform through the C ABI: each bad value has
// its own status and a message naming the field (and the sample of a
// per-sample array); a 0.2.0-sized transform (no resize fields) converts as
// before; and ferry_batch_submit on the CPU backend (chunks of several
// samples, pageable data and samples forms, per-sample windows of different
// sizes) gives what ferry_transform_apply gives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "c_api/struct_versions.h"
#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"
#include "tests/support/convert_resize_cases.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

// Three 8x6 RGB samples resized to 4x3 float32, on a CPU context.
struct ResizeCall {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  std::vector<std::uint8_t> pixels = std::vector<std::uint8_t>(3 * 6 * 8 * 3, 90);
  std::vector<std::uint8_t> out = std::vector<std::uint8_t>(3 * 3 * 3 * 4 * 4, 0);
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};

  ResizeCall() {
    ferry_source_init(&source, sizeof source);
    source.data = pixels.data();
    source.bytes = pixels.size();
    source.n = 3, source.h = 6, source.w = 8, source.c = 3;
    ferry_transform_init(&transform, sizeof transform);
    transform.resize_w = 4, transform.resize_h = 3;
    ferry_output_init(&output, sizeof output);
    output.data = out.data();
    output.bytes = out.size();
  }
  ~ResizeCall() { ferry_context_destroy(ctx); }

  ferry_status apply() { return ferry_transform_apply(ctx, &source, &transform, &output, nullptr); }
};

struct BadCase {
  const char* what;
  std::function<void(ResizeCall&)> change;
  ferry_status status;
  std::vector<std::string> message_has;
};

const ferry_rectf good_windows[3] = {{0, 0, 8, 6}, {1.5f, 0.25f, 4, 3}, {0, 0, 2, 2}};
ferry_rectf bad_windows[3];

}  // namespace

TEST(TransformResize, TheDefaultsConvertAndTheValidCallWorks) {
  ResizeCall call;
  ASSERT_EQ(call.apply(), FERRY_OK) << ferry_last_error();
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_transform_describe_output(&info, &call.source, &call.transform), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(info.shape[0], 3);
  EXPECT_EQ(info.shape[1], 3);
  EXPECT_EQ(info.shape[2], 3);  // h
  EXPECT_EQ(info.shape[3], 4);  // w
  EXPECT_EQ(info.bytes, 3u * 3 * 3 * 4 * 4);
}

TEST(TransformResize, EachBadValueHasItsStatusAndNamesTheField) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<BadCase> cases = {
      {"resize_w 0 with resize_h > 0", [](ResizeCall& c) { c.transform.resize_w = 0; }, FERRY_ERR_INVALID_ARGUMENT,
       {"transform.resize_w", "positive"}},
      {"resize_h 0 with resize_w > 0", [](ResizeCall& c) { c.transform.resize_h = 0; }, FERRY_ERR_INVALID_ARGUMENT,
       {"transform.resize_h"}},
      {"negative resize_w", [](ResizeCall& c) { c.transform.resize_w = -4; }, FERRY_ERR_INVALID_ARGUMENT,
       {"transform.resize_w", "-4"}},
      {"negative resize_h", [](ResizeCall& c) { c.transform.resize_h = -1; }, FERRY_ERR_INVALID_ARGUMENT,
       {"transform.resize_h", "-1"}},
      {"resize_w over 2^30", [](ResizeCall& c) { c.transform.resize_w = (std::int64_t{1} << 30) + 1; },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.resize_w", "larger than"}},
      {"resize_h over 2^30", [](ResizeCall& c) { c.transform.resize_h = std::int64_t{1} << 40; },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.resize_h"}},
      {"a window of zero width", [](ResizeCall& c) { c.transform.window = {1, 1, 0, 2}; },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.window", "positive area"}},
      {"a window of negative height", [](ResizeCall& c) { c.transform.window = {1, 1, 2, -2}; },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.window", "positive area"}},
      {"a window past the right edge", [](ResizeCall& c) { c.transform.window = {6.5f, 0, 2, 2}; },
       FERRY_ERR_OUT_OF_RANGE, {"transform.window", "inside the 8x6 image"}},
      {"a window left of the image", [](ResizeCall& c) { c.transform.window = {-0.5f, 0, 2, 2}; },
       FERRY_ERR_OUT_OF_RANGE, {"transform.window"}},
      {"a window with a NaN", [](ResizeCall& c) { c.transform.window = {0, std::nanf(""), 2, 2}; },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.window", "finite"}},
      {"a window with an infinite size", [inf](ResizeCall& c) { c.transform.window = {0, 0, inf, 2}; },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.window", "finite"}},
      {"a per-sample window outside its image",
       [](ResizeCall& c) {
         std::copy(good_windows, good_windows + 3, bad_windows);
         bad_windows[2] = {0, 5, 2, 2};
         c.transform.per_sample_window = bad_windows;
         c.transform.per_sample_count = 3;
       },
       FERRY_ERR_OUT_OF_RANGE, {"transform.per_sample_window[2]"}},
      {"a per-sample window of zero area",
       [](ResizeCall& c) {
         std::copy(good_windows, good_windows + 3, bad_windows);
         bad_windows[1] = {1, 1, 3, 0};
         c.transform.per_sample_window = bad_windows;
         c.transform.per_sample_count = 3;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_window[1]", "positive area"}},
      {"a per-sample window that is not finite",
       [inf](ResizeCall& c) {
         std::copy(good_windows, good_windows + 3, bad_windows);
         bad_windows[1] = {inf, 1, 3, 1};
         c.transform.per_sample_window = bad_windows;
         c.transform.per_sample_count = 3;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_window[1]", "finite"}},
      {"per_sample_window with per_sample_count != n",
       [](ResizeCall& c) {
         c.transform.per_sample_window = good_windows;
         c.transform.per_sample_count = 2;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_count", "2"}},
      {"a per-sample crop of zero area",
       [](ResizeCall& c) {
         static const ferry_rect crops[3] = {{0, 0, 8, 6}, {0, 0, 3, 3}, {2, 2, 0, 1}};
         c.transform.per_sample_crop = crops;
         c.transform.per_sample_count = 3;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.per_sample_crop[2]"}},
      {"a per-sample crop outside its image",
       [](ResizeCall& c) {
         static const ferry_rect crops[3] = {{0, 0, 8, 6}, {6, 0, 3, 3}, {2, 2, 1, 1}};
         c.transform.per_sample_crop = crops;
         c.transform.per_sample_count = 3;
       },
       FERRY_ERR_OUT_OF_RANGE, {"transform.per_sample_crop[1]", "inside the 8x6 image"}},
      {"an unknown interpolation", [](ResizeCall& c) { c.transform.interpolation = static_cast<ferry_interpolation>(9); },
       FERRY_ERR_UNSUPPORTED, {"transform.interpolation", "9", "FERRY_INTERP_AREA"}},
      {"interpolation 0", [](ResizeCall& c) { c.transform.interpolation = static_cast<ferry_interpolation>(0); },
       FERRY_ERR_UNSUPPORTED, {"transform.interpolation"}},
      {"an unknown resize_mode", [](ResizeCall& c) { c.transform.resize_mode = static_cast<ferry_resize_mode>(4); },
       FERRY_ERR_UNSUPPORTED, {"transform.resize_mode", "FERRY_RESIZE_LETTERBOX"}},
      {"an unknown letterbox_align",
       [](ResizeCall& c) { c.transform.letterbox_align = static_cast<ferry_letterbox_align>(2); },
       FERRY_ERR_UNSUPPORTED, {"transform.letterbox_align", "FERRY_ALIGN_TOP_LEFT"}},
      {"SHORTER_SIDE with resize_shorter 0", [](ResizeCall& c) { c.transform.resize_mode = FERRY_RESIZE_SHORTER_SIDE; },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.resize_shorter"}},
      {"SHORTER_SIDE with a negative resize_shorter",
       [](ResizeCall& c) {
         c.transform.resize_mode = FERRY_RESIZE_SHORTER_SIDE;
         c.transform.resize_shorter = -3;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.resize_shorter", "-3"}},
      {"SHORTER_SIDE making a narrow window's longer side over 2^30",
       [](ResizeCall& c) {
         c.transform.resize_mode = FERRY_RESIZE_SHORTER_SIDE;
         c.transform.resize_shorter = 64;
         c.transform.window = {1, 1, 1e-7f, 4};  // 64 * 4 / 1e-7 = 2.56e9
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.window", "transform.resize_shorter", "larger than"}},
      {"pad_outside with resize", [](ResizeCall& c) { c.transform.pad_outside = 1; }, FERRY_ERR_UNSUPPORTED,
       {"transform.pad_outside", "FERRY_RESIZE_LETTERBOX"}},
      {"AREA shrinking by more than 256",
       [](ResizeCall& c) {
         c.pixels.assign(3 * 600 * 2 * 3, 1);
         c.source.data = c.pixels.data();
         c.source.bytes = c.pixels.size();
         c.source.w = 600, c.source.h = 2;
         c.transform.resize_w = 2, c.transform.resize_h = 2;
         c.transform.interpolation = FERRY_INTERP_AREA;
       },
       FERRY_ERR_UNSUPPORTED, {"600x2", "256", "AREA and LINEAR_ANTIALIAS"}},
      {"LINEAR_ANTIALIAS shrinking a per-sample window by more than 256",
       [](ResizeCall& c) {
         static std::vector<ferry_rectf> windows;
         c.pixels.assign(3 * 600 * 2 * 3, 1);
         c.source.data = c.pixels.data();
         c.source.bytes = c.pixels.size();
         c.source.w = 600, c.source.h = 2;
         windows = {{0, 0, 10, 2}, {0, 0, 600, 2}, {0, 0, 1, 1}};
         c.transform.per_sample_window = windows.data();
         c.transform.per_sample_count = 3;
         c.transform.resize_w = 2, c.transform.resize_h = 2;
         c.transform.interpolation = FERRY_INTERP_LINEAR_ANTIALIAS;
       },
       FERRY_ERR_UNSUPPORTED, {"transform.per_sample_window[1]", "256"}},
      {"window set without resize",
       [](ResizeCall& c) {
         c.transform.resize_w = c.transform.resize_h = 0;
         c.transform.window = {0, 0, 2, 2};
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.window", "resize_w"}},
      {"per_sample_window set without resize",
       [](ResizeCall& c) {
         c.transform.resize_w = c.transform.resize_h = 0;
         c.transform.per_sample_window = good_windows;
         c.transform.per_sample_count = 3;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"per_sample_window", "resize_w"}},
      {"uint8 output with a non-integer letterbox_value",
       [](ResizeCall& c) {
         c.transform.out_dtype = FERRY_DTYPE_UINT8;
         c.transform.letterbox_value[1] = 2.5f;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.letterbox_value", "2.5"}},
      {"uint8 output with a letterbox_value over 255",
       [](ResizeCall& c) {
         c.transform.out_dtype = FERRY_DTYPE_UINT8;
         c.transform.letterbox_value[0] = 256.0f;
       },
       FERRY_ERR_INVALID_ARGUMENT, {"transform.letterbox_value"}},
      {"a letterbox_value that is not finite",
       [inf](ResizeCall& c) { c.transform.letterbox_value[2] = -inf; }, FERRY_ERR_INVALID_ARGUMENT,
       {"transform.letterbox_value[2]", "finite"}},
      {"a whole-image crop with an origin",
       [](ResizeCall& c) { c.transform.crop = {1, 0, 0, 0}; }, FERRY_ERR_INVALID_ARGUMENT, {"transform.crop"}},
      {"an output too small for the resized size",
       [](ResizeCall& c) { c.output.bytes = 3 * 3 * 3 * 4 * 4 - 1; }, FERRY_ERR_OUTPUT_TOO_SMALL,
       {"output.bytes"}},
  };
  for (const BadCase& bad : cases) {
    ResizeCall call;
    bad.change(call);
    EXPECT_EQ(call.apply(), bad.status) << bad.what << ": " << ferry_last_error();
    const std::string message = ferry_last_error();
    for (const std::string& part : bad.message_has)
      EXPECT_NE(message.find(part), std::string::npos) << bad.what << ": \"" << message << "\" lacks \"" << part << "\"";
    // The same from describe_output (no output to check) and from a submit.
    if (bad.status != FERRY_ERR_OUTPUT_TOO_SMALL) {
      ferry_tensor_info info;
      ferry_tensor_info_init(&info, sizeof info);
      EXPECT_EQ(ferry_transform_describe_output(&info, &call.source, &call.transform), bad.status) << bad.what;
    }
    ferry_batch_t batch = nullptr;
    EXPECT_EQ(ferry_batch_submit(&batch, call.ctx, &call.source, &call.transform, &call.output, nullptr), bad.status)
        << bad.what << ": " << ferry_last_error();
    if (batch != nullptr) ferry_batch_release(batch);
  }
}

// A transform of ferry 0.2.0's size ends before the resize fields: whatever
// lies past it is not read, and the conversion is the unresized one.
TEST(TransformResize, A020SizedTransformConvertsAsBefore) {
  static_assert(sizeof(ferry::api::v2::transform) == 168, "0.2.0's ferry_transform is 168 bytes on x86-64");
  ResizeCall call;
  call.transform.resize_w = call.transform.resize_h = 0;
  for (std::size_t b = 0; b < call.pixels.size(); ++b) call.pixels[b] = static_cast<std::uint8_t>(b * 37 + 1);
  call.out.assign(3 * 3 * 6 * 8 * 4, 0xAB);
  call.output.data = call.out.data();
  call.output.bytes = call.out.size();
  ASSERT_EQ(call.apply(), FERRY_OK) << ferry_last_error();
  const std::vector<std::uint8_t> want = call.out;

  ferry_transform old = call.transform;
  old.struct_size = sizeof(ferry::api::v2::transform);
  old.resize_w = 2, old.resize_h = 2;  // past 0.2.0's end: never read
  old.interpolation = static_cast<ferry_interpolation>(77);
  old.window = {1, 1, 1, 1};
  std::vector<std::uint8_t> got(call.out.size(), 0xAB);
  call.output.data = got.data();
  ASSERT_EQ(ferry_transform_apply(call.ctx, &call.source, &old, &call.output, nullptr), FERRY_OK)
      << ferry_last_error();
  EXPECT_EQ(got, want);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_transform_describe_output(&info, &call.source, &old), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(info.shape[2], 6);
  EXPECT_EQ(info.shape[3], 8);
}

// --- the pipeline ---

namespace {

// Submits the case on the CPU backend in chunks of `chunk_samples` samples
// and compares the output with ferry_transform_apply's, byte by byte.
std::string submit_matches_apply(ferry_context_t ctx, ResizeCase& c, std::uint64_t chunk_bytes) {
  std::vector<std::uint8_t> want(c.output_bytes, 0xAB), got(c.output_bytes, 0xAB);
  ferry_output o = c.output;
  o.data = want.data();
  if (ferry_transform_apply(ctx, &c.source, &c.transform, &o, nullptr) != FERRY_OK)
    return std::string("apply: ") + ferry_last_error();
  o.data = got.data();
  ferry_submit_options options;
  ferry_submit_options_init(&options, sizeof options);
  options.chunk_bytes = chunk_bytes;
  ferry_batch_t batch = nullptr;
  if (ferry_batch_submit(&batch, ctx, &c.source, &c.transform, &o, &options) != FERRY_OK)
    return std::string("submit: ") + ferry_last_error();
  const ferry_status waited = ferry_batch_wait(batch);
  const std::string error = waited == FERRY_OK ? "" : std::string("wait: ") + ferry_last_error();
  ferry_batch_release(batch);
  if (!error.empty()) return error;
  for (std::size_t b = 0; b < got.size(); ++b)
    if (got[b] != want[b]) return "byte " + std::to_string(b) + ": submit " + std::to_string(got[b]) + ", apply " +
                                  std::to_string(want[b]);
  return "";
}

}  // namespace

TEST(TransformResize, SubmitOnTheCpuBackendMatchesTransformApply) {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  const ferry_interpolation interps[] = {FERRY_INTERP_NEAREST, FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC,
                                         FERRY_INTERP_AREA, FERRY_INTERP_LINEAR_ANTIALIAS};
  const ferry_resize_mode modes[] = {FERRY_RESIZE_STRETCH, FERRY_RESIZE_LETTERBOX, FERRY_RESIZE_SHORTER_SIDE};
  int cases = 0, per_sample_windows = 0, sample_forms = 0;
  std::uint32_t seed = 7;
  for (ferry_interpolation m : interps)
    for (ferry_resize_mode mode : modes)
      for (ferry_dtype d : {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16})
        for (int r = 0; r < 4; ++r) {
          auto c = make_resize_case(seed++ * 40503u, m, mode, d);
          ASSERT_NE(c, nullptr) << ferry_last_error();
          // Chunks of about one sample (1 byte: one per chunk) or the whole batch.
          for (std::uint64_t chunk : {std::uint64_t{1}, std::uint64_t{0}}) {
            const std::string diff = submit_matches_apply(ctx, *c, chunk);
            EXPECT_EQ(diff, "") << c->name << " chunk_bytes " << chunk;
          }
          ++cases;
          per_sample_windows += c->transform.per_sample_window != nullptr || c->transform.per_sample_crop != nullptr;
          sample_forms += c->source.samples != nullptr;
        }
  EXPECT_GT(per_sample_windows, 10);
  EXPECT_GT(sample_forms, 10);
  EXPECT_EQ(cases, 5 * 3 * 3 * 4);
  ferry_context_destroy(ctx);
}

// A batch of many samples, windows of different sizes per sample, cut into
// chunks of several samples each, from the data and the samples forms.
TEST(TransformResize, SubmitInChunksOfSeveralSamplesWithPerSampleWindows) {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  const int n = 23, w = 37, h = 29, c = 3;
  std::vector<std::uint8_t> data(static_cast<std::size_t>(n * w * h * c));
  for (std::size_t b = 0; b < data.size(); ++b) data[b] = static_cast<std::uint8_t>((b * 2654435761u) >> 13);
  std::vector<ferry_rectf> windows;
  for (int i = 0; i < n; ++i)
    windows.push_back({static_cast<float>(i % 5) * 0.75f, static_cast<float>(i % 3), static_cast<float>(w - 4 - i % 7) - 0.5f,
                       static_cast<float>(h - 3 - i % 11)});
  std::vector<const void*> pointers;
  for (int i = 0; i < n; ++i) pointers.push_back(data.data() + static_cast<std::size_t>(i * w * h * c));
  for (bool samples_form : {false, true}) {
    for (ferry_interpolation m : {FERRY_INTERP_LINEAR, FERRY_INTERP_AREA, FERRY_INTERP_LINEAR_ANTIALIAS}) {
      ResizeCase rc;
      ferry_source_init(&rc.source, sizeof rc.source);
      rc.source.n = n, rc.source.h = h, rc.source.w = w, rc.source.c = c;
      if (samples_form) {
        rc.source.samples = pointers.data();
        rc.source.sample_bytes = static_cast<std::size_t>(w * h * c);
      } else {
        rc.source.data = data.data();
        rc.source.bytes = data.size();
      }
      ferry_transform_init(&rc.transform, sizeof rc.transform);
      rc.transform.resize_w = 16, rc.transform.resize_h = 12;
      rc.transform.resize_mode = FERRY_RESIZE_LETTERBOX;
      rc.transform.interpolation = m;
      rc.transform.per_sample_window = windows.data();
      rc.transform.per_sample_count = n;
      rc.transform.letterbox_value[0] = rc.transform.letterbox_value[1] = rc.transform.letterbox_value[2] = 0.5f;
      ferry_output_init(&rc.output, sizeof rc.output);
      rc.output_bytes = static_cast<std::size_t>(n) * 3 * 16 * 12 * 4;
      rc.output.bytes = rc.output_bytes;
      // About 4 samples' source bytes a chunk: 6 chunks of 3 or 4 samples.
      const std::string diff = submit_matches_apply(ctx, rc, static_cast<std::uint64_t>(4 * w * h * c));
      EXPECT_EQ(diff, "") << (samples_form ? "samples" : "data") << " interpolation " << m;
      // And both equal the reference.
      std::vector<std::uint8_t> got(rc.output_bytes, 0xAB), want(rc.output_bytes, 0xAB);
      rc.output.data = got.data();
      ASSERT_EQ(ferry_transform_apply(ctx, &rc.source, &rc.transform, &rc.output, nullptr), FERRY_OK);
      reference_convert(rc.source, rc.transform, rc.output, want.data());
      EXPECT_EQ(got, want);
    }
  }
  ferry_context_destroy(ctx);
}
