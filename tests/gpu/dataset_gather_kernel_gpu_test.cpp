// The resident gather kernel (core/convert/cuda/window_gather.h) on the GPU,
// against the CPU backend: datasets of 1, 3 and 4 channels at odd and even
// sizes (and a planar one, which the table path takes), gathered by host
// indices in batches that fit each of the kernel's two inline index arrays
// and one over both (its indices copied to the device), with the recipes it
// draws itself (RandomCrop with padding, CenterCrop larger and smaller than
// the image, flips in X and Y) and the uniform ones (a window reaching
// outside with its fill, a mirror), into every dtype, both layouts and a
// channel map: every output byte equal, outputs poisoned first (a caller's
// buffer between canaries, or ferry's blocks filled before they go back),
// and the parameters drawn on the host equal.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include "tests/gpu/dataset_gpu_fixture.h"
#include "tests/gpu/gpu_compare.h"

using namespace ferry::test;

namespace {

// n h x w x c samples in one pageable buffer (planar: each sample c planes, NCHW).
std::unique_ptr<SourceCase> channels_buffer(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c,
                                            std::mt19937& rng, bool planar = false) {
  auto s = std::make_unique<SourceCase>(std::to_string(n) + " x " + std::to_string(h) + "x" + std::to_string(w) +
                                        "x" + std::to_string(c) + (planar ? " planar (the table path)" : ""));
  if (planar) s->source.layout = FERRY_LAYOUT_NCHW;
  s->sample_bytes = h * w * c;
  s->buffer = random_bytes(static_cast<std::size_t>(n * s->sample_bytes), rng);
  s->source.data = s->buffer.data();
  s->source.bytes = s->buffer.size();
  s->source.n = n, s->source.h = h, s->source.w = w, s->source.c = c;
  return s;
}

struct GatherRecipe {
  std::string name;
  ferry_transform t{};
  ferry_augment a{};
  bool augmented = false;
};

// Recipe k for a dataset of side h x w and c channels; `a` is what t points at.
void make_recipe(int k, std::int64_t h, std::int64_t w, std::int64_t c, std::uint64_t step, GatherRecipe& r) {
  ferry_transform_init(&r.t, sizeof r.t);
  ferry_augment_init(&r.a, sizeof r.a);
  r.a.seed = 31 + static_cast<std::uint64_t>(k), r.a.step = step;
  r.augmented = true;
  for (int q = 0; q < 4; ++q) r.t.mean[q] = 0.1f * static_cast<float>(q + 1), r.t.std[q] = 0.2f + 0.05f * static_cast<float>(q);
  switch (k) {
    case 0:
      r.name = "RandomCrop(pad 4) + flip x 0.5, y 0.3, float16 NCHW";
      r.t.out_dtype = FERRY_DTYPE_FLOAT16;
      r.t.resize_w = w, r.t.resize_h = h;
      r.a.crop = FERRY_AUGMENT_CROP_RANDOM, r.a.padding = 4;
      r.a.flip_x_probability = 0.5f, r.a.flip_y_probability = 0.3f;
      break;
    case 1:
      r.name = "CenterCrop larger than the image + flip y 0.5, bfloat16 NCHW";
      r.t.out_dtype = FERRY_DTYPE_BFLOAT16;
      r.t.resize_w = w + 5, r.t.resize_h = h + 4;
      r.a.crop = FERRY_AUGMENT_CROP_CENTER;
      r.a.flip_y_probability = 0.5f;
      break;
    case 2:
      r.name = "CenterCrop smaller (odd margins) + flip x 0.5, float32 NHWC";
      r.t.out_dtype = FERRY_DTYPE_FLOAT32;
      r.t.out_layout = FERRY_LAYOUT_NHWC;
      r.t.resize_w = w - 3, r.t.resize_h = h - 1;
      r.a.crop = FERRY_AUGMENT_CROP_CENTER;
      r.a.flip_x_probability = 0.5f;
      break;
    case 3:
      r.name = "RandomCrop(pad 2) + flip x 0.5, uint8 NCHW, channels reversed";
      r.t.out_dtype = FERRY_DTYPE_UINT8;
      for (int q = 0; q < 4; ++q) r.t.mean[q] = 0.0f, r.t.std[q] = 1.0f;  // uint8 output does no arithmetic
      r.t.resize_w = w - 2, r.t.resize_h = h - 2;
      r.t.out_channels = static_cast<int>(c);
      for (int q = 0; q < static_cast<int>(c); ++q) r.t.channel_map[q] = static_cast<int>(c) - 1 - q;
      r.a.crop = FERRY_AUGMENT_CROP_RANDOM, r.a.padding = 2;
      r.a.flip_x_probability = 0.5f;
      break;
    case 4:
      r.name = "flips alone (x 0.5, y 0.5), float32 NCHW";
      r.a.flip_x_probability = 0.5f, r.a.flip_y_probability = 0.5f;
      break;
    default:
      r.name = "no augmentation: a window reaching outside (fill 0.25), mirror y, float16 NCHW";
      r.augmented = false;
      r.t.out_dtype = FERRY_DTYPE_FLOAT16;
      r.t.crop = ferry_rect{-3, -2, w - 1, h + 1};
      r.t.pad_outside = 1, r.t.fill_value = 0.25f;
      r.t.mirror = FERRY_MIRROR_Y;
      return;
  }
  r.t.augment = &r.a;
}

constexpr int kRecipes = 6;

}  // namespace

