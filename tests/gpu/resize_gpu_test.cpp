// Resize (transform.resize_w/h) and samples of different sizes
// (source.sample_descs) on the GPU: every output byte equal to the CPU
// backend's, the device output poisoned first and guarded by canaries
// (window_case_check.h), through ferry_transform_apply on device sources
// (samples inline in the kernel parameter and through the uploaded table) and
// through ferry_batch_submit from pageable memory (staged, several chunks)
// and from pinned memory (copied directly, or read in place).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/support/convert_resize_cases.h"
#include "tests/support/variable_size_cases.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/gpu/gpu_compare.h"
#include "tests/gpu/window_case_check.h"

using namespace ferry::test;

namespace {

// A case (source, transform, output) as window_case_check.h takes it.
struct CaseCheck {
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};
};

// c's output: as many bytes as its source and transform describe.
void size_output(CaseCheck& c) {
  ferry_output_init(&c.output, sizeof c.output);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &c.source, &c.transform), FERRY_OK) << ferry_last_error();
  c.output.bytes = info.bytes;
}

CaseCheck check_of(const VariableCase& k) {
  CaseCheck c;
  c.source = variable_source(k.descs, k.c, k.layout);
  c.transform = k.transform;
  size_output(c);
  return c;
}

// Training input: n images of 300-500 px per side at their own sizes, each a
// RandomResizedCrop (scale 0.08-1, ratio 3/4-4/3) to 224 x 224 with a random
// flip, normalized; interpolation as given.
struct TrainingBatch {
  VariableCase k;
  std::vector<ferry_rectf> windows;
};

TrainingBatch training_batch(std::mt19937& rng, int n, ferry_interpolation interp, ferry_dtype dtype) {
  TrainingBatch b;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  b.k.c = 3;
  b.k.layout = FERRY_LAYOUT_NHWC;
  for (int i = 0; i < n; ++i) {
    const int h = pick(300, 500), w = pick(300, 500);
    b.k.samples.push_back(random_sample(rng, h, w, 3, FERRY_LAYOUT_NHWC));
    b.k.descs.push_back(b.k.samples.back().desc());
    const double area = real(0.08, 1.0) * h * w, ratio = std::exp(real(std::log(0.75), std::log(4.0 / 3.0)));
    const double cw = std::min<double>(w, std::sqrt(area * ratio)), ch = std::min<double>(h, std::sqrt(area / ratio));
    const double x = real(0.0, w - cw), y = real(0.0, h - ch);
    b.windows.push_back(ferry_rectf{static_cast<float>(x), static_cast<float>(y), static_cast<float>(std::floor(cw)),
                                    static_cast<float>(std::floor(ch))});
    b.k.mirrors.push_back(static_cast<std::uint8_t>(pick(0, 1)));
  }
  ferry_transform& t = b.k.transform;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = dtype;
  t.resize_w = t.resize_h = 224;
  t.interpolation = interp;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  if (dtype != FERRY_DTYPE_UINT8)  // uint8 output does no arithmetic
    for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  t.per_sample_window = b.windows.data();
  t.per_sample_mirror = b.k.mirrors.data();
  t.per_sample_count = n;
  return b;
}

constexpr ferry_interpolation kInterpolations[] = {FERRY_INTERP_NEAREST, FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC,
                                                   FERRY_INTERP_AREA, FERRY_INTERP_LINEAR_ANTIALIAS};

}  // namespace

// Small random cases of every interpolation, mode and dtype (source forms,
// layouts, channel maps, windows, mirrors, per-sample mean/std, padded
// output strides: convert_resize_cases.h).
TEST(ResizeGpu, RandomCasesMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig;
  ASSERT_EQ(rig.problem, "");
  int failures = 0;
  const int cases = for_each_resize_case(8, [&](std::unique_ptr<ResizeCase> c, std::uint32_t seed) {
    ASSERT_NE(c, nullptr) << "seed " << seed << ": " << ferry_last_error();
    const std::string problem = rig.check(*c);
    if (!problem.empty() && ++failures <= 10) ADD_FAILURE() << c->name << ": " << problem;
  });
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
}

// The same in batches of 8-12 samples: the bilinear ones take the kernels of
// four-warp blocks (resample_kernels.h, tile_h), the others eight as above.
TEST(ResizeGpu, RandomBatchesOfEightOrMoreMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig;
  ASSERT_EQ(rig.problem, "");
  int failures = 0;
  const int cases = for_each_resize_case(
      4,
      [&](std::unique_ptr<ResizeCase> c, std::uint32_t seed) {
        ASSERT_NE(c, nullptr) << "seed " << seed << ": " << ferry_last_error();
        const std::string problem = rig.check(*c);
        if (!problem.empty() && ++failures <= 10) ADD_FAILURE() << c->name << ": " << problem;
      },
      8);
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
}

