// ferry_augment through the C ABI on the CPU backend: each bad field has its
// own status and a message naming it (from ferry_transform_apply,
// ferry_transform_describe_output and ferry_batch_submit alike), the
// defaults ferry_augment_init writes, ferry_augment_draw's argument checks,
// and an augment with everything off converting exactly as no augment.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "c_api/struct_versions.h"
#include "ferry/ferry.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

// Three 8x6 RGB samples resized to 4x3 float32, with an augment that is all defaults.
struct AugmentCall {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  std::vector<std::uint8_t> pixels = std::vector<std::uint8_t>(3 * 6 * 8 * 3, 90);
  std::vector<std::uint8_t> out = std::vector<std::uint8_t>(3 * 3 * 6 * 8 * 4, 0);
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};
  ferry_augment augment{};

  AugmentCall() {
    ferry_source_init(&source, sizeof source);
    source.data = pixels.data();
    source.bytes = pixels.size();
    source.n = 3, source.h = 6, source.w = 8, source.c = 3;
    ferry_transform_init(&transform, sizeof transform);
    transform.resize_w = 4, transform.resize_h = 3;
    ferry_augment_init(&augment, sizeof augment);
    transform.augment = &augment;
    ferry_output_init(&output, sizeof output);
    output.data = out.data();
    output.bytes = out.size();
  }
  ~AugmentCall() { ferry_context_destroy(ctx); }

  ferry_status apply() { return ferry_transform_apply(ctx, &source, &transform, &output, nullptr); }
};

using Call = AugmentCall;

struct BadCase {
  const char* what;
  std::function<void(AugmentCall&)> change;
  ferry_status status;
  std::vector<std::string> message_has;
};

constexpr ferry_status bad = FERRY_ERR_INVALID_ARGUMENT;

// The status, and the message holds every part.
void expect_error(ferry_status got, ferry_status want, const std::vector<std::string>& parts, const std::string& what) {
  EXPECT_EQ(got, want) << what << ": " << ferry_last_error();
  const std::string message = ferry_last_error();
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << what << ": \"" << message << "\" lacks \"" << part << "\"";
}

void random_crop(AugmentCall& c) { c.augment.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED; }