TEST_F(DatasetGpu, GatherKernelEqualsTheCpuBackendForEveryRecipeAndBatchSize) {
  std::mt19937 rng(23);
  cases_.push_back(channels_buffer(600, 32, 32, 3, rng));
  cases_.push_back(channels_buffer(400, 21, 27, 1, rng));
  cases_.push_back(channels_buffer(300, 17, 23, 4, rng));
  // Planar samples: not the gather kernel's (it reads interleaved pixels), so the table path,
  // whose batch table the stager leaves out for drawn windows: built per call instead.
  cases_.push_back(channels_buffer(200, 20, 24, 3, rng, true));
  int compared = 0;
  for (const auto& s : cases_) {
    const DatasetPair p = create(*s);
    ASSERT_NE(p.gpu, nullptr) << s->name;
    ASSERT_NE(p.cpu, nullptr) << s->name;
    const ferry_dataset_info info = info_of(p.gpu);
    // Host indices in the kernel's 1 KB parameter (up to 256), in its 4 KB one
    // (up to 1024), and copied to the device (more).
    for (std::int64_t n : {70, 256, 700, 2500}) {
      std::vector<std::int64_t> indices(static_cast<std::size_t>(n));
      for (auto& k : indices) k = std::uniform_int_distribution<std::int64_t>(0, info.count - 1)(rng);
      indices.back() = info.count - 1;
      for (int k = 0; k < kRecipes; ++k) {
        GatherRecipe r;
        make_recipe(k, info.h, info.w, info.c, static_cast<std::uint64_t>(n + k), r);
        if (r.augmented) r.a.first_index = 1000 * k;  // draws start past 0
        const std::string what = s->name + ", " + std::to_string(n) + " samples, " + r.name;
        std::vector<ferry_augment_params> cpu_drawn(indices.size()), gpu_drawn(indices.size());
        r.a.drawn = cpu_drawn.data();
        const std::vector<std::uint8_t> want = cpu_gather(p.cpu, indices, r.t);
        r.a.drawn = gpu_drawn.data();
        std::string problem;
        const bool caller = (n + k) % 2 == 0;
        const std::vector<std::uint8_t> got = caller ? gpu_gather_into_caller(p.gpu, indices, r.t, problem)
                                                     : gpu_gather_into_ferry(p.gpu, indices, r.t, problem);
        ASSERT_EQ(problem, "") << what;
        EXPECT_EQ(first_difference(got, want), "") << what << (caller ? ", caller's output" : ", ferry's output");
        if (r.augmented)
          EXPECT_EQ(std::memcmp(cpu_drawn.data(), gpu_drawn.data(), cpu_drawn.size() * sizeof(ferry_augment_params)), 0)
              << what << ": the drawn parameters differ";
        ++compared;
      }
    }
    EXPECT_EQ(ferry_dataset_destroy(p.gpu), FERRY_OK);
    EXPECT_EQ(ferry_dataset_destroy(p.cpu), FERRY_OK);
  }
  EXPECT_EQ(compared, 4 * 4 * kRecipes);
}

#else
TEST(DatasetGpu, GatherKernelEqualsTheCpuBackendForEveryRecipeAndBatchSize) {
  GTEST_SKIP() << "built without the CUDA backend";
}
#endif