namespace {

// Transform t on n RGB images of h x w lying stride_n bytes apart in data,
// into poisoned device outputs against the CPU backend: "" or what differed.
std::string check_images(WindowCaseRig& rig, const std::vector<std::uint8_t>& data, std::int64_t n, std::int64_t h,
                         std::int64_t w, std::int64_t stride_n, const ferry_transform& t) {
  CaseCheck c;
  ferry_source_init(&c.source, sizeof c.source);
  c.source.data = data.data(), c.source.bytes = data.size();
  c.source.n = n, c.source.h = h, c.source.w = w, c.source.c = 3, c.source.stride_n = stride_n;
  c.transform = t;
  size_output(c);
  return rig.check(c);
}

}  // namespace

// Images of one size that all do the same (one window, resize, mirror and
// mean/std, the data form, a gap between samples): one row in the kernel's
// parameter serves all 24 (cuda_converter_resample.cpp, one_geometry), each
// interpolation and mode, down and up, to f16 and to u8 with a crop and a mirror.
TEST(ResizeGpu, BatchesOfOneGeometryMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig(4 << 20, 16 << 20);
  ASSERT_EQ(rig.problem, "");
  const std::int64_t n = 24, h = 47, w = 61, stride_n = h * w * 3 + 40;
  std::mt19937 rng(2026);
  std::vector<std::uint8_t> data(static_cast<std::size_t>(n * stride_n));
  for (std::uint8_t& b : data) b = static_cast<std::uint8_t>(rng());
  int failures = 0, cases = 0;
  for (ferry_interpolation m : kInterpolations)
    for (ferry_resize_mode mode : {FERRY_RESIZE_STRETCH, FERRY_RESIZE_LETTERBOX, FERRY_RESIZE_SHORTER_SIDE})
      for (int variant = 0; variant < 2; ++variant, ++cases) {
        ferry_transform t;
        ferry_transform_init(&t, sizeof t);
        t.interpolation = m, t.resize_mode = mode;
        if (variant == 0) {  // down, normalized f16
          t.out_dtype = FERRY_DTYPE_FLOAT16, t.resize_w = 33, t.resize_h = 29, t.resize_shorter = 40;
          t.mean[0] = 0.485f, t.mean[1] = 0.456f, t.mean[2] = 0.406f;
          t.std[0] = 0.229f, t.std[1] = 0.224f, t.std[2] = 0.225f;
        } else {  // up, u8, a crop, mirrored
          t.out_dtype = FERRY_DTYPE_UINT8, t.resize_w = 96, t.resize_h = 80, t.resize_shorter = 90;
          t.crop = ferry_rect{3, 5, 50, 37};
          t.mirror = FERRY_MIRROR_X;
        }
        const std::string problem = check_images(rig, data, n, h, w, stride_n, t);
        if (!problem.empty() && ++failures <= 10)
          ADD_FAILURE() << interpolation_name(m) << "/" << resize_mode_name(mode) << "/variant " << variant << ": "
                        << problem;
      }
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
}