const std::vector<BadCase>& bad_cases() {
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  static const std::vector<BadCase> cases = {
      {"scale inverted", [](Call& c) { c.augment.scale[0] = 0.9f, c.augment.scale[1] = 0.5f; }, bad,
       {"augment.scale", "inverted"}},
      {"scale above 1", [](Call& c) { c.augment.scale[1] = 1.5f; }, bad, {"augment.scale[1]", "1.5"}},
      {"scale lo 0", [](Call& c) { c.augment.scale[0] = 0.0f; }, bad, {"augment.scale[0]", "> 0"}},
      {"scale lo negative", [](Call& c) { c.augment.scale[0] = -0.25f; }, bad, {"augment.scale[0]", "-0.25"}},
      {"scale NaN", [nan](Call& c) { c.augment.scale[1] = nan; }, bad, {"augment.scale[1]", "finite"}},
      {"ratio lo 0", [](Call& c) { c.augment.ratio[0] = 0.0f; }, bad, {"augment.ratio[0]"}},
      {"ratio inverted", [](Call& c) { c.augment.ratio[0] = 2.0f, c.augment.ratio[1] = 1.0f; }, bad,
       {"augment.ratio", "inverted"}},
      {"ratio infinite", [inf](Call& c) { c.augment.ratio[1] = inf; }, bad, {"augment.ratio[1]", "finite"}},
      {"flip_x_probability negative", [](Call& c) { c.augment.flip_x_probability = -0.1f; }, bad,
       {"augment.flip_x_probability", "probability"}},
      {"flip_y_probability above 1", [](Call& c) { c.augment.flip_y_probability = 1.5f; }, bad,
       {"augment.flip_y_probability"}},
      {"flip_x_probability NaN", [nan](Call& c) { c.augment.flip_x_probability = nan; }, bad,
       {"augment.flip_x_probability"}},
      {"grayscale_probability above 1", [](Call& c) { c.augment.grayscale_probability = 2.0f; }, bad,
       {"augment.grayscale_probability"}},
      {"erase_probability negative", [](Call& c) { c.augment.erase_probability = -1.0f; }, bad,
       {"augment.erase_probability"}},
      {"erase_probability NaN", [nan](Call& c) { c.augment.erase_probability = nan; }, bad,
       {"augment.erase_probability"}},
      {"brightness lo negative", [](Call& c) { c.augment.brightness[0] = -0.1f; }, bad,
       {"augment.brightness[0]", ">= 0"}},
      {"brightness inverted", [](Call& c) { c.augment.brightness[0] = 1.4f, c.augment.brightness[1] = 0.6f; },
       bad, {"augment.brightness", "inverted"}},
      {"brightness NaN", [nan](Call& c) { c.augment.brightness[0] = nan; }, bad, {"augment.brightness[0]", "finite"}},
      {"contrast inverted", [](Call& c) { c.augment.contrast[0] = 2.0f; }, bad, {"augment.contrast", "inverted"}},
      {"contrast lo negative", [](Call& c) { c.augment.contrast[0] = -2.0f; }, bad, {"augment.contrast[0]"}},
      {"saturation lo negative", [](Call& c) { c.augment.saturation[0] = -0.5f; }, bad, {"augment.saturation[0]"}},
      {"saturation infinite", [inf](Call& c) { c.augment.saturation[1] = inf; }, bad,
       {"augment.saturation[1]", "finite"}},
      {"hue above 0.5", [](Call& c) { c.augment.hue[1] = 0.6f; }, bad, {"augment.hue[1]", "0.5"}},
      {"hue below -0.5", [](Call& c) { c.augment.hue[0] = -0.75f; }, bad, {"augment.hue[0]", "-0.5"}},
      {"hue inverted", [](Call& c) { c.augment.hue[0] = 0.2f, c.augment.hue[1] = 0.1f; }, bad,
       {"augment.hue", "inverted"}},
      {"erase_scale above 1", [](Call& c) { c.augment.erase_scale[1] = 1.25f; }, bad, {"augment.erase_scale[1]"}},
      {"erase_scale lo 0", [](Call& c) { c.augment.erase_scale[0] = 0.0f; }, bad, {"augment.erase_scale[0]"}},
      {"erase_ratio lo 0", [](Call& c) { c.augment.erase_ratio[0] = 0.0f; }, bad, {"augment.erase_ratio[0]"}},
      {"erase_ratio inverted", [](Call& c) { c.augment.erase_ratio[0] = 4.0f; }, bad,
       {"augment.erase_ratio", "inverted"}},
      {"erase_value infinite", [inf](Call& c) { c.augment.erase_value[2] = -inf; }, bad,
       {"augment.erase_value[2]", "finite"}},
      {"uint8 output with a fractional erase_value",
       [](Call& c) {
         c.transform.out_dtype = FERRY_DTYPE_UINT8;
         c.augment.erase_probability = 0.5f;
         c.augment.erase_value[1] = 2.5f;
       },
       bad, {"augment.erase_value", "2.5", "uint8"}},
      {"first_index negative", [](Call& c) { c.augment.first_index = -1; }, bad, {"augment.first_index"}},
      {"first_index 2^39", [](Call& c) { c.augment.first_index = std::int64_t{1} << 39; }, bad,
       {"augment.first_index", "2^39"}},
      {"the last sample's index 2^39", [](Call& c) { c.augment.first_index = (std::int64_t{1} << 39) - 2; }, bad,
       {"augment.first_index + 2", "2^39"}},
      {"an unknown crop", [](Call& c) { c.augment.crop = static_cast<ferry_augment_crop>(7); },
       FERRY_ERR_UNSUPPORTED, {"augment.crop", "7", "FERRY_AUGMENT_CROP_CENTER"}},
      {"crop -1", [](Call& c) { c.augment.crop = static_cast<ferry_augment_crop>(-1); }, FERRY_ERR_UNSUPPORTED,
       {"augment.crop", "-1"}},
      {"an unknown erase_fill", [](Call& c) { c.augment.erase_fill = static_cast<ferry_erase_fill>(5); },
       FERRY_ERR_UNSUPPORTED, {"augment.erase_fill", "5", "FERRY_ERASE_RANDOM"}},
      {"padding with a CENTER crop", [](Call& c) { c.augment.crop = FERRY_AUGMENT_CROP_CENTER, c.augment.padding = 2; },
       bad, {"augment.padding", "FERRY_AUGMENT_CROP_RANDOM"}},
      {"padding without a crop", [](Call& c) { c.augment.padding = 4; }, bad, {"augment.padding", "4"}},
      {"padding with a RANDOM_RESIZED crop", [](Call& c) { random_crop(c), c.augment.padding = 1; },
       bad, {"augment.padding"}},
      {"padding negative", [](Call& c) { c.augment.crop = FERRY_AUGMENT_CROP_RANDOM, c.augment.padding = -3; },
       bad, {"augment.padding", "-3"}},
      {"a crop without resize_w and resize_h",
       [](Call& c) { random_crop(c), c.transform.resize_w = c.transform.resize_h = 0; },
       bad, {"augment.crop", "resize_w", "resize_h"}},
      {"a crop with LETTERBOX",
       [](Call& c) { c.augment.crop = FERRY_AUGMENT_CROP_CENTER, c.transform.resize_mode = FERRY_RESIZE_LETTERBOX; },
       bad, {"transform.resize_mode", "STRETCH"}},
      {"a crop with SHORTER_SIDE",
       [](Call& c) {
         random_crop(c);
         c.transform.resize_mode = FERRY_RESIZE_SHORTER_SIDE;
         c.transform.resize_shorter = 4;
       },
       bad, {"transform.resize_mode", "STRETCH"}},
      {"a crop with transform.crop", [](Call& c) { random_crop(c), c.transform.crop = {0, 0, 4, 4}; },
       bad, {"transform.crop or window"}},
      {"a crop with transform.window",
       [](Call& c) { c.augment.crop = FERRY_AUGMENT_CROP_RANDOM, c.transform.window = {1, 1, 4, 4}; },
       bad, {"transform.crop or window"}},
      {"a crop with per_sample_crop",
       [](Call& c) {
         static const ferry_rect crops[3] = {{0, 0, 4, 4}, {1, 1, 4, 4}, {2, 2, 4, 4}};
         random_crop(c);
         c.transform.per_sample_crop = crops;
         c.transform.per_sample_count = 3;
       },
       bad, {"transform.crop or window"}},
      {"a colour op with one output channel",
       [](Call& c) { c.augment.brightness[0] = 0.5f, c.transform.out_channels = 1, c.transform.channel_map[0] = 1; },
       bad, {"transform.out_channels", "3"}},
      {"grayscale with two output channels",
       [](Call& c) { c.augment.grayscale_probability = 0.1f, c.transform.out_channels = 2; },
       bad, {"transform.out_channels", "2"}},
      {"hue on a gray source (c = 1)", [](Call& c) { c.source.c = 1, c.augment.hue[1] = 0.1f; },
       bad, {"transform.out_channels", "1"}},
      {"a RANDOM crop larger than the padded image",
       [](Call& c) {
         c.augment.crop = FERRY_AUGMENT_CROP_RANDOM;
         c.augment.padding = 1;
         c.transform.resize_w = 11;  // 8 + 2 < 11
       },
       FERRY_ERR_OUT_OF_RANGE, {"sample 0", "8x6", "augment.padding", "11x3"}},
      {"a larger augment with a non-zero unknown byte",
       [](Call& c) {
         static std::vector<unsigned char> larger;
         larger.assign(sizeof(ferry_augment) + 8, 0);
         std::memcpy(larger.data(), &c.augment, sizeof(ferry_augment));
         larger[sizeof(ferry_augment) + 3] = 1;
         const std::size_t size = larger.size();
         std::memcpy(larger.data(), &size, sizeof size);
         c.transform.augment = reinterpret_cast<const ferry_augment*>(larger.data());
       },
       FERRY_ERR_STRUCT_SIZE, {"transform.augment->struct_size", "non-zero"}},
      {"an augment struct_size of 7", [](Call& c) { c.augment.struct_size = 7; }, FERRY_ERR_STRUCT_SIZE,
       {"transform.augment->struct_size", "7"}},
      {"an augment struct_size of 0", [](Call& c) { c.augment.struct_size = 0; }, FERRY_ERR_STRUCT_SIZE,
       {"transform.augment->struct_size"}},
      {"an augment struct_size inside a field",
       [](Call& c) { c.augment.struct_size = offsetof(ferry_augment, scale) + 2; }, FERRY_ERR_STRUCT_SIZE,
       {"transform.augment->struct_size"}},
      {"drawn with a stride smaller than a rect",
       [](Call& c) {
         static ferry_augment_params drawn[3];
         c.augment.drawn = drawn;
         c.augment.drawn_stride = 8;
       },
       bad, {"drawn_stride", "8"}},
      {"pad_outside reaching outside with colour and no resize",
       [](Call& c) {
         c.transform.resize_w = c.transform.resize_h = 0;
         c.transform.pad_outside = 1;
         c.transform.crop = {-2, 0, 4, 4};
         c.augment.contrast[1] = 1.5f;
       },
       FERRY_ERR_UNSUPPORTED, {"transform.pad_outside", "augment"}},
  };
  return cases;
}

}  // namespace

