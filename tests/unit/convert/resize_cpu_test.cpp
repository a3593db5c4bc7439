// Resize (transform.resize_w/h) on the CPU backend: each sample's axes
// (resize_geometry) for every mode, random cases against the scalar reference
// (tests/support/convert_reference.h, written from the header alone) over
// every interpolation, mode and dtype, and known values worked out by hand,
// so a mistake shared by ferry and the reference cannot hide.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/convert_plan.h"
#include "core/convert/resize_geometry.h"
#include "core/convert/resize_taps.h"
#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"
#include "tests/support/convert_resize_cases.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;
using ferry::core::LetterboxAlign;
using ferry::core::RectF;
using ferry::core::ResizeAxes;
using ferry::core::ResizeMode;
using ferry::core::Transform;

ResizeAxes axes_of(RectF window, ResizeMode mode, std::int64_t out_w, std::int64_t out_h,
                   LetterboxAlign align = LetterboxAlign::Center, std::int64_t shorter = 0) {
  Transform t;
  t.resize_w = out_w, t.resize_h = out_h;
  t.resize_mode = mode;
  t.letterbox_align = align;
  t.resize_shorter = shorter;
  return ferry::core::resize_axes_of(window, t);
}

// A CPU context, destroyed at the end of the scope.
struct CpuContext {
  ferry_context_t ctx;
  explicit CpuContext(int threads) : ctx(make_test_context(FERRY_DEVICE_CPU, threads)) {}
  ~CpuContext() { ferry_context_destroy(ctx); }
};

// ferry and the reference into 0xAB-poisoned buffers, compared byte by byte
// (the gaps of padded strides too). "" or the first difference.
std::string check_resize_case(ferry_context_t ctx, ResizeCase& c) {
  std::vector<std::uint8_t> got(c.output_bytes, 0xAB), want(c.output_bytes, 0xAB);
  c.output.data = got.data();
  if (ferry_transform_apply(ctx, &c.source, &c.transform, &c.output, nullptr) != FERRY_OK)
    return std::string("ferry_transform_apply failed: ") + ferry_last_error();
  reference_convert(c.source, c.transform, c.output, want.data());
  for (std::size_t b = 0; b < got.size(); ++b)
    if (got[b] != want[b])
      return "byte " + std::to_string(b) + " of " + std::to_string(got.size()) + ": got " + std::to_string(got[b]) +
             ", want " + std::to_string(want[b]);
  return "";
}

}  // namespace

// --- geometry ---

TEST(ResizeGeometry, StretchFillsTheOutput) {
  const ResizeAxes a = axes_of({0, 0, 640, 480}, ResizeMode::Stretch, 224, 100);
  EXPECT_EQ(a.x.length, 224);
  EXPECT_EQ(a.y.length, 100);
  EXPECT_EQ(a.x.offset, 0);
  EXPECT_EQ(a.y.offset, 0);
  EXPECT_EQ(a.x.scale, static_cast<float>(640.0 / 224.0));
  EXPECT_EQ(a.y.scale, 4.8f);
  EXPECT_EQ(a.x.lo, 0);
  EXPECT_EQ(a.x.hi, 639);
}

TEST(ResizeGeometry, FractionalWindowReadsTheColumnsItTouches) {
  const ResizeAxes a = axes_of({1.25f, 0.5f, 2.5f, 3.0f}, ResizeMode::Stretch, 5, 6);
  EXPECT_EQ(a.x.origin, 1.25f);
  EXPECT_EQ(a.x.lo, 1);
  EXPECT_EQ(a.x.hi, 3);  // ceil(3.75) - 1
  EXPECT_EQ(a.y.lo, 0);
  EXPECT_EQ(a.y.hi, 3);  // ceil(3.5) - 1
  EXPECT_EQ(a.x.scale, 0.5f);
}