// Thousands of small images of one geometry (one row in the kernel's
// parameter for all of them), each interpolation, stretched and letterboxed,
// down with a channel map and up mirrored both ways. A gap of 5 bytes moves
// each sample's rows within their 16-byte chunks from one sample to the next
// (where the source tile places them); a gap of 2 keeps the stride a
// multiple of 16.
TEST(ResizeGpu, ThousandsOfSmallImagesOfOneGeometryMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig(4 << 20, 16 << 20);
  ASSERT_EQ(rig.problem, "");
  const std::int64_t n = 4500, h = 9, w = 10;
  std::mt19937 rng(77);
  int failures = 0, cases = 0;
  for (const std::int64_t gap : {5, 2}) {
    const std::int64_t stride_n = h * w * 3 + gap;
    std::vector<std::uint8_t> data(static_cast<std::size_t>(n * stride_n));
    for (std::uint8_t& b : data) b = static_cast<std::uint8_t>(rng());
    for (ferry_interpolation m : kInterpolations)
      for (ferry_resize_mode mode : {FERRY_RESIZE_STRETCH, FERRY_RESIZE_LETTERBOX})
        for (int variant = 0; variant < 2; ++variant, ++cases) {
          ferry_transform t;
          ferry_transform_init(&t, sizeof t);
          t.interpolation = m, t.resize_mode = mode;
          if (variant == 0) {  // down, normalized f16, BGR -> RGB
            t.out_dtype = FERRY_DTYPE_FLOAT16, t.resize_w = 7, t.resize_h = 6;
            t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
            t.mean[0] = 0.485f, t.mean[1] = 0.456f, t.mean[2] = 0.406f;
            t.std[0] = 0.229f, t.std[1] = 0.224f, t.std[2] = 0.225f;
          } else {  // up, u8, a crop, mirrored both ways
            t.out_dtype = FERRY_DTYPE_UINT8, t.resize_w = 24, t.resize_h = 20;
            t.crop = ferry_rect{1, 2, 8, 6};
            t.mirror = FERRY_MIRROR_X | FERRY_MIRROR_Y;
          }
          const std::string problem = check_images(rig, data, n, h, w, stride_n, t);
          if (!problem.empty() && ++failures <= 10)
            ADD_FAILURE() << "gap " << gap << "/" << interpolation_name(m) << "/" << resize_mode_name(mode)
                          << "/variant " << variant << ": " << problem;
        }
  }
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
}

// Images of 300-500 px resized to 224 x 224, more samples than ride in the
// kernel parameter (the uploaded table), every interpolation and dtype.
TEST(ResizeGpu, TrainingCropsOfLargeImagesMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig(32 << 20, 16 << 20);
  ASSERT_EQ(rig.problem, "");
  std::mt19937 rng(2024);
  const ferry_dtype dtypes[] = {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16};
  for (ferry_interpolation m : kInterpolations)
    for (ferry_dtype d : dtypes) {
      TrainingBatch b = training_batch(rng, 7, m, d);
      CaseCheck c = check_of(b.k);
      EXPECT_EQ(rig.check(c), "") << "interpolation " << m << ", dtype " << d;
    }
}

// Rounds of variable-size cases, each case(round) checked against the CPU
// backend; the number that failed (the first ten reported).
template <typename MakeCase>
int failed_rounds(int rounds, MakeCase&& make_case) {
  WindowCaseRig rig;
  EXPECT_EQ(rig.problem, "");
  if (!rig.problem.empty()) return rounds;
  int failures = 0;
  for (int round = 0; round < rounds; ++round) {
    CaseCheck c = check_of(make_case(round));
    const std::string problem = rig.check(c);
    if (!problem.empty() && ++failures <= 10) ADD_FAILURE() << "round " << round << ": " << problem;
  }
  return failures;
}

// Windows of one size in images of different sizes, inside or padded, with
// mirrors and every output format; and the same images resized.
TEST(VariableSizesGpu, WindowsAndResizesMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  std::mt19937 rng(77);
  ResizedVariableCase r;
  EXPECT_EQ(failed_rounds(300,
                          [&](int round) -> const VariableCase& {
                            r = random_resized_case(rng);
                            if (round % 2 == 0) r.k = random_case(rng, round % 4 == 2);
                            return r.k;
                          }),
            0);
}

// The same resized in batches of 8-12 samples: the bilinear ones take the
// kernels of four-warp blocks (resample_kernels.h, tile_h).
TEST(VariableSizesGpu, ResizedBatchesOfEightOrMoreMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  std::mt19937 rng(78);
  ResizedVariableCase r;
  EXPECT_EQ(failed_rounds(120,
                          [&](int) -> const VariableCase& {
                            r = random_resized_case(rng, 40, 24, 8);
                            return r.k;
                          }),
            0);
}

