// ferry_augment_draw and the `drawn` parameters: the same (seed, step, index)
// always draws the same, a run resumes at any step, first_index shifts the
// index, and what ferry_transform_apply and ferry_batch_submit write back
// equals ferry_augment_draw. Then the statistics of 100,000 draws in one call
// against torchvision's rules: flip rates; RandomResizedCrop's boxes, its
// fallback and round half to even; RandomCrop's positions; CenterCrop;
// ColorJitter's factors and order; grayscale and erasing rates and boxes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/augment_reference.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

constexpr std::int64_t kDraws = 100000;

ferry_augment full_augment() {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  a.seed = 0x0123456789ABCDEFull, a.step = 3;
  a.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  a.flip_x_probability = 0.5f, a.flip_y_probability = 0.25f;
  a.brightness[0] = 0.6f, a.brightness[1] = 1.4f;
  a.contrast[0] = 0.5f, a.contrast[1] = 1.5f;
  a.saturation[0] = 0.0f, a.saturation[1] = 2.0f;
  a.hue[0] = -0.5f, a.hue[1] = 0.5f;
  a.grayscale_probability = 0.2f;
  a.erase_probability = 0.5f;
  return a;
}

// n draws of h x w images to out_w x out_h, one call.
std::vector<ferry_augment_params> draw(const ferry_augment& a, std::int64_t n, std::int64_t h, std::int64_t w,
                                       std::int64_t out_w, std::int64_t out_h) {
  std::vector<std::int64_t> hs(static_cast<std::size_t>(n), h), ws(static_cast<std::size_t>(n), w);
  std::vector<ferry_augment_params> out(static_cast<std::size_t>(n));
  EXPECT_EQ(ferry_augment_draw(&a, n, hs.data(), ws.data(), out_w, out_h, out.data(), 0), FERRY_OK)
      << ferry_last_error();
  return out;
}

void expect_same(const std::vector<ferry_augment_params>& a, const std::vector<ferry_augment_params>& b,
                 const std::string& what, std::size_t offset = 0) {
  ASSERT_GE(a.size(), offset + b.size()) << what;
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(difference(a[offset + i], b[i]), "") << what << " entry " << i;
}

}  // namespace

TEST(AugmentDraw, TheSameSeedStepAndIndexDrawTheSame) {
  const ferry_augment a = full_augment();
  const auto first = draw(a, 64, 40, 50, 16, 16), again = draw(a, 64, 40, 50, 16, 16);
  expect_same(first, again, "the same call twice");
  ferry_augment later = a;
  later.step = a.step + 1;
  ferry_augment reseeded = a;
  reseeded.seed = a.seed + 1;
  for (const ferry_augment& other : {later, reseeded}) {
    const auto differ = draw(other, 64, 40, 50, 16, 16);
    int crops = 0, factors = 0;
    for (std::size_t i = 0; i < differ.size(); ++i) {
      crops += !same_rect(first[i].crop, differ[i].crop);
      factors += first[i].brightness != differ[i].brightness;
    }
    EXPECT_GE(crops, 56) << "another step or seed draws other crops";
    EXPECT_EQ(factors, 64) << "another step or seed draws other factors";
  }
  // Samples of one call differ from one another.
  std::set<float> brightness;
  for (const auto& d : first) brightness.insert(d.brightness);
  EXPECT_EQ(brightness.size(), first.size());
}

TEST(AugmentDraw, AnyStepResumesAndFirstIndexShiftsTheIndex) {
  ferry_augment a = full_augment();
  std::vector<std::vector<ferry_augment_params>> run;
  for (std::uint64_t step = 0; step < 10; ++step) {
    a.step = step;
    run.push_back(draw(a, 12, 30, 20, 8, 8));
  }
  ferry_augment resumed = full_augment();  // a fresh description, as a restarted run makes it
  resumed.step = 7;
  expect_same(run[7], draw(resumed, 12, 30, 20, 8, 8), "step 7 of a fresh call");

  a.step = 4;
  a.first_index = 5;
  expect_same(run[4], draw(a, 7, 30, 20, 8, 8), "first_index 5", 5);
  a.first_index = 0;
  expect_same(run[4], draw(a, 5, 30, 20, 8, 8), "first_index 0");
}