TEST(Augment, EachBadFieldHasItsStatusAndNamesTheField) {
  for (const BadCase& c : bad_cases()) {
    AugmentCall call;
    c.change(call);
    expect_error(call.apply(), c.status, c.message_has, c.what);
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_transform_describe_output(&info, &call.source, &call.transform), c.status) << c.what;
    ferry_batch_t batch = nullptr;
    EXPECT_EQ(ferry_batch_submit(&batch, call.ctx, &call.source, &call.transform, &call.output, nullptr), c.status)
        << c.what << ": " << ferry_last_error();
    if (batch != nullptr) ferry_batch_release(batch);
  }
}

// The sample a RANDOM crop does not fit is named by its place in the batch
// (as transform.per_sample_*[i] and ferry_augment_draw's h[i] are), not by
// its draw index first_index + i.
TEST(Augment, TooSmallSampleIsNamedByItsBatchPosition) {
  for (std::int64_t first_index : {0, 5}) {
    AugmentCall call;
    std::vector<ferry_sample_desc> descs(3, ferry_sample_desc{call.pixels.data(), 6 * 8 * 3, 6, 8, 0, 0, 0});
    descs[2].h = 2;
    call.source.data = nullptr, call.source.bytes = 0, call.source.h = call.source.w = 0;
    call.source.sample_descs = descs.data();
    call.augment.crop = FERRY_AUGMENT_CROP_RANDOM;
    call.augment.first_index = first_index;
    expect_error(call.apply(), FERRY_ERR_OUT_OF_RANGE, {"sample 2 ", "8x2", "4x3"},
                 "sample 2 of 3 too small, first_index " + std::to_string(first_index));
  }
}