TEST(ResizeGeometry, LetterboxLandscapeAndPortrait) {
  // 200x100 into 64x64: s = 0.32, 64x32, bars of 16 above and below.
  ResizeAxes a = axes_of({0, 0, 200, 100}, ResizeMode::Letterbox, 64, 64);
  EXPECT_EQ(a.x.length, 64);
  EXPECT_EQ(a.y.length, 32);
  EXPECT_EQ(a.x.offset, 0);
  EXPECT_EQ(a.y.offset, -16);
  a = axes_of({0, 0, 200, 100}, ResizeMode::Letterbox, 64, 64, LetterboxAlign::TopLeft);
  EXPECT_EQ(a.y.length, 32);
  EXPECT_EQ(a.y.offset, 0);
  // 100x200 into 64x48: s = 0.24, 24x48, bars of 20 left and right.
  a = axes_of({0, 0, 100, 200}, ResizeMode::Letterbox, 64, 48);
  EXPECT_EQ(a.x.length, 24);
  EXPECT_EQ(a.y.length, 48);
  EXPECT_EQ(a.x.offset, -20);
  EXPECT_EQ(a.y.offset, 0);
  // An odd bar total: the extra pixel goes right / bottom (2 above, 3 below).
  a = axes_of({0, 0, 100, 50}, ResizeMode::Letterbox, 10, 10);
  EXPECT_EQ(a.y.length, 5);
  EXPECT_EQ(a.y.offset, -2);
  // round(ww * s) half away from zero: 3 x 1 into 2 x 2 gives s = 2/3, h = round(0.667) = 1.
  a = axes_of({0, 0, 3, 1}, ResizeMode::Letterbox, 2, 2);
  EXPECT_EQ(a.x.length, 2);
  EXPECT_EQ(a.y.length, 1);
  EXPECT_EQ(a.y.offset, 0);  // -floor(1 / 2)
  // A side never shrinks below one pixel: 1000 x 1 into 4 x 4.
  a = axes_of({0, 0, 1000, 1}, ResizeMode::Letterbox, 4, 4);
  EXPECT_EQ(a.y.length, 1);
  EXPECT_EQ(a.y.offset, -1);
}

TEST(ResizeGeometry, ShorterSideAndCenterCrop) {
  // 640x480, shorter side 256: 341x256; CenterCrop 224: x (341 - 224) / 2 = 58.5 -> 58 (to even), y 16.
  ResizeAxes a = axes_of({0, 0, 640, 480}, ResizeMode::ShorterSide, 224, 224, LetterboxAlign::Center, 256);
  EXPECT_EQ(a.x.length, 341);
  EXPECT_EQ(a.y.length, 256);
  EXPECT_EQ(a.x.offset, 58);
  EXPECT_EQ(a.y.offset, 16);
  // 227x224 at 224: 227 wide, (227 - 224) / 2 = 1.5 -> 2 (to even).
  a = axes_of({0, 0, 227, 224}, ResizeMode::ShorterSide, 224, 224, LetterboxAlign::Center, 224);
  EXPECT_EQ(a.x.length, 227);
  EXPECT_EQ(a.x.offset, 2);
  // Portrait: the width is the shorter side.
  a = axes_of({0, 0, 300, 500}, ResizeMode::ShorterSide, 100, 100, LetterboxAlign::Center, 120);
  EXPECT_EQ(a.x.length, 120);
  EXPECT_EQ(a.y.length, 200);
  EXPECT_EQ(a.x.offset, 10);
  EXPECT_EQ(a.y.offset, 50);
  // A square window: both sides become resize_shorter.
  a = axes_of({0, 0, 50, 50}, ResizeMode::ShorterSide, 32, 32, LetterboxAlign::Center, 40);
  EXPECT_EQ(a.x.length, 40);
  EXPECT_EQ(a.y.length, 40);
  EXPECT_EQ(a.x.offset, 4);
  // Resized smaller than the output: 100x50 at 10 is 20x10 in 32x32, bars as a letterbox.
  a = axes_of({0, 0, 100, 50}, ResizeMode::ShorterSide, 32, 32, LetterboxAlign::Center, 10);
  EXPECT_EQ(a.x.length, 20);
  EXPECT_EQ(a.y.length, 10);
  EXPECT_EQ(a.x.offset, -6);
  EXPECT_EQ(a.y.offset, -11);
  a = axes_of({0, 0, 100, 50}, ResizeMode::ShorterSide, 32, 32, LetterboxAlign::TopLeft, 10);
  EXPECT_EQ(a.x.offset, 0);
  EXPECT_EQ(a.y.offset, 0);
  // One axis cropped, the other barred: 100x50 at 10 into 16x16 (x: (20 - 16) / 2 = 2; y: bars of 3).
  a = axes_of({0, 0, 100, 50}, ResizeMode::ShorterSide, 16, 16, LetterboxAlign::Center, 10);
  EXPECT_EQ(a.x.offset, 2);
  EXPECT_EQ(a.y.offset, -3);
}