namespace {

// Five RGB samples of different sizes (sample_descs), resized to 8 x 6.
struct DrawnCall {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  std::vector<std::int64_t> h = {20, 16, 9, 31, 16}, w = {16, 25, 12, 17, 16};
  std::vector<std::vector<std::uint8_t>> pixels;
  std::vector<ferry_sample_desc> descs;
  ferry_source source{};
  ferry_transform transform{};
  ferry_augment augment = full_augment();
  std::vector<std::uint8_t> out = std::vector<std::uint8_t>(5 * 3 * 6 * 8 * 4, 0xA5);
  ferry_output output{};

  DrawnCall() {
    for (std::size_t i = 0; i < h.size(); ++i) {
      pixels.emplace_back(static_cast<std::size_t>(h[i] * w[i] * 3), static_cast<std::uint8_t>(40 * i));
      descs.push_back(ferry_sample_desc{pixels.back().data(), pixels.back().size(), h[i], w[i], 0, 0, 0});
    }
    ferry_source_init(&source, sizeof source);
    source.n = static_cast<std::int64_t>(h.size()), source.c = 3;
    source.sample_descs = descs.data();
    ferry_transform_init(&transform, sizeof transform);
    transform.resize_w = 8, transform.resize_h = 6;
    transform.augment = &augment;
    ferry_output_init(&output, sizeof output);
    output.data = out.data(), output.bytes = out.size();
  }
  ~DrawnCall() { ferry_context_destroy(ctx); }

  ferry_status apply() { return ferry_transform_apply(ctx, &source, &transform, &output, nullptr); }

  std::vector<ferry_augment_params> expected() const {
    std::vector<ferry_augment_params> params(h.size());
    EXPECT_EQ(ferry_augment_draw(&augment, source.n, h.data(), w.data(), 8, 6, params.data(), 0), FERRY_OK)
        << ferry_last_error();
    return params;
  }
};

}  // namespace

TEST(AugmentDraw, DrawnFromApplyAndSubmitEqualsAugmentDraw) {
  for (ferry_augment_crop crop : {FERRY_AUGMENT_CROP_RANDOM_RESIZED, FERRY_AUGMENT_CROP_CENTER,
                                  FERRY_AUGMENT_CROP_RANDOM}) {
    DrawnCall call;
    call.augment.crop = crop;
    call.augment.padding = crop == FERRY_AUGMENT_CROP_RANDOM ? 2 : 0;
    call.augment.first_index = 11;
    const std::string what = "crop " + std::to_string(crop);
    std::vector<ferry_augment_params> applied(5), submitted(5);
    call.augment.drawn = applied.data();
    ASSERT_EQ(call.apply(), FERRY_OK) << what << ": " << ferry_last_error();
    expect_same(call.expected(), applied, what + " apply");

    call.augment.drawn = submitted.data();
    ferry_submit_options options;
    ferry_submit_options_init(&options, sizeof options);
    options.chunk_bytes = 1;  // a chunk per sample: every chunk's draws still reach `drawn`
    ferry_batch_t batch = nullptr;
    ASSERT_EQ(ferry_batch_submit(&batch, call.ctx, &call.source, &call.transform, &call.output, &options), FERRY_OK)
        << what << ": " << ferry_last_error();
    expect_same(call.expected(), submitted, what + " submit (written before it returns)");
    EXPECT_EQ(ferry_batch_wait(batch), FERRY_OK) << ferry_last_error();
    ferry_batch_release(batch);
  }
}