TEST(Augment, InitWritesTheDocumentedDefaults) {
  ferry_augment a;
  std::memset(&a, 0x5C, sizeof a);
  ASSERT_EQ(ferry_augment_init(&a, sizeof a), FERRY_OK) << ferry_last_error();
  // Every field as augment.h documents it (the rest 0, NULL, NONE and VALUE).
  ferry_augment want;
  std::memset(&want, 0, sizeof want);
  want.struct_size = sizeof want;
  want.scale[0] = 0.08f, want.scale[1] = 1.0f;
  want.ratio[0] = 3.0f / 4.0f, want.ratio[1] = 4.0f / 3.0f;
  want.brightness[0] = want.brightness[1] = want.contrast[0] = want.contrast[1] = 1.0f;
  want.saturation[0] = want.saturation[1] = 1.0f;
  want.erase_scale[0] = 0.02f, want.erase_scale[1] = 0.33f;
  want.erase_ratio[0] = 0.3f, want.erase_ratio[1] = 3.3f;
  EXPECT_EQ(std::memcmp(&a, &want, sizeof a), 0);
  EXPECT_EQ(a.scale[0], 0.08f);
  EXPECT_EQ(a.ratio[1], 4.0f / 3.0f);
  EXPECT_EQ(a.erase_ratio[1], 3.3f);
  EXPECT_EQ(a.hue[0], 0.0f);
  EXPECT_EQ(a.crop, FERRY_AUGMENT_CROP_NONE);
  EXPECT_EQ(a.drawn, nullptr);

  EXPECT_EQ(ferry_augment_init(nullptr, sizeof a), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_augment_init(&a, 5), FERRY_ERR_STRUCT_SIZE);
  EXPECT_NE(std::string(ferry_last_error()).find("struct_size"), std::string::npos) << ferry_last_error();
  // A newer, larger header's struct: the tail zeroed.
  std::vector<unsigned char> larger(sizeof a + 16, 0xEE);
  ASSERT_EQ(ferry_augment_init(reinterpret_cast<ferry_augment*>(larger.data()), larger.size()), FERRY_OK);
  for (std::size_t b = sizeof a; b < larger.size(); ++b) EXPECT_EQ(larger[b], 0) << b;
}