// --- against the reference ---

TEST(ResizeCpu, RandomCasesMatchTheReference) {
  CpuContext cpu(2);
  int failures = 0;
  const int cases = for_each_resize_case(24, [&](std::unique_ptr<ResizeCase> c, std::uint32_t seed) {
    ASSERT_NE(c, nullptr) << "seed " << seed << ": " << ferry_last_error();
    const std::string diff = check_resize_case(cpu.ctx, *c);
    if (!diff.empty() && ++failures <= 10) ADD_FAILURE() << c->name << ": " << diff;
  });
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_EQ(cases, 5 * 3 * 4 * 24);
}

// --- known values, worked out by hand ---

namespace {

// One 1-channel image (w x h, rows top to bottom) resized to out_w x out_h as
// float32 (scale 1, mean 0, std 1: the output is V itself) or uint8.
std::vector<float> resize_by_hand_case(ferry_interpolation m, int w, int h, const std::vector<std::uint8_t>& pixels,
                                       int out_w, int out_h, ferry_dtype dtype = FERRY_DTYPE_FLOAT32,
                                       ferry_resize_mode mode = FERRY_RESIZE_STRETCH, int mirror = 0) {
  CpuContext cpu(2);
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = pixels.data();
  s.bytes = pixels.size();
  s.n = 1, s.h = h, s.w = w, s.c = 1;
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = dtype;
  if (dtype == FERRY_DTYPE_FLOAT32) t.scale = 1.0f;
  t.resize_w = out_w, t.resize_h = out_h;
  t.interpolation = m;
  t.resize_mode = mode;
  t.mirror = mirror;
  t.letterbox_value[0] = 9.0f;
  const std::size_t e = dtype == FERRY_DTYPE_FLOAT32 ? 4 : 1;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(out_w * out_h) * e, 0xAB);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = out.data();
  o.bytes = out.size();
  EXPECT_EQ(ferry_transform_apply(cpu.ctx, &s, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
  std::vector<float> values(static_cast<std::size_t>(out_w * out_h));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (e == 4)
      std::memcpy(&values[i], &out[i * 4], 4);
    else
      values[i] = out[i];
  }
  return values;
}

}  // namespace

// 4x1 pixels 0, 100, 200, 50 halved to 2x1: sx = 2, centers c = 1 and 3.
TEST(ResizeKnownValues, HalvingARow) {
  const std::vector<std::uint8_t> row = {0, 100, 200, 50};
  // NEAREST: columns floor(1) = 1 and floor(3) = 3.
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_NEAREST, 4, 1, row, 2, 1), (std::vector<float>{100, 50}));
  // LINEAR: t = 0.5 (f = 0.5 of columns 0, 1) and 2.5 (of 2, 3).
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_LINEAR, 4, 1, row, 2, 1), (std::vector<float>{50, 125}));
  // CUBIC at f = 0.5: -0.09375, 0.59375, 0.59375, -0.09375; column -1 clamps to 0 and 4 to 3.
  // 0.59375 * 100 - 0.09375 * 200 = 40.625; -9.375 + 118.75 + 29.6875 - 4.6875 = 134.375.
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_CUBIC, 4, 1, row, 2, 1), (std::vector<float>{40.625f, 134.375f}));
  // AREA: footprints [0, 2) and [2, 4), weights 1 and 1, divided by 2.
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_AREA, 4, 1, row, 2, 1), (std::vector<float>{50, 125}));
  // LINEAR_ANTIALIAS, support 2: c = 1 reads columns -1 (dropped) .. 2 with 0.75, 0.75, 0.25 (sum 1.75);
  // c = 3 reads 1 .. 4 (dropped) with 0.25, 0.75, 0.75.
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_LINEAR_ANTIALIAS, 4, 1, row, 2, 1),
            (std::vector<float>{125.0f / 1.75f, 212.5f / 1.75f}));
}

