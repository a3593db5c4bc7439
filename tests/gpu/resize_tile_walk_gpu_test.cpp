// The pipelined resample kernel (four-warp bilinear blocks, resample_kernel.cuh)
// where its blocks walk several tiles of a sample: tile n + 1's rows, plan
// and source copy are worked out while tile n is converted, the two tiles'
// sources in two buffers, rows in three slots. A block walks several tiles
// only in launches of more than about four million output pixels
// (convert_resample_kernel.cu, kWideThreads), hence the sizes. Every output
// byte equal to the CPU backend's, the device output poisoned first
// (window_case_check.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include "tests/gpu/window_case_check.h"

using namespace ferry::test;

namespace {

struct TileWalkCase {
  const char* name;
  std::int64_t n, h, w;  // RGB images of h x w, one geometry (the data form)
};

// 32 x 1024 outputs (32 tiles of 32 rows a sample) from n images: 8 or 16
// blocks a sample, so each walks 4 or 2 tiles. Footprints of about 6 KiB a
// tile (a downscale by 1.2) and 15 KiB (2.1).
constexpr TileWalkCase kCases[] = {
    {"small footprints", 512, 1228, 38},
    {"large footprints", 256, 2150, 67},
};

}  // namespace

TEST(ResizeGpu, BlocksThatWalkSeveralTilesMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig(std::size_t{128} << 20, std::size_t{128} << 20);
  ASSERT_EQ(rig.problem, "");
  std::mt19937 rng(4242);
  for (const TileWalkCase& k : kCases) {
    std::vector<std::uint8_t> data(static_cast<std::size_t>(k.n * k.h * k.w * 3));
    for (std::uint8_t& b : data) b = static_cast<std::uint8_t>(rng());
    for (ferry_resize_mode mode : {FERRY_RESIZE_STRETCH, FERRY_RESIZE_LETTERBOX})
      for (const bool f16 : {true, false}) {
        struct {
          ferry_source source{};
          ferry_transform transform{};
          ferry_output output{};
        } c;
        ferry_source_init(&c.source, sizeof c.source);
        c.source.data = data.data(), c.source.bytes = data.size();
        c.source.n = k.n, c.source.h = k.h, c.source.w = k.w, c.source.c = 3;
        ferry_transform_init(&c.transform, sizeof c.transform);
        c.transform.interpolation = FERRY_INTERP_LINEAR, c.transform.resize_mode = mode;
        c.transform.resize_w = 32, c.transform.resize_h = 1024;
        if (f16) {  // normalized f16 NCHW, BGR -> RGB
          c.transform.out_dtype = FERRY_DTYPE_FLOAT16, c.transform.out_channels = 3;
          c.transform.channel_map[0] = 2, c.transform.channel_map[1] = 1, c.transform.channel_map[2] = 0;
          c.transform.mean[0] = 0.485f, c.transform.std[0] = 0.229f;
        } else {  // u8, mirrored both ways
          c.transform.out_dtype = FERRY_DTYPE_UINT8;
          c.transform.mirror = FERRY_MIRROR_X | FERRY_MIRROR_Y;
        }
        ferry_output_init(&c.output, sizeof c.output);
        ferry_tensor_info info;
        ferry_tensor_info_init(&info, sizeof info);
        ASSERT_EQ(ferry_transform_describe_output(&info, &c.source, &c.transform), FERRY_OK) << ferry_last_error();
        c.output.bytes = info.bytes;
        EXPECT_EQ(rig.check(c), "") << k.name << ", " << (mode == FERRY_RESIZE_STRETCH ? "stretch" : "letterbox")
                                    << (f16 ? ", f16" : ", u8 mirrored");
      }
  }
}

#else
TEST(ResizeGpu, BlocksThatWalkSeveralTilesMatchTheCpuBackend) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