TEST(AugmentDraw, DrawnStrideLargerOrSmallerThanTheStruct) {
  DrawnCall call;
  const std::vector<ferry_augment_params> want = call.expected();
  const std::size_t stride = sizeof(ferry_augment_params) + 24;
  std::vector<unsigned char> wide(5 * stride, 0xCD), narrow(5 * sizeof(ferry_rect) + 8, 0xCD);
  call.augment.drawn = reinterpret_cast<ferry_augment_params*>(wide.data());
  call.augment.drawn_stride = stride;
  ASSERT_EQ(call.apply(), FERRY_OK) << ferry_last_error();
  for (std::size_t i = 0; i < 5; ++i) {
    ferry_augment_params got;
    std::memcpy(&got, wide.data() + i * stride, sizeof got);
    EXPECT_EQ(difference(got, want[i]), "") << "entry " << i;
    for (std::size_t b = sizeof got; b < stride; ++b) EXPECT_EQ(wide[i * stride + b], 0xCD) << "gap byte " << b;
  }
  // A stride of one rect: the crops alone, nothing past them.
  ASSERT_EQ(ferry_augment_draw(&call.augment, 5, call.h.data(), call.w.data(), 8, 6,
                               reinterpret_cast<ferry_augment_params*>(narrow.data()), sizeof(ferry_rect)),
            FERRY_OK)
      << ferry_last_error();
  for (std::size_t i = 0; i < 5; ++i) {
    ferry_rect r;
    std::memcpy(&r, narrow.data() + i * sizeof r, sizeof r);
    EXPECT_TRUE(same_rect(r, want[i].crop)) << "entry " << i;
  }
  for (std::size_t b = 5 * sizeof(ferry_rect); b < narrow.size(); ++b) EXPECT_EQ(narrow[b], 0xCD) << b;
}

TEST(AugmentDraw, FlipRatesAreTheProbabilities) {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  a.seed = 77;
  a.flip_x_probability = 0.3f, a.flip_y_probability = 0.7f;
  const auto d = draw(a, kDraws, 10, 10, 10, 10);
  std::int64_t x = 0, y = 0, both = 0;
  for (const auto& p : d) {
    ASSERT_EQ(p.flip & ~3, 0);
    x += (p.flip & FERRY_MIRROR_X) != 0, y += (p.flip & FERRY_MIRROR_Y) != 0, both += p.flip == 3;
  }
  expect_rate(x, kDraws, 0.3, "flip x");
  expect_rate(y, kDraws, 0.7, "flip y");
  expect_rate(both, kDraws, 0.21, "both (independent)");
  a.flip_x_probability = 0.0f, a.flip_y_probability = 1.0f;
  for (const auto& p : draw(a, 1000, 10, 10, 10, 10)) ASSERT_EQ(p.flip, FERRY_MIRROR_Y);
}

TEST(AugmentDraw, RandomResizedBoxesFollowScaleAndRatio) {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  a.seed = 5;
  a.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  const std::int64_t W = 100, H = 80;
  const auto d = draw(a, kDraws, H, W, 32, 32);
  double position = 0, variance = 0, least = 10, most = 0;
  std::int64_t positioned = 0, outside = 0;
  for (const auto& p : d) {
    const ferry_rect& r = p.crop;
    ASSERT_TRUE(r.w > 0 && r.h > 0 && r.x >= 0 && r.y >= 0 && r.x + r.w <= W && r.y + r.h <= H)
        << r.x << "," << r.y << " " << r.w << "x" << r.h;
    // The fallback on this image (aspect 1.25, inside the ratio) is the whole image, also in range.
    outside += !rounds_from_range(static_cast<double>(r.w), static_cast<double>(r.h), 0.08 * W * H, 1.0 * W * H,
                                  3.0 / 4.0, 4.0 / 3.0);
    least = std::min(least, static_cast<double>(r.w) / static_cast<double>(r.h));
    most = std::max(most, static_cast<double>(r.w) / static_cast<double>(r.h));
    if (r.w < W) {  // x / m, x uniform on 0 .. m: mean 1/2, variance (m + 2) / (12 m)
      const auto m = static_cast<double>(W - r.w);
      position += static_cast<double>(r.x) / m, variance += (m + 2) / (12 * m), ++positioned;
    }
  }
  EXPECT_EQ(outside, 0);
  EXPECT_LT(least, 0.76) << "aspects down to 3/4";
  EXPECT_GT(most, 1.31) << "aspects up to 4/3";
  EXPECT_GT(positioned, kDraws / 2);
  EXPECT_LE(std::fabs(position - 0.5 * static_cast<double>(positioned)), 5 * std::sqrt(variance))
      << "x uniform in 0 .. W - w";
}