// 2x2 pixels doubled to 4x4 (sx = 0.5): LINEAR reads columns with weights
// (0.25 of -1 -> 0, 0.75 of 0), (0.75, 0.25), (0.25, 0.75), (0.75 of 1, 0.25 of 2 -> 1).
TEST(ResizeKnownValues, DoublingASquareLinearToUint8) {
  const std::vector<std::uint8_t> px = {0, 100, 200, 40};
  // Rows: H(0) = 0 25 75 100, H(1) = 200 160 80 40; row 1 = 0.75 H(0) + 0.25 H(1) =
  // 50 58.75 76.25 85, row 2 = 150 126.25 78.75 55: rounded half to even.
  const std::vector<float> want = {0, 25, 75, 100, 50, 59, 76, 85, 150, 126, 79, 55, 200, 160, 80, 40};
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_LINEAR, 2, 2, px, 4, 4, FERRY_DTYPE_UINT8), want);
  // Mirrored in x: each row reversed.
  const std::vector<float> mirrored = {100, 75, 25, 0, 85, 76, 59, 50, 55, 79, 126, 150, 40, 80, 160, 200};
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_LINEAR, 2, 2, px, 4, 4, FERRY_DTYPE_UINT8, FERRY_RESIZE_STRETCH,
                                FERRY_MIRROR_X),
            mirrored);
  // NEAREST: each pixel twice in each direction.
  const std::vector<float> nearest = {0, 0, 100, 100, 0, 0, 100, 100, 200, 200, 40, 40, 200, 200, 40, 40};
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_NEAREST, 2, 2, px, 4, 4, FERRY_DTYPE_UINT8), nearest);
  // AREA upscaled: footprints of half a pixel inside one pixel, the pixel itself.
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_AREA, 2, 2, px, 4, 4, FERRY_DTYPE_UINT8), nearest);
}

// A 4x2 image letterboxed into 4x4: s = 1, bars of one row above and below.
TEST(ResizeKnownValues, LetterboxBars) {
  const std::vector<std::uint8_t> px = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<float> want = {9, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9};
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_NEAREST, 4, 2, px, 4, 4, FERRY_DTYPE_UINT8, FERRY_RESIZE_LETTERBOX),
            want);
  // Mirrored in y: the image rows swap, the bars stay.
  const std::vector<float> flipped = {9, 9, 9, 9, 5, 6, 7, 8, 1, 2, 3, 4, 9, 9, 9, 9};
  EXPECT_EQ(resize_by_hand_case(FERRY_INTERP_LINEAR, 4, 2, px, 4, 4, FERRY_DTYPE_UINT8, FERRY_RESIZE_LETTERBOX,
                                FERRY_MIRROR_Y),
            flipped);
}

