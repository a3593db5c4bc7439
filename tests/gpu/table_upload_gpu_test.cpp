// Per-sample tables copied on the converter's upload stream (cuda_converter.h):
// calls queued back to back on one stream, behind work that holds the stream,
// so every call's table is copied before any of their kernels runs. Each call
// must still read its own table (not a later call's copy into a reused block):
// every output equal to the CPU backend's, outputs poisoned first. The same
// from several threads at once, each on its own stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/support/test_context.h"

using namespace ferry::test;

namespace {

constexpr int kImages = 12, kH = 48, kW = 40, kC = 3;  // more images than ride in a kernel's parameter
constexpr std::size_t kImageBytes = static_cast<std::size_t>(kH) * kW * kC;
constexpr std::uint8_t kPoison = 0xCD;

// One call: per-sample windows and mirrors drawn for it, resized (the
// resample kernel's table) or cropped (the per-sample table), f32 normalized.
struct Call {
  std::vector<ferry_rectf> windows;  // resized
  std::vector<ferry_rect> crops;     // cropped
  std::vector<std::uint8_t> mirrors;
  ferry_transform transform{};
  std::size_t out_bytes = 0;
};

Call draw_call(std::mt19937& rng, bool resized) {
  Call c;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < kImages; ++i) {
    const int w = resized ? pick(8, kW) : 24, h = resized ? pick(8, kH) : 28;
    const int x = pick(0, kW - w), y = pick(0, kH - h);
    if (resized)
      c.windows.push_back(ferry_rectf{static_cast<float>(x), static_cast<float>(y), static_cast<float>(w),
                                      static_cast<float>(h)});
    else
      c.crops.push_back(ferry_rect{x, y, w, h});
    c.mirrors.push_back(static_cast<std::uint8_t>(pick(0, 3)));
  }
  ferry_transform& t = c.transform;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT32;
  if (resized) t.resize_w = 20, t.resize_h = 18, t.interpolation = FERRY_INTERP_LINEAR;
  for (int k = 0; k < 3; ++k) t.mean[k] = 0.4f + 0.05f * k, t.std[k] = 0.2f + 0.01f * k;
  if (resized)
    t.per_sample_window = c.windows.data();
  else
    t.per_sample_crop = c.crops.data();
  t.per_sample_mirror = c.mirrors.data();
  t.per_sample_count = kImages;
  return c;
}

ferry_source source_of(const std::vector<const void*>& samples) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.samples = samples.data(), s.sample_bytes = kImageBytes;
  s.n = kImages, s.h = kH, s.w = kW, s.c = kC;
  return s;
}