// torchvision's fallback after ten misses: the central crop of the largest
// box of the ratio's nearest end, w or h rounded half to even (Python's round).
TEST(AugmentDraw, RandomResizedFallbackIsTorchvisionsCentralCrop) {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  a.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  a.scale[0] = 0.99f, a.scale[1] = 1.0f;
  struct Case {
    std::int64_t w, h;
    float ratio_lo, ratio_hi;
    ferry_rect want;
  };
  const Case cases[] = {
      {60, 60, 4, 5, {0, 22, 60, 15}},      // h = 60 / 4
      {50, 50, 4, 5, {0, 19, 50, 12}},      // h = round(12.5) = 12 (half to even)
      {70, 70, 4, 5, {0, 26, 70, 18}},      // h = round(17.5) = 18
      {60, 60, 0.2f, 0.25f, {22, 0, 15, 60}},  // w = 60 * 0.25
      {50, 50, 0.2f, 0.25f, {19, 0, 12, 50}},  // w = round(12.5) = 12
  };
  for (const Case& c : cases) {
    a.ratio[0] = c.ratio_lo, a.ratio[1] = c.ratio_hi;
    for (const auto& p : draw(a, kDraws, c.h, c.w, 8, 8))
      ASSERT_TRUE(same_rect(p.crop, c.want)) << c.w << "x" << c.h << " ratio " << c.ratio_lo << ": " << p.crop.x
                                             << "," << p.crop.y << " " << p.crop.w << "x" << p.crop.h;
  }
}

TEST(AugmentDraw, RandomCropPositionsAreUniformInThePaddedImage) {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  a.seed = 99;
  a.crop = FERRY_AUGMENT_CROP_RANDOM;
  a.padding = 4;
  const auto cifar = draw(a, kDraws, 32, 32, 32, 32);
  std::int64_t at[9] = {};
  double sx = 0, sy = 0;
  for (const auto& p : cifar) {
    ASSERT_TRUE(p.crop.w == 32 && p.crop.h == 32 && p.crop.x >= -4 && p.crop.x <= 4 && p.crop.y >= -4 && p.crop.y <= 4)
        << p.crop.x << "," << p.crop.y;
    ++at[p.crop.x + 4];
    sx += static_cast<double>(p.crop.x + 4), sy += static_cast<double>(p.crop.y + 4);
  }
  for (int i = 0; i < 9; ++i) expect_rate(at[i], kDraws, 1.0 / 9, "x = " + std::to_string(i - 4));
  // A discrete uniform on 0..8 has the variance of (9^2 - 1) / 12; the test's bound is the continuous one's.
  expect_uniform_mean(sx, kDraws, 0, 8, "x");
  expect_uniform_mean(sy, kDraws, 0, 8, "y");
  // A non-square image and output: x in -3 .. 20 + 3 - 24, y in -3 .. 30 + 3 - 16.
  a.padding = 3;
  double my = 0;
  for (const auto& p : draw(a, kDraws, 30, 20, 24, 16)) {
    ASSERT_TRUE(p.crop.w == 24 && p.crop.h == 16 && p.crop.x >= -3 && p.crop.x <= -1 && p.crop.y >= -3 &&
                p.crop.y <= 17)
        << p.crop.x << "," << p.crop.y;
    my += static_cast<double>(p.crop.y + 3);
  }
  expect_uniform_mean(my, kDraws, 0, 20, "y of 20x30 padded by 3");
}