// AREA on a window narrower than float's resolution where it lies (1e-5 of a
// pixel at x = 1000.5, upscaled): every footprint [a, b) rounds to a = b, keeps
// no weight (or no tap), and reads as V = 0 (0 / 0 before), on ferry and the
// reference alike.
TEST(ResizeKnownValues, AreaFootprintBelowFloatResolutionIsZero) {
  CpuContext cpu(2);
  const std::vector<std::uint8_t> px(2000, 200);
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = px.data();
  s.bytes = px.size();
  s.n = 1, s.h = 1, s.w = 2000, s.c = 1;
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.scale = 1.0f;
  t.resize_w = 4, t.resize_h = 1;
  t.interpolation = FERRY_INTERP_AREA;
  t.window = {1000.5f, 0.0f, 1e-5f, 1.0f};
  std::vector<float> got(4, -1.0f), want(4, -1.0f);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = got.data();
  o.bytes = got.size() * sizeof(float);
  ASSERT_EQ(ferry_transform_apply(cpu.ctx, &s, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(got, (std::vector<float>{0, 0, 0, 0}));
  reference_convert(s, t, o, reinterpret_cast<std::uint8_t*>(want.data()));
  EXPECT_EQ(want, got);
  // Along y from an integer edge: a = b = 1000 reads no source row at all (rows 1000 .. 999).
  s.h = 2000, s.w = 1;
  t.resize_w = 1, t.resize_h = 4;
  t.window = {0.0f, 1000.0f, 1.0f, 1e-5f};
  std::fill(got.begin(), got.end(), -1.0f);
  ASSERT_EQ(ferry_transform_apply(cpu.ctx, &s, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(got, (std::vector<float>{0, 0, 0, 0}));
  reference_convert(s, t, o, reinterpret_cast<std::uint8_t*>(want.data()));
  EXPECT_EQ(want, got);
}

// --- the shared tap arithmetic ---

namespace {

using ferry::core::Interpolation;

// V of one output pixel by resize::resample<M, 4> (what the CUDA kernel will
// call per pixel), the mapped channels loaded as floats, the others 0.
template <Interpolation M>
void resample_with(const ResizeAxes& axes, int ry, int rx, const std::uint8_t* sample, const std::int64_t* st,
                   const int* map, int channels, float (&v)[4]) {
  ferry::core::resize::resample<M, 4>(
      axes, ry, rx,
      [&](int i, int j, float (&px)[4]) {
        for (int k = 0; k < 4; ++k) px[k] = k < channels ? static_cast<float>(sample[i * st[0] + j * st[1] + map[k] * st[2]]) : 0.0f;
      },
      v);
}

}  // namespace

// The CPU path restructures the loops (x taps per sample, H rows kept between
// output rows) but must give, element for element, what resize::resample gives
// per pixel: float32 output with alpha 1 and beta 0 is V itself.
TEST(ResizeCpu, EqualsTheSharedResamplePerPixel) {
  CpuContext cpu(2);
  const ferry_interpolation interps[] = {FERRY_INTERP_NEAREST, FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC,
                                         FERRY_INTERP_AREA, FERRY_INTERP_LINEAR_ANTIALIAS};
  int compared = 0;
  for (ferry_interpolation m : interps) {
    for (int r = 0; r < 30; ++r) {
      auto c = make_resize_case(static_cast<std::uint32_t>(r * 7919 + m), m,
                                static_cast<ferry_resize_mode>(1 + r % 3), FERRY_DTYPE_FLOAT32);
      ASSERT_NE(c, nullptr) << ferry_last_error();
      ferry_transform& t = c->transform;
      t.scale = 1.0f;
      for (int k = 0; k < 4; ++k) t.mean[k] = 0.0f, t.std[k] = 1.0f;
      t.per_sample_mean = t.per_sample_std = nullptr;
      t.out_layout = FERRY_LAYOUT_NCHW;
      t.pad_channels_to_4 = 0;
      ferry_output_init(&c->output, sizeof c->output);
      ferry_tensor_info info;
      ferry_tensor_info_init(&info, sizeof info);
      ASSERT_EQ(ferry_transform_describe_output(&info, &c->source, &t), FERRY_OK) << ferry_last_error();
      std::vector<float> got(info.bytes / 4, -7.0f);
      c->output.data = got.data();
      c->output.bytes = info.bytes;
      ASSERT_EQ(ferry_transform_apply(cpu.ctx, &c->source, &t, &c->output, nullptr), FERRY_OK) << ferry_last_error();
      const ferry::core::SourceDesc sd = ferry::api::to_core(c->source);
      const ferry::core::ConvertPlan plan = ferry::core::make_convert_plan(sd, ferry::api::to_core(t), nullptr);
      const ferry::core::SourceView view = ferry::core::source_view_of(plan, sd);
      const std::int64_t st[3] = {view.strides.h, view.strides.w, view.strides.c};
      const int oc = plan.out_channels;
      for (std::int64_t g = 0; g < plan.n; ++g) {
        const std::uint8_t* sample = view.samples ? view.samples[g] : view.base + g * view.strides.n;
        const ResizeAxes& axes = plan.resize_of(g);
        const int mirror = plan.mirror_of(g);
        for (std::int64_t y = 0; y < plan.out_h; ++y)
          for (std::int64_t x = 0; x < plan.out_w; ++x) {
            const int ry = static_cast<int>(((mirror & 2) ? plan.out_h - 1 - y : y) + axes.y.offset);
            const int rx = static_cast<int>(((mirror & 1) ? plan.out_w - 1 - x : x) + axes.x.offset);
            if (ry < 0 || ry >= axes.y.length || rx < 0 || rx >= axes.x.length) continue;
            float v[4];
            switch (m) {
              case FERRY_INTERP_NEAREST: resample_with<Interpolation::Nearest>(axes, ry, rx, sample, st, plan.channel_map, oc, v); break;
              case FERRY_INTERP_LINEAR: resample_with<Interpolation::Linear>(axes, ry, rx, sample, st, plan.channel_map, oc, v); break;
              case FERRY_INTERP_CUBIC: resample_with<Interpolation::Cubic>(axes, ry, rx, sample, st, plan.channel_map, oc, v); break;
              case FERRY_INTERP_AREA: resample_with<Interpolation::Area>(axes, ry, rx, sample, st, plan.channel_map, oc, v); break;
              default: resample_with<Interpolation::LinearAntialias>(axes, ry, rx, sample, st, plan.channel_map, oc, v); break;
            }
            for (int k = 0; k < oc; ++k) {
              const float want = ferry::core::resize::add(ferry::core::resize::mul(v[k], 1.0f), 0.0f);
              const float have = got[static_cast<std::size_t>(((g * oc + k) * plan.out_h + y) * plan.out_w + x)];
              ASSERT_EQ(std::memcmp(&have, &want, 4), 0) << c->name << " sample " << g << " y " << y << " x " << x
                                                         << " k " << k << ": " << have << " vs " << want;
              ++compared;
            }
          }
      }
    }
  }
  EXPECT_GT(compared, 10000);
}

// Larger images than the random cases: rows over several threads' chunks, the
// H rows kept across output rows (upscales) and many taps (downscales), every
// interpolation, against the reference.
TEST(ResizeCpu, LargerImagesAcrossThreadsMatchTheReference) {
  CpuContext cpu(4);
  const int n = 3, w = 301, h = 203;
  std::vector<std::uint8_t> px(static_cast<std::size_t>(n * w * h * 3));
  for (std::size_t b = 0; b < px.size(); ++b) px[b] = static_cast<std::uint8_t>((b * 2654435761u) >> 11);
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = px.data();
  s.bytes = px.size();
  s.n = n, s.h = h, s.w = w, s.c = 3;
  const std::int64_t sizes[][2] = {{97, 61}, {333, 219}, {7, 300}};
  for (ferry_interpolation m : {FERRY_INTERP_NEAREST, FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC, FERRY_INTERP_AREA,
                                FERRY_INTERP_LINEAR_ANTIALIAS})
    for (const auto& size : sizes)
      for (ferry_dtype d : {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32}) {
        ferry_transform t;
        ferry_transform_init(&t, sizeof t);
        t.out_dtype = d;
        t.out_layout = d == FERRY_DTYPE_UINT8 ? FERRY_LAYOUT_NHWC : FERRY_LAYOUT_NCHW;
        t.interpolation = m;
        t.resize_w = size[0], t.resize_h = size[1];
        t.mirror = static_cast<int>(size[0] % 4);
        ferry_tensor_info info;
        ferry_tensor_info_init(&info, sizeof info);
        ASSERT_EQ(ferry_transform_describe_output(&info, &s, &t), FERRY_OK) << ferry_last_error();
        std::vector<std::uint8_t> got(info.bytes, 0xAB), want(info.bytes, 0xAB);
        ferry_output o;
        ferry_output_init(&o, sizeof o);
        o.data = got.data();
        o.bytes = info.bytes;
        ASSERT_EQ(ferry_transform_apply(cpu.ctx, &s, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
        reference_convert(s, t, o, want.data());
        EXPECT_EQ(got, want) << interpolation_name(m) << " " << size[0] << "x" << size[1] << " dtype " << d;
      }
}

// AREA and LINEAR_ANTIALIAS take a downscale of 256 per axis, not more.
TEST(ResizeCpu, DownscaleOf256IsTheLimit) {
  CpuContext cpu(2);
  std::vector<std::uint8_t> px(513 * 2);
  for (std::size_t b = 0; b < px.size(); ++b) px[b] = static_cast<std::uint8_t>(b * 7);
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = px.data();
  s.bytes = px.size();
  s.n = 1, s.h = 2, s.w = 513, s.c = 1;
  for (ferry_interpolation m : {FERRY_INTERP_AREA, FERRY_INTERP_LINEAR_ANTIALIAS}) {
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.interpolation = m;
    t.resize_w = 2, t.resize_h = 2;
    t.window = {0.5f, 0.0f, 512.0f, 2.0f};  // 256 per output pixel
    std::vector<float> got(4, -1.0f), want(4, -1.0f);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = got.data();
    o.bytes = 16;
    ASSERT_EQ(ferry_transform_apply(cpu.ctx, &s, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
    reference_convert(s, t, o, reinterpret_cast<std::uint8_t*>(want.data()));
    EXPECT_EQ(got, want) << interpolation_name(m);
    t.window.w = 512.25f;  // just over
    EXPECT_EQ(ferry_transform_apply(cpu.ctx, &s, &t, &o, nullptr), FERRY_ERR_UNSUPPORTED) << interpolation_name(m);
    EXPECT_NE(std::string(ferry_last_error()).find("256"), std::string::npos) << ferry_last_error();
  }
}
