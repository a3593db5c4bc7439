// Random frame descriptions (ferry_source.format) on the CPU backend: sizes,
// pitches, plane offsets and byte counts drawn valid or not, each frame in a
// buffer of exactly its stated bytes (AddressSanitizer in CI sees any read
// past it). A description ferry accepts decodes as the reference says, every
// plane read where the description puts it; one it refuses leaves the
// output untouched. Never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/frame_cases.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

constexpr std::uint8_t poison = 0x5A;

// A frame of `format` whose planes lie as `layout` says, possibly described wrongly afterwards.
struct Drawn {
  TestFrame frame;
  ferry_source source{};
  bool honest = true;  // the description is the frame's own
};

Drawn draw(std::mt19937& rng) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  Drawn d;
  const ferry_pixel_format f = all_frame_formats[pick(10)];
  const auto layout = static_cast<PlaneLayout>(pick(3));
  d.frame = random_frame(rng, f, 1 + pick(9), 1 + pick(13), layout);
  if (is_bayer(f) && (d.frame.h < 2 || d.frame.w < 2)) d.honest = false;  // ferry refuses these
  d.source = frame_source(d.frame);
  d.source.color_matrix = static_cast<ferry_color_matrix>(pick(3));
  d.source.color_range = static_cast<ferry_color_range>(pick(2));
  d.source.chroma_filter = static_cast<ferry_chroma_filter>(pick(2));
  switch (pick(8)) {  // one lie about the frame, or none
    case 0: d.source.bytes -= 1 + static_cast<std::size_t>(pick(static_cast<int>(d.source.bytes))); break;
    case 1: d.source.plane_pitch[pick(3)] = pick(3) == 0 ? -1 - pick(5) : pick(4); break;
    case 2: d.source.plane_offset[pick(3)] = pick(2) ? -1 - pick(9) : pick(1 << 16); break;
    case 3: (pick(2) ? d.source.h : d.source.w) = pick(3) == 0 ? 0 : pick(2) ? -pick(4) : std::int64_t{1} << 40; break;
    case 4: d.source.format = static_cast<ferry_pixel_format>(pick(2) ? 11 + pick(5) : -1 - pick(3)); break;
    default: return d;
  }
  d.honest = false;
  return d;
}

TEST(FrameDescriptions, RandomDescriptionsDecodeOrAreRefusedNeverCrash) {
  ferry_context_t ctx = make_test_context(FERRY_DEVICE_CPU, 2);
  ASSERT_NE(ctx, nullptr);
  std::mt19937 rng(1515);
  int accepted = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    Drawn d = draw(rng);
    // The frame's bytes alone, in a buffer of exactly the stated size (the stated size may be smaller).
    const std::size_t stated = std::min(d.source.bytes, d.frame.bytes.size());
    std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[stated == 0 ? 1 : stated]);
    std::copy(d.frame.bytes.begin(), d.frame.bytes.begin() + static_cast<std::ptrdiff_t>(stated), exact.get());
    d.source.data = exact.get();
    const ferry_transform t = rgb_u8_transform();
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    const ferry_status described = ferry_transform_describe_output(&info, &d.source, &t);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(d.frame.h * d.frame.w * 3), poison);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out.data(), o.bytes = out.size();
    const ferry_status applied = ferry_transform_apply(ctx, &d.source, &t, &o, nullptr);
    EXPECT_EQ(described == FERRY_OK, applied == FERRY_OK) << "round " << round << ": " << ferry_last_error();
    if (applied != FERRY_OK) {
      ++refused;
      EXPECT_NE(std::string(ferry_last_error()).find("source"), std::string::npos) << ferry_last_error();
      EXPECT_EQ(out, std::vector<std::uint8_t>(out.size(), poison)) << "round " << round << ": a refused call wrote";
      continue;
    }
    ++accepted;
    if (!d.honest) continue;  // a lie ferry cannot see (a larger pitch within the bytes): read safely, nothing to compare
    ColorOptions o2{d.source.color_matrix, d.source.color_range, d.source.chroma_filter};
    const std::vector<double> want = reference_rgb(d.frame, o2);
    for (std::size_t i = 0; i < out.size(); ++i)
      ASSERT_LE(std::abs(out[i] - want[i]), is_bayer(d.frame.format) ? 0.0 : 1.0)
          << "round " << round << " format " << d.frame.format << " pixel " << i / 3;
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(refused, 500);
  ferry_context_destroy(ctx);
}

}  // namespace