TEST(Augment, DrawChecksItsArguments) {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  const std::int64_t h[2] = {6, 6}, w[2] = {8, 8}, zero[2] = {6, 0};
  ferry_augment_params out[2];
  struct Case {
    const char* what;
    std::function<ferry_status()> call;
    ferry_status status;
    std::vector<std::string> message_has;
  };
  const std::vector<Case> cases = {
      {"augment NULL", [&] { return ferry_augment_draw(nullptr, 2, h, w, 4, 3, out, 0); }, bad, {"augment"}},
      {"n negative", [&] { return ferry_augment_draw(&a, -1, h, w, 4, 3, out, 0); }, bad, {"n is -1"}},
      {"h NULL", [&] { return ferry_augment_draw(&a, 2, nullptr, w, 4, 3, out, 0); }, bad, {"h, w and out"}},
      {"w NULL", [&] { return ferry_augment_draw(&a, 2, h, nullptr, 4, 3, out, 0); }, bad, {"h, w and out"}},
      {"out NULL", [&] { return ferry_augment_draw(&a, 2, h, w, 4, 3, nullptr, 0); }, bad, {"h, w and out"}},
      {"out_w 0", [&] { return ferry_augment_draw(&a, 2, h, w, 0, 3, out, 0); }, bad, {"out_w x out_h", "0x3"}},
      {"out_h over 2^30", [&] { return ferry_augment_draw(&a, 2, h, w, 4, std::int64_t{1} << 31, out, 0); }, bad,
       {"out_w x out_h"}},
      {"out_stride 4", [&] { return ferry_augment_draw(&a, 2, h, w, 4, 3, out, 4); }, bad, {"out_stride is 4"}},
      {"w[1] 0", [&] { return ferry_augment_draw(&a, 2, h, zero, 4, 3, out, 0); }, bad, {"h[1] x w[1]"}},
      {"a bad augment field",
       [&] {
         ferry_augment b = a;
         b.ratio[0] = -1.0f;
         return ferry_augment_draw(&b, 2, h, w, 4, 3, out, 0);
       },
       bad, {"augment.ratio[0]"}},
      {"a bad struct_size",
       [&] {
         ferry_augment b = a;
         b.struct_size = 3;
         return ferry_augment_draw(&b, 2, h, w, 4, 3, out, 0);
       },
       FERRY_ERR_STRUCT_SIZE, {"struct_size"}},
      {"a RANDOM crop larger than the image",
       [&] {
         ferry_augment b = a;
         b.crop = FERRY_AUGMENT_CROP_RANDOM;
         return ferry_augment_draw(&b, 2, h, w, 9, 3, out, 0);
       },
       FERRY_ERR_OUT_OF_RANGE, {"sample 0", "8x6"}},
  };
  for (const Case& c : cases) expect_error(c.call(), c.status, c.message_has, c.what);
  EXPECT_EQ(ferry_augment_draw(&a, 0, nullptr, nullptr, 4, 3, nullptr, 0), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_augment_draw(&a, 2, h, w, 4, 3, out, 0), FERRY_OK) << ferry_last_error();
}