// One stream's calls: set up (buffers, sources, poisoned outputs) with
// whatever synchronization that takes, then queued back to back behind a
// large memset that holds the stream, so every call's table is copied before
// any of their kernels runs; then each output against the CPU backend's.
class BackToBack {
 public:
  BackToBack(std::uint32_t seed, int calls) : rng_(seed) {
    for (auto& image : host_)
      for (auto& b : image = std::vector<std::uint8_t>(kImageBytes)) b = static_cast<std::uint8_t>(rng_());
    for (const auto& image : host_) host_samples_.push_back(image.data());
    for (int k = 0; k < calls; ++k) plan_.push_back(draw_call(rng_, k % 2 == 0));
    for (Call& c : plan_) {
      ferry_tensor_info info;
      ferry_tensor_info_init(&info, sizeof info);
      const ferry_source s = source_of(host_samples_);
      if (ferry_transform_describe_output(&info, &s, &c.transform) != FERRY_OK) {
        problem_ = ferry_last_error();
        return;
      }
      c.out_bytes = info.bytes;
      offsets_.push_back(out_total_);
      out_total_ += (info.bytes + 255) / 256 * 256;
    }
    // 1 GiB to hold the stream (four memsets of it), less on a small GPU: a sixteenth of what is free.
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) hold_bytes_ = std::min(hold_bytes_, free_bytes / 16);
    if (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void**>(&in_), kImages * kImageBytes) != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void**>(&out_), out_total_) != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void**>(&hold_), hold_bytes_) != cudaSuccess) {
      problem_ = "no stream or cudaMalloc failed";
      return;
    }
    for (int i = 0; i < kImages; ++i) {
      device_samples_.push_back(in_ + i * kImageBytes);
      if (cudaMemcpy(in_ + i * kImageBytes, host_[i].data(), kImageBytes, cudaMemcpyHostToDevice) != cudaSuccess)
        problem_ = "cudaMemcpy failed";
    }
    if (cudaMemset(out_, kPoison, out_total_) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
      problem_ = "cudaMemset failed";
  }
  ~BackToBack() {
    cudaFree(hold_);
    cudaFree(out_);
    cudaFree(in_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  BackToBack(const BackToBack&) = delete;
  BackToBack& operator=(const BackToBack&) = delete;

  // Only asynchronous work and this stream's own synchronize: safe beside other threads' calls.
  void queue(ferry_context_t gpu) {
    for (int repeat = 0; problem_.empty() && repeat < 4; ++repeat)
      if (cudaMemsetAsync(hold_, repeat, hold_bytes_, stream_) != cudaSuccess) problem_ = "cudaMemsetAsync failed";
    const ferry_source device_source = source_of(device_samples_);
    for (std::size_t k = 0; problem_.empty() && k < plan_.size(); ++k) {
      ferry_output o;
      ferry_output_init(&o, sizeof o);
      o.data = out_ + offsets_[k], o.bytes = plan_[k].out_bytes;
      if (ferry_transform_apply(gpu, &device_source, &plan_[k].transform, &o, stream_) != FERRY_OK)
        problem_ = "call " + std::to_string(k) + ": " + ferry_last_error();
    }
    if (problem_.empty() && cudaStreamSynchronize(stream_) != cudaSuccess) problem_ = "the calls failed";
  }

  // "" or the first output byte that differs from the CPU backend's.
  std::string check(ferry_context_t cpu) {
    std::vector<std::uint8_t> got(out_total_);
    if (problem_.empty() && cudaMemcpy(got.data(), out_, out_total_, cudaMemcpyDeviceToHost) != cudaSuccess)
      problem_ = "the copy back failed";
    const ferry_source host_source = source_of(host_samples_);
    for (std::size_t k = 0; problem_.empty() && k < plan_.size(); ++k) {
      std::vector<std::uint8_t> want(plan_[k].out_bytes, kPoison);
      ferry_output o;
      ferry_output_init(&o, sizeof o);
      o.data = want.data(), o.bytes = want.size();
      if (ferry_transform_apply(cpu, &host_source, &plan_[k].transform, &o, nullptr) != FERRY_OK)
        return std::string("CPU: ") + ferry_last_error();
      for (std::size_t b = 0; b < want.size(); ++b)
        if (got[offsets_[k] + b] != want[b])
          return "call " + std::to_string(k) + (k % 2 == 0 ? " (resized)" : " (cropped)") + ", byte " +
                 std::to_string(b) + ": gpu " + std::to_string(got[offsets_[k] + b]) + ", cpu " +
                 std::to_string(want[b]);
    }
    return problem_;
  }

 private:
  std::size_t hold_bytes_ = std::size_t{1} << 30;
  std::mt19937 rng_;
  std::vector<std::vector<std::uint8_t>> host_ = std::vector<std::vector<std::uint8_t>>(kImages);
  std::vector<const void*> host_samples_, device_samples_;
  std::vector<Call> plan_;
  std::vector<std::size_t> offsets_;
  std::size_t out_total_ = 0;
  cudaStream_t stream_ = nullptr;
  std::uint8_t *in_ = nullptr, *out_ = nullptr, *hold_ = nullptr;
  std::string problem_;
};

}  // namespace

TEST(TableUploadGpu, CallsQueuedBackToBackEachReadTheirOwnTable) {
  FERRY_REQUIRE_GPU();
  ferry_context_t gpu = make_test_context(FERRY_DEVICE_CUDA, 4), cpu = make_test_context(FERRY_DEVICE_CPU, 2);
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(cpu, nullptr);
  for (std::uint32_t seed : {3u, 4u}) {
    BackToBack run(seed, 24);
    run.queue(gpu);
    EXPECT_EQ(run.check(cpu), "") << "seed " << seed;
  }
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

TEST(TableUploadGpu, FourThreadsOnTheirOwnStreamsEachReadTheirOwnTables) {
  FERRY_REQUIRE_GPU();
  ferry_context_t gpu = make_test_context(FERRY_DEVICE_CUDA, 4), cpu = make_test_context(FERRY_DEVICE_CPU, 2);
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(cpu, nullptr);
  // Set up first: cudaMalloc and the synchronous copies would drain the other threads' streams.
  std::vector<std::unique_ptr<BackToBack>> runs;
  for (std::uint32_t t = 0; t < 4; ++t) runs.push_back(std::make_unique<BackToBack>(100u + t, 16));
  std::vector<std::thread> threads;
  for (auto& run : runs) threads.emplace_back([&run, gpu] { run->queue(gpu); });
  for (std::thread& th : threads) th.join();
  for (std::size_t t = 0; t < runs.size(); ++t) EXPECT_EQ(runs[t]->check(cpu), "") << "thread " << t;
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

#else
TEST(TableUploadGpu, CallsQueuedBackToBackEachReadTheirOwnTable) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