// The pipeline: images at their own sizes from pageable memory (staged at
// their own sizes, several chunks) and from pinned memory (one copy each),
// resized on the GPU, equal to the CPU backend.
TEST(VariableSizesGpu, BatchesFromPageableAndPinnedMemoryMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  ferry_context_t cpu = make_test_context(FERRY_DEVICE_CPU, 4);
  ferry_context_t gpu = make_test_context(FERRY_DEVICE_CUDA, 4);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  std::mt19937 rng(5);
  for (ferry_interpolation m : {FERRY_INTERP_LINEAR, FERRY_INTERP_LINEAR_ANTIALIAS, FERRY_INTERP_NEAREST}) {
    TrainingBatch b = training_batch(rng, 37, m, FERRY_DTYPE_FLOAT16);
    const ferry_source src = variable_source(b.k.descs, 3, FERRY_LAYOUT_NHWC);
    const std::vector<std::uint8_t> want = cpu_output(cpu, src, b.k.transform);
    std::string problem;
    const std::vector<std::uint8_t> staged = submitted_output(gpu, src, b.k.transform, 2 << 20, problem);
    EXPECT_EQ(problem, "");
    EXPECT_EQ(first_difference(staged, want), "") << "pageable, interpolation " << m;
    std::vector<ferry_sample_desc> pinned = b.k.descs;
    for (ferry_sample_desc& d : pinned) {
      void* p = nullptr;
      ASSERT_EQ(ferry_memory_alloc_host(&p, gpu, d.bytes), FERRY_OK) << ferry_last_error();
      std::memcpy(p, d.data, d.bytes);
      d.data = p;
    }
    const ferry_source pinned_src = variable_source(pinned, 3, FERRY_LAYOUT_NHWC);
    const std::vector<std::uint8_t> direct = submitted_output(gpu, pinned_src, b.k.transform, 4 << 20, problem);
    EXPECT_EQ(problem, "");
    EXPECT_EQ(first_difference(direct, want), "") << "pinned, interpolation " << m;
    for (ferry_sample_desc& d : pinned) EXPECT_EQ(ferry_memory_free_host(gpu, const_cast<void*>(d.data)), FERRY_OK);
  }
  // Windows of one size without resize, through the pipeline.
  for (int round = 0; round < 20; ++round) {
    VariableCase k = random_case(rng, round % 2 == 1);
    const ferry_source src = variable_source(k.descs, k.c, k.layout);
    std::string problem;
    const std::vector<std::uint8_t> got = submitted_output(gpu, src, k.transform, 1024, problem);
    EXPECT_EQ(problem, "");
    EXPECT_EQ(first_difference(got, cpu_output(cpu, src, k.transform)), "") << "round " << round;
  }
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

// A detector's letterbox of a frame in ferry's pinned memory: the resize reads
// two thirds of the rows (linear, nearest), so the kernel reads the frame
// where it lies, over the bus, with no copy (Stager::reads_in_place); cubic
// taps read every row, and a batch of three is always copied first. Each
// equal to the CPU backend, the batch in one chunk and in several.
TEST(ResizeGpu, LetterboxFromFerrysPinnedMemoryMatchesTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  ferry_context_t cpu = make_test_context(FERRY_DEVICE_CPU, 4);
  ferry_context_t gpu = make_test_context(FERRY_DEVICE_CUDA, 4);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  const std::int64_t n = 3, h = 540, w = 962;  // odd sizes: 962 / 322 is not a whole scale
  const std::size_t bytes = static_cast<std::size_t>(n * h * w * 3);
  void* pinned = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&pinned, gpu, bytes), FERRY_OK) << ferry_last_error();
  std::mt19937 rng(11);
  for (std::size_t i = 0; i < bytes; ++i) static_cast<std::uint8_t*>(pinned)[i] = static_cast<std::uint8_t>(rng());
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.data = pinned;
  src.bytes = bytes;
  src.n = n, src.h = h, src.w = w, src.c = 3;
  for (ferry_interpolation m : {FERRY_INTERP_LINEAR, FERRY_INTERP_NEAREST, FERRY_INTERP_CUBIC}) {
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.out_dtype = FERRY_DTYPE_FLOAT16;
    t.resize_w = t.resize_h = 322;
    t.resize_mode = FERRY_RESIZE_LETTERBOX;
    t.interpolation = m;
    t.scale = 1.0f / 255.0f;
    for (int k = 0; k < 3; ++k) t.letterbox_value[k] = 0.5f;
    for (std::int64_t frames : {std::int64_t{1}, n}) {
      src.n = frames;
      src.bytes = static_cast<std::size_t>(frames * h * w * 3);
      const std::vector<std::uint8_t> want = cpu_output(cpu, src, t);
      for (std::uint64_t chunk : {std::uint64_t{0}, static_cast<std::uint64_t>(h * w * 3)}) {
        std::string problem;
        const std::vector<std::uint8_t> got = submitted_output(gpu, src, t, chunk, problem);
        EXPECT_EQ(problem, "");
        EXPECT_EQ(first_difference(got, want), "") << "interpolation " << m << ", " << frames << " frames, chunk bytes "
                                                   << chunk;
      }
    }
  }
  EXPECT_EQ(ferry_memory_free_host(gpu, pinned), FERRY_OK);
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

#else
TEST(ResizeGpu, RandomCasesMatchTheCpuBackend) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