TEST(AugmentDraw, CenterCropIsTorchvisions) {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  a.crop = FERRY_AUGMENT_CROP_CENTER;
  a.seed = 3;
  struct Case {
    std::int64_t w, h, out_w, out_h;
    ferry_rect want;
  };
  const Case cases[] = {
      {100, 80, 33, 25, {34, 28, 33, 25}},  // round(33.5) = 34, round(27.5) = 28
      {101, 80, 32, 25, {34, 28, 32, 25}},  // round(34.5) = 34
      {23, 21, 16, 16, {4, 2, 16, 16}},     // round(3.5) = 4, round(2.5) = 2
      {10, 7, 16, 12, {-3, -2, 16, 12}},    // padded: left (16 - 10) / 2, top (12 - 7) // 2
      {9, 7, 16, 12, {-3, -2, 16, 12}},     // (16 - 9) // 2 = 3 left, 4 right
      {20, 7, 16, 12, {2, -2, 16, 12}},     // wider than the crop, shorter
      {16, 12, 16, 12, {0, 0, 16, 12}},
  };
  for (const Case& c : cases)
    for (const auto& p : draw(a, 1000, c.h, c.w, c.out_w, c.out_h))
      ASSERT_TRUE(same_rect(p.crop, c.want)) << c.w << "x" << c.h << " to " << c.out_w << "x" << c.out_h << ": "
                                             << p.crop.x << "," << p.crop.y << " " << p.crop.w << "x" << p.crop.h;
}

TEST(AugmentDraw, JitterFactorsAndOrder) {
  const ferry_augment a = full_augment();
  const auto d = draw(a, kDraws, 16, 16, 16, 16);
  const double lo[4] = {0.6, 0.5, 0.0, -0.5}, hi[4] = {1.4, 1.5, 2.0, 0.5};
  double sum[4] = {};
  std::int64_t first[4] = {}, position[4][4] = {};
  std::set<std::vector<int>> orders;
  for (const auto& p : d) {
    const float f[4] = {p.brightness, p.contrast, p.saturation, p.hue};
    for (int k = 0; k < 4; ++k) {
      ASSERT_TRUE(f[k] >= lo[k] && f[k] <= hi[k]) << "op " << k << ": " << f[k];
      sum[k] += f[k];
    }
    std::vector<int> order(p.jitter_order, p.jitter_order + 4);
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, (std::vector<int>{0, 1, 2, 3})) << "a permutation";
    ++first[order[0]];
    for (int i = 0; i < 4; ++i) ++position[i][order[i]];
    orders.insert(order);
  }
  for (int k = 0; k < 4; ++k) {
    expect_uniform_mean(sum[k], kDraws, lo[k], hi[k], "factor " + std::to_string(k));
    expect_rate(first[k], kDraws, 0.25, "op " + std::to_string(k) + " first");
    for (int i = 0; i < 4; ++i) expect_rate(position[i][k], kDraws, 0.25, "op at position " + std::to_string(i));
  }
  EXPECT_EQ(orders.size(), 24u);

  // Two of four on: they run first, each first half the time; the others read 1 (hue 0).
  ferry_augment two;
  ferry_augment_init(&two, sizeof two);
  two.brightness[0] = 0.5f, two.brightness[1] = 1.5f;
  two.hue[0] = -0.1f, two.hue[1] = 0.1f;
  std::int64_t brightness_first = 0;
  for (const auto& p : draw(two, kDraws, 16, 16, 16, 16)) {
    ASSERT_EQ(p.contrast, 1.0f);
    ASSERT_EQ(p.saturation, 1.0f);
    const std::set<int> on(p.jitter_order, p.jitter_order + 2);
    ASSERT_EQ(on, (std::set<int>{FERRY_JITTER_BRIGHTNESS, FERRY_JITTER_HUE}));
    brightness_first += p.jitter_order[0] == FERRY_JITTER_BRIGHTNESS;
    ASSERT_TRUE(p.hue >= -0.1f && p.hue <= 0.1f);
  }
  expect_rate(brightness_first, kDraws, 0.5, "brightness before hue");
}

