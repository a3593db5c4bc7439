// Row bands (core/stage/row_band.h): how a frame is cut, and that converting
// band by band with band_plan writes exactly what converting the whole frame
// writes, for every output layout, dtype, window and mirror a band may have.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/convert_cpu.h"
#include "core/stage/row_band.h"

namespace {

using namespace ferry;
using namespace ferry::core;

TEST(StageRowBands, BalancedBandsOfAFrameWithinTheLimits) {
  // 1080p BGRA: 8.3 MB in 4 bands of 270 rows (about 2 MB each).
  const auto bands = plan_row_bands(1080, 1920 * 4, 1080ull * 1920 * 4);
  ASSERT_EQ(bands.size(), 4u);
  std::int64_t row = 0;
  for (const Chunk& b : bands) {
    EXPECT_TRUE(b.is_band());
    EXPECT_EQ(b.first, 0);
    EXPECT_EQ(b.count, 1);
    EXPECT_EQ(b.rows_begin, row);
    EXPECT_EQ(b.rows_end - b.rows_begin, 270);
    EXPECT_EQ(b.bytes, 270ull * 1920 * 4);
    row = b.rows_end;
  }
  EXPECT_EQ(row, 1080);
  EXPECT_TRUE(plan_row_bands(1080, 1920 * 4, kRowBandMinBytes - 1).empty());  // small: one chunk
  EXPECT_EQ(plan_row_bands(4000, 4000 * 4, 4000ull * 4000 * 4).size(), static_cast<std::size_t>(kMaxRowBands));
  EXPECT_EQ(plan_row_bands(3, 4 << 20, 12 << 20).size(), 3u);  // never more bands than rows
  EXPECT_TRUE(plan_row_bands(1, 8 << 20, 8 << 20).empty());
  EXPECT_FALSE(Chunk{}.is_band());
}

struct Frame {
  std::int64_t h, w, c;
  std::vector<std::uint8_t> pixels;
  ferry_source source{};
};

Frame make_frame(std::int64_t h, std::int64_t w, std::int64_t c, std::uint32_t seed) {
  Frame f{h, w, c, std::vector<std::uint8_t>(static_cast<std::size_t>(h * w * c)), {}};
  std::mt19937 rng(seed);
  for (auto& p : f.pixels) p = static_cast<std::uint8_t>(rng());
  ferry_source_init(&f.source, sizeof f.source);
  f.source.data = f.pixels.data();
  f.source.bytes = f.pixels.size();
  f.source.n = 1, f.source.h = h, f.source.w = w, f.source.c = c;
  return f;
}

TEST(StageRowBands, BandByBandEqualsTheWholeFrame) {
  const Frame f = make_frame(61, 37, 4, 3);
  ThreadPool pool(2);
  for (ferry_layout layout : {FERRY_LAYOUT_NCHW, FERRY_LAYOUT_NHWC})
    for (ferry_dtype dtype : {FERRY_DTYPE_FLOAT16, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_UINT8})
      for (int mirror = 0; mirror < 4; ++mirror)
        for (bool crop : {false, true}) {
          ferry_transform t;
          ferry_transform_init(&t, sizeof t);
          t.out_dtype = dtype, t.out_layout = layout, t.mirror = mirror;
          t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;  // BGRA -> RGB
          if (crop) t.crop = ferry_rect{3, 5, 29, 47};
          const ConvertPlan plan = make_convert_plan(api::to_core(f.source), api::to_core(t), nullptr);
          const SampleLayout sample = sample_layout_of(plan);
          const SourceView view = source_view_of(plan, api::to_core(f.source));
          std::vector<std::uint8_t> whole(plan.out_extent, 0xCD), banded(plan.out_extent, 0xCD);
          convert_on_cpu(plan, view, 0, 1, whole.data(), pool);
          // Any band count: cut the window's rows by hand, as plan_row_bands would.
          for (std::int64_t bands : {2, 3, 7}) {
            std::memset(banded.data(), 0xCD, banded.size());
            for (std::int64_t k = 0; k < bands; ++k) {
              Chunk band;
              band.count = 1;
              band.rows_begin = plan.out_h * k / bands, band.rows_end = plan.out_h * (k + 1) / bands;
              void* out = nullptr;
              const ConvertPlan p = band_plan(plan, band, banded.data(), out);
              convert_on_cpu(p, view, 0, 1, out, pool);
            }
            ASSERT_EQ(banded, whole) << "layout " << layout << " dtype " << dtype << " mirror " << mirror
                                     << " crop " << crop << " bands " << bands;
          }
          EXPECT_EQ(row_bands_of(plan, sample).size(), 0u);  // 9 KB: too small to cut
        }
}

TEST(StageRowBands, OnlyPlainSubWindowsAreCut) {
  Frame f = make_frame(1080, 1920, 4, 5);
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  auto bands_of = [&](const ferry_transform& tr) {
    const ConvertPlan plan = make_convert_plan(api::to_core(f.source), api::to_core(tr), nullptr);
    return row_bands_of(plan, sample_layout_of(plan)).size();
  };
  EXPECT_EQ(bands_of(t), 4u);
  ferry_transform outside = t;
  outside.crop = ferry_rect{-4, 0, 1920, 1080};
  outside.pad_outside = 1;
  EXPECT_EQ(bands_of(outside), 0u);  // the window reaches outside the image
  std::uint8_t mirrors[1] = {2};
  ferry_transform per_sample = t;
  per_sample.per_sample_mirror = mirrors;
  per_sample.per_sample_count = 1;
  EXPECT_EQ(bands_of(per_sample), 0u);
  f.source.layout = FERRY_LAYOUT_NCHW;
  EXPECT_EQ(bands_of(t), 0u);  // planar rows are not one image row each
}

}  // namespace