// Everything off (ferry_augment_init's defaults, whatever the seed): the same
// bytes as no augment, for the resized and the unresized paths.
TEST(Augment, EverythingOffConvertsExactlyAsNoAugment) {
  struct Setup {
    const char* what;
    std::function<void(AugmentCall&)> change;
  };
  const std::vector<Setup> setups = {
      {"resize LINEAR float32", [](AugmentCall&) {}},
      {"resize CUBIC mirror float16 NHWC",
       [](Call& c) {
         c.transform.interpolation = FERRY_INTERP_CUBIC;
         c.transform.mirror = FERRY_MIRROR_X;
         c.transform.out_dtype = FERRY_DTYPE_FLOAT16;
         c.transform.out_layout = FERRY_LAYOUT_NHWC;
       }},
      {"letterbox uint8",
       [](Call& c) {
         c.transform.resize_w = 5, c.transform.resize_h = 5;
         c.transform.resize_mode = FERRY_RESIZE_LETTERBOX;
         c.transform.out_dtype = FERRY_DTYPE_UINT8;
         c.transform.letterbox_value[1] = 7.0f;
       }},
      {"no resize, crop, BGR, normalized",
       [](Call& c) {
         c.transform.resize_w = c.transform.resize_h = 0;
         c.transform.crop = {1, 2, 5, 3};
         c.transform.out_channels = 3;
         c.transform.channel_map[0] = 2, c.transform.channel_map[1] = 1, c.transform.channel_map[2] = 0;
         c.transform.mean[0] = 0.5f, c.transform.std[2] = 0.25f;
       }},
      {"no resize uint8 mirror Y",
       [](Call& c) {
         c.transform.resize_w = c.transform.resize_h = 0;
         c.transform.out_dtype = FERRY_DTYPE_UINT8;
         c.transform.mirror = FERRY_MIRROR_Y;
       }},
  };
  for (const Setup& s : setups) {
    AugmentCall call;
    for (std::size_t b = 0; b < call.pixels.size(); ++b) call.pixels[b] = static_cast<std::uint8_t>(b * 97 + 13);
    s.change(call);
    call.augment.seed = 1234567, call.augment.step = 9, call.augment.first_index = 3;
    ferry_augment_params drawn[3];
    call.augment.drawn = drawn;
    std::vector<std::uint8_t> with(call.out.size(), 0xA5), without(call.out.size(), 0xA5);
    call.output.data = with.data();
    ASSERT_EQ(call.apply(), FERRY_OK) << s.what << ": " << ferry_last_error();
    call.transform.augment = nullptr;
    call.output.data = without.data();
    ASSERT_EQ(call.apply(), FERRY_OK) << s.what << ": " << ferry_last_error();
    EXPECT_EQ(with, without) << s.what;
    for (const ferry_augment_params& d : drawn) {
      EXPECT_EQ(d.flip, 0) << s.what;
      EXPECT_EQ(d.grayscale, 0) << s.what;
      EXPECT_EQ(d.erased, 0) << s.what;
      EXPECT_EQ(d.brightness, 1.0f);
      EXPECT_EQ(d.contrast, 1.0f);
      EXPECT_EQ(d.saturation, 1.0f);
      EXPECT_EQ(d.hue, 0.0f);
    }
  }
}

// A transform of 0.3's size (248 bytes) ends before `augment`: whatever lies
// there is never read, and the conversion is the plain one.
TEST(Augment, A03SizedTransformNeverReadsAugment) {
  AugmentCall call;
  for (std::size_t b = 0; b < call.pixels.size(); ++b) call.pixels[b] = static_cast<std::uint8_t>(b * 31 + 5);
  call.transform.augment = nullptr;
  std::vector<std::uint8_t> want(call.out.size(), 0xA5), got(call.out.size(), 0xA5);
  call.output.data = want.data();
  ASSERT_EQ(call.apply(), FERRY_OK) << ferry_last_error();
  ferry_transform old = call.transform;
  old.struct_size = sizeof(ferry::api::v3::transform);
  call.augment.struct_size = 3;  // invalid, were it read
  call.augment.brightness[0] = 0.5f;
  old.augment = &call.augment;
  call.output.data = got.data();
  ASSERT_EQ(ferry_transform_apply(call.ctx, &call.source, &old, &call.output, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(got, want);
}