TEST(AugmentDraw, GrayscaleAndEraseRatesAndBoxes) {
  ferry_augment a = full_augment();
  a.erase_probability = 0.4f;
  const std::int64_t OW = 64, OH = 48;
  const auto d = draw(a, kDraws, 40, 40, OW, OH);
  std::int64_t gray = 0, erased = 0, outside = 0;
  for (const auto& p : d) {
    gray += p.grayscale;
    ASSERT_TRUE(p.erased == 0 || p.erased == 1);
    if (!p.erased) {
      ASSERT_TRUE(same_rect(p.erase, ferry_rect{0, 0, 0, 0}));
      continue;
    }
    ++erased;
    const ferry_rect& r = p.erase;
    ASSERT_TRUE(r.w > 0 && r.h > 0 && r.w < OW && r.h < OH && r.x >= 0 && r.y >= 0 && r.x + r.w <= OW &&
                r.y + r.h <= OH)
        << r.x << "," << r.y << " " << r.w << "x" << r.h;
    // erase_ratio is h / w.
    outside += !rounds_from_range(static_cast<double>(r.h), static_cast<double>(r.w), 0.02 * OW * OH, 0.33 * OW * OH,
                                  0.3, 3.3);
  }
  EXPECT_EQ(outside, 0);
  expect_rate(gray, kDraws, 0.2, "grayscale");
  // Ten misses (no box) are rare at this size: far under the rate's 5 sigma.
  expect_rate(erased, kDraws, 0.4, "erase");

  a.erase_probability = 0.0f, a.grayscale_probability = 0.0f;
  for (const auto& p : draw(a, 1000, 40, 40, OW, OH)) ASSERT_TRUE(p.erased == 0 && p.grayscale == 0);
  a.grayscale_probability = 1.0f;
  for (const auto& p : draw(a, 1000, 40, 40, OW, OH)) ASSERT_EQ(p.grayscale, 1);
}

// Sample i draws as index first_index + i: indices past 2^32 do not wrap
// onto index 0's draws, and an index from 2^39 on is refused.
TEST(AugmentDraw, IndicesPast2To32DoNotRepeatIndexZeroAndEndAt2To39) {
  ferry_augment a = full_augment();
  a.first_index = (std::int64_t{1} << 32) - 1;
  const std::int64_t h[3] = {40, 40, 40}, w[3] = {50, 50, 50};
  ferry_augment_params past[3];
  ASSERT_EQ(ferry_augment_draw(&a, 3, h, w, 16, 16, past, 0), FERRY_OK) << ferry_last_error();
  a.first_index = 0;
  const auto start = draw(a, 2, 40, 50, 16, 16);
  EXPECT_NE(difference(past[1], start[0]), "") << "index 2^32 draws as index 0";
  EXPECT_NE(difference(past[2], start[1]), "") << "index 2^32 + 1 draws as index 1";

  a.first_index = (std::int64_t{1} << 39) - 2;
  EXPECT_EQ(ferry_augment_draw(&a, 2, h, w, 16, 16, past, 0), FERRY_OK) << "the last two indices";
  EXPECT_EQ(ferry_augment_draw(&a, 3, h, w, 16, 16, past, 0), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ferry_last_error()).find("augment.first_index + 2"), std::string::npos) << ferry_last_error();
  a.first_index = std::int64_t{1} << 39;
  EXPECT_EQ(ferry_augment_draw(&a, 1, h, w, 16, 16, past, 0), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ferry_last_error()).find("augment.first_index"), std::string::npos) << ferry_last_error();
}

// `drawn` is written only by a call that succeeds: one refused later (its
// output too small, a sample too small for its crop) leaves it as it was.
TEST(AugmentDraw, ARefusedCallLeavesDrawnAlone) {
  DrawnCall call;
  std::vector<unsigned char> drawn(5 * sizeof(ferry_augment_params), 0xCD);
  call.augment.drawn = reinterpret_cast<ferry_augment_params*>(drawn.data());
  call.output.bytes -= 1;
  EXPECT_EQ(call.apply(), FERRY_ERR_OUTPUT_TOO_SMALL) << ferry_last_error();
  call.output.bytes += 1;
  call.augment.crop = FERRY_AUGMENT_CROP_RANDOM;  // sample 2 is 12x9: smaller than 13 x 6
  call.transform.resize_w = 13;
  EXPECT_EQ(call.apply(), FERRY_ERR_OUT_OF_RANGE) << ferry_last_error();
  ferry_batch_t batch = nullptr;
  EXPECT_EQ(ferry_batch_submit(&batch, call.ctx, &call.source, &call.transform, &call.output, nullptr),
            FERRY_ERR_OUT_OF_RANGE);
  for (std::size_t b = 0; b < drawn.size(); ++b) ASSERT_EQ(drawn[b], 0xCD) << "byte " << b;
}
