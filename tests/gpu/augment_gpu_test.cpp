// Random augmentation (transform.augment) on the GPU: every output byte equal
// to the CPU backend's for random augmentations (crops of every kind, flips,
// each colour operation and their drawn orders, grayscale, erasing with a
// value or noise) over images of different sizes, every output dtype, the
// device output poisoned and guarded by canaries (window_case_check.h);
// through ferry_transform_apply on device samples (inline in the kernel
// parameter and through the uploaded table) and ferry_batch_submit from
// pageable memory in several chunks. The parameters a GPU context reports
// are the CPU context's.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/support/variable_size_cases.h"

#if FERRY_HAVE_CUDA
#include "tests/gpu/gpu_compare.h"
#include "tests/gpu/window_case_check.h"

using namespace ferry::test;

namespace {

struct AugmentCase {
  VariableCase k;
  ferry_augment augment{};
  std::vector<ferry_augment_params> drawn;
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};
  std::string name;
};

float pick_real(std::mt19937& rng, float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }
int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A random augmentation of n random images (16-max_side px a side) to an out x out output.
void make_case(std::mt19937& rng, int n, AugmentCase& a, int max_side = 90) {
  const int out = pick(rng, 8, 48);
  for (int i = 0; i < n; ++i) {
    a.k.samples.push_back(
        random_sample(rng, pick(rng, 16, max_side), pick(rng, 16, max_side), 3, FERRY_LAYOUT_NHWC));
    a.k.descs.push_back(a.k.samples.back().desc());
  }
  ferry_augment& g = a.augment;
  ferry_augment_init(&g, sizeof g);
  g.seed = rng();
  g.step = static_cast<std::uint64_t>(pick(rng, 0, 1000));
  g.crop = static_cast<ferry_augment_crop>(pick(rng, 0, 3));
  if (g.crop == FERRY_AUGMENT_CROP_RANDOM) g.padding = pick(rng, 0, 1) * 30 + 16;  // 16-px images padded fit a 48-px crop
  g.flip_x_probability = 0.5f, g.flip_y_probability = pick(rng, 0, 1) * 0.5f;
  auto range = [&](float (&r)[2], float width) {
    if (pick(rng, 0, 2) == 0) return;  // off now and then
    r[0] = std::max(0.0f, 1.0f - width), r[1] = 1.0f + width;
  };
  range(g.brightness, 0.6f);
  range(g.contrast, 0.6f);
  range(g.saturation, 0.8f);
  if (pick(rng, 0, 2) != 0) g.hue[0] = -0.4f, g.hue[1] = 0.4f;
  g.grayscale_probability = pick(rng, 0, 1) * 0.3f;
  g.erase_probability = pick(rng, 0, 1) * 0.7f;
  g.erase_fill = static_cast<ferry_erase_fill>(pick(rng, 0, 1));
  for (float& v : g.erase_value) v = pick_real(rng, -1.0f, 1.0f);
  a.drawn.resize(static_cast<std::size_t>(n));
  g.drawn = a.drawn.data();

  ferry_transform& t = a.transform;
  ferry_transform_init(&t, sizeof t);
  static const ferry_dtype dtypes[] = {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16};
  static const ferry_interpolation interps[] = {FERRY_INTERP_NEAREST, FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC,
                                                FERRY_INTERP_AREA, FERRY_INTERP_LINEAR_ANTIALIAS};
  t.out_dtype = dtypes[pick(rng, 0, 3)];
  t.out_layout = pick(rng, 0, 1) ? FERRY_LAYOUT_NCHW : FERRY_LAYOUT_NHWC;
  t.interpolation = interps[pick(rng, 0, 4)];
  if (t.out_dtype == FERRY_DTYPE_UINT8) {
    for (float& v : g.erase_value) v = static_cast<float>(pick(rng, 0, 255));
  } else {
    const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
    for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  }
  if (pick(rng, 0, 3) == 0) t.channel_map[0] = 2, t.channel_map[2] = 0, t.out_channels = 3;  // BGR source
  t.pad_channels_to_4 = pick(rng, 0, 4) == 0;
  t.resize_w = out, t.resize_h = g.crop == FERRY_AUGMENT_CROP_NONE ? out + pick(rng, 0, 9) : out;
  t.augment = &g;
  a.source = variable_source(a.k.descs, 3, FERRY_LAYOUT_NHWC);
  ferry_output_init(&a.output, sizeof a.output);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &a.source, &t), FERRY_OK) << ferry_last_error();
  a.output.bytes = info.bytes;
  a.name = "crop " + std::to_string(g.crop) + ", dtype " + std::to_string(t.out_dtype) + ", interpolation " +
           std::to_string(t.interpolation) + ", erase fill " + std::to_string(g.erase_fill) + ", n " + std::to_string(n);
}

}  // namespace

// Random augmentations of batches of 3 (inline in the kernel parameter) and 9
// (the uploaded table) images of different sizes, on device data.
TEST(AugmentGpu, RandomAugmentationsMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig(4 << 20, 4 << 20);
  ASSERT_EQ(rig.problem, "");
  std::mt19937 rng(16);
  int failures = 0;
  for (int round = 0; round < 240; ++round) {
    AugmentCase a;
    make_case(rng, round % 2 == 0 ? 3 : 9, a);
    const std::string problem = rig.check(a);
    if (!problem.empty() && ++failures <= 10) ADD_FAILURE() << "round " << round << ", " << a.name << ": " << problem;
  }
  EXPECT_EQ(failures, 0);
}

// The pipeline from pageable memory, several chunks: equal to the CPU
// backend, and the drawn parameters equal the CPU context's. Batches of
// larger images (up to 260 px, more than the short path's 256 KB) stage
// their crops' footprint alone (core/stage/source_footprint.h).
TEST(AugmentGpu, BatchesFromPageableMemoryMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  ferry_context_t cpu = make_test_context(FERRY_DEVICE_CPU, 4);
  ferry_context_t gpu = make_test_context(FERRY_DEVICE_CUDA, 4);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  std::mt19937 rng(61);
  for (int round = 0; round < 16; ++round) {
    AugmentCase a;
    make_case(rng, 23, a, round % 2 == 0 ? 90 : 260);
    const std::vector<std::uint8_t> want = cpu_output(cpu, a.source, a.transform);
    const std::vector<ferry_augment_params> cpu_drawn = a.drawn;
    std::fill(a.drawn.begin(), a.drawn.end(), ferry_augment_params{});
    std::string problem;
    const std::vector<std::uint8_t> got = submitted_output(gpu, a.source, a.transform, 16 << 10, problem);
    EXPECT_EQ(problem, "");
    EXPECT_EQ(first_difference(got, want), "") << a.name << ", round " << round;
    EXPECT_EQ(std::memcmp(cpu_drawn.data(), a.drawn.data(), a.drawn.size() * sizeof(ferry_augment_params)), 0)
        << a.name;
  }
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

#else
TEST(AugmentGpu, RandomAugmentationsMatchTheCpuBackend) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
