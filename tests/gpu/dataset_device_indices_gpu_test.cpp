// ferry_dataset_gather_device on the GPU: indices in device memory, written by
// the caller's stream just before the gather, read by the gather when it runs
// (after the hand-off stream's earlier work), out-of-range indices clamped.
// Every output byte equals the CPU backend's gather of the clamped indices
// from host memory, the outputs poisoned first: through the gather kernel
// (indices read and windows drawn in the kernel) and through the kernels
// that read a pointer table the device writes (the resample kernel, with a
// table even for a few samples; the window kernel padding to 4 channels).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime.h>

namespace {


ferry_context_t make_context(ferry_device_kind kind) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = kind;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  return ctx;
}

ferry_dataset_t make_dataset(ferry_context_t ctx, const std::vector<std::uint8_t>& images, std::int64_t n,
                             std::int64_t side) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = images.data();
  s.bytes = images.size();
  s.n = n, s.h = side, s.w = side, s.c = 3;
  ferry_dataset_t ds = nullptr;
  EXPECT_EQ(ferry_dataset_create(&ds, ctx, &s, nullptr), FERRY_OK) << ferry_last_error();
  return ds;
}

// The CPU backend's gather of `indices` (host memory), as bytes.
std::vector<std::uint8_t> cpu_gather(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                     const ferry_transform* t) {
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_dataset_gather(&b, ds, indices.data(), static_cast<std::int64_t>(indices.size()), t, nullptr,
                                 nullptr),
            FERRY_OK)
      << ferry_last_error();
  EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_batch_describe_output(&info, b), FERRY_OK);
  const auto* p = static_cast<const std::uint8_t*>(info.data);
  std::vector<std::uint8_t> out(p, p + info.bytes);
  ferry_batch_release(b);
  return out;
}

struct Recipe {
  const char* name;
  ferry_transform transform;
  ferry_augment augment;
};

std::vector<Recipe> recipes(std::int64_t side) {
  std::vector<Recipe> r(5);
  for (Recipe& x : r) {
    ferry_transform_init(&x.transform, sizeof x.transform);
    ferry_augment_init(&x.augment, sizeof x.augment);
  }
  r[0].name = "crop pad 4 + flip, float16 NCHW (gather kernel, drawn there)";
  r[0].transform.out_dtype = FERRY_DTYPE_FLOAT16;
  r[0].transform.mean[0] = 0.5f, r[0].transform.std[1] = 0.25f;
  r[0].transform.resize_w = r[0].transform.resize_h = side;
  r[0].augment.seed = 99, r[0].augment.step = 3;
  r[0].augment.crop = FERRY_AUGMENT_CROP_RANDOM, r[0].augment.padding = 4, r[0].augment.flip_x_probability = 0.5f;
  r[0].transform.augment = &r[0].augment;
  r[1].name = "float32 NCHW (gather kernel, uniform window)";
  r[1].transform.mean[2] = 0.3f;
  r[2].name = "uint8 NHWC copy (gather kernel)";
  r[2].transform.out_dtype = FERRY_DTYPE_UINT8;
  r[2].transform.out_layout = FERRY_LAYOUT_NHWC;
  r[3].name = "RandomResizedCrop, float32 NCHW (resample kernel, the pointer table)";
  r[3].transform.resize_w = r[3].transform.resize_h = side / 2 + 3;
  r[3].augment.seed = 7, r[3].augment.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  r[3].transform.augment = &r[3].augment;
  r[4].name = "float16 NHWC padded to 4 channels, mirrored (window kernel, the pointer table)";
  r[4].transform.out_dtype = FERRY_DTYPE_FLOAT16;
  r[4].transform.out_layout = FERRY_LAYOUT_NHWC;
  r[4].transform.pad_channels_to_4 = 1;
  r[4].transform.mirror = FERRY_MIRROR_X;
  return r;
}

TEST(DatasetDeviceIndicesGpu, GathersAsTheCpuBackendFromClampedHostIndices) {
  FERRY_REQUIRE_GPU();
  const std::int64_t n = 300, side = 16;
  std::mt19937 rng(5);
  std::vector<std::uint8_t> images(static_cast<std::size_t>(n * side * side * 3));
  for (auto& b : images) b = static_cast<std::uint8_t>(rng());
  ferry_context_t gpu = make_context(FERRY_DEVICE_CUDA), cpu = make_context(FERRY_DEVICE_CPU);
  ferry_dataset_t on_gpu = make_dataset(gpu, images, n, side), on_cpu = make_dataset(cpu, images, n, side);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::int64_t* indices = nullptr;
  ASSERT_EQ(cudaMalloc(&indices, 256 * sizeof(std::int64_t)), cudaSuccess);
  for (const Recipe& recipe : recipes(side)) {
    for (std::int64_t count : {3, 256}) {  // a few (inline-sized) and a full batch
      std::vector<std::int64_t> host(static_cast<std::size_t>(count));
      for (auto& k : host) k = std::uniform_int_distribution<std::int64_t>(-20, n + 20)(rng);
      std::vector<std::int64_t> clamped = host;
      for (auto& k : clamped) k = std::min<std::int64_t>(std::max<std::int64_t>(k, 0), n - 1);
      const std::vector<std::uint8_t> expected = cpu_gather(on_cpu, clamped, &recipe.transform);
      // Poisoned output, then the indices written on the caller's stream, then the gather after them.
      void* out = nullptr;
      ASSERT_EQ(cudaMalloc(&out, expected.size()), cudaSuccess);
      ASSERT_EQ(cudaMemsetAsync(out, 0xFF, expected.size(), stream), cudaSuccess);
      ASSERT_EQ(cudaMemsetAsync(indices, 0x7F, 256 * sizeof(std::int64_t), stream), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(indices, host.data(), host.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                                stream),
                cudaSuccess);
      ferry_output o;
      ferry_output_init(&o, sizeof o);
      o.data = out, o.bytes = expected.size();
      ferry_submit_options so;
      ferry_submit_options_init(&so, sizeof so);
      so.has_handoff_stream = 1;
      so.handoff_stream = stream;
      ferry_batch_t b = nullptr;
      ASSERT_EQ(ferry_dataset_gather_device(&b, on_gpu, indices, count, &recipe.transform, &o, &so), FERRY_OK)
          << ferry_last_error();
      std::vector<std::uint8_t> got(expected.size());
      ASSERT_EQ(cudaMemcpyAsync(got.data(), out, got.size(), cudaMemcpyDeviceToHost, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
      ferry_batch_release(b);
      std::size_t first_bad = got.size();
      for (std::size_t i = 0; i < got.size() && first_bad == got.size(); ++i)
        if (got[i] != expected[i]) first_bad = i;
      EXPECT_EQ(first_bad, got.size()) << recipe.name << ", " << count << " samples: first difference at byte "
                                       << first_bad;
      cudaFree(out);
    }
  }
  cudaFree(indices);
  cudaStreamDestroy(stream);
  ferry_dataset_destroy(on_gpu);
  ferry_dataset_destroy(on_cpu);
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

}  // namespace

#else
TEST(DatasetDeviceIndicesGpu, GathersAsTheCpuBackendFromClampedHostIndices) {
  GTEST_SKIP() << "built without the CUDA backend";
}
#endif
