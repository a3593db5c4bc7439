// What ferry_bench_dataset (dataset_bench.cpp) runs on and with: the
// command line's settings, the backend (a context, its baselines and, on a
// GPU, the stream and buffers the timed rows use), the two sets and their
// pseudo-random bytes, the gathers' transforms, the bytes a gather moves,
// and the check that an upload kept the source's samples.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_baselines.h"
#include "bench/resize_bench_cases.h"  // window_bytes
#include "ferry/ferry.h"

#if FERRY_HAVE_CUDA
#include "bench/gpu_timing.h"
#endif

namespace ferry::bench::dataset {

namespace fb = ferry::bench;

// The command line (parsed in dataset_bench.cpp).
struct Options {
  std::string sets = "cifar,64", tables = "upload,gather", device = "auto", command;
  bool small = false;
  int reps = 20, in_flight = 2;
  int batches = 0;  // gathers a pipelined run; 0: 40, or 4 with --small
};

// A failed ferry call ends the run, with ferry's message.
inline void check(ferry_status s, const char* what) {
  if (s != FERRY_OK) {
    std::fprintf(stderr, "%s failed: %s\n", what, ferry_last_error());
    std::exit(1);
  }
}

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct SetShape {
  std::string id, name;
  std::int64_t n, side;
  std::size_t bytes() const { return static_cast<std::size_t>(n * side * side * 3); }
};

// What the rows run on: the context, its baselines, and (GPU) the stream events are recorded on.
struct Backend {
  ferry_context_t ctx = nullptr;
  bool gpu = false;
  int threads = 1;  // the CPU backend's conversion threads, and its memcpy baseline's
  std::unique_ptr<fb::Baselines> base;
#if FERRY_HAVE_CUDA
  cudaStream_t stream = nullptr;
  // The D2D baseline's source and destination, each kD2DSpan bytes: every
  // copy starts further on, so that it reads and writes device memory as
  // the gather reads its random samples, not the L2 cache (50-60 MB on an
  // H100 or H200) a copy of the same few MB again and again would hit.
  std::uint8_t *d2d_from = nullptr, *d2d_to = nullptr;
  std::size_t d2d_at = 0;
  // The kernel-time gathers write here (a caller's output waits for its hand-off stream, held at a StreamGate).
  void* timed_out = nullptr;
  std::size_t timed_out_bytes = 0;
  // The bench's own device copy of the set the gather rows run on, which the
  // bare gather (bare_gather.h) reads as ferry's kernel reads the dataset's.
  const std::uint8_t* set_copy = nullptr;
#endif
};

#if FERRY_HAVE_CUDA
inline constexpr std::size_t kD2DSpan = std::size_t{512} << 20;
#endif

// Pseudo-random bytes, 8 at a time (a 2.5 GB set fills in about a second).
inline void fill_random(std::uint8_t* p, std::size_t bytes) {
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::memcpy(p + i, &x, 8);
  }
  for (; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(i * 131);
}

inline ferry_source set_source(const SetShape& s, const void* data) {
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.data = data, src.bytes = s.bytes();
  src.n = s.n, src.h = s.side, src.w = s.side, src.c = 3;
  return src;
}

// CIFAR's training recipe at the sample's size (augmented), or the plain
// normalized conversion of the samples as they are; `a` holds the augmentation.
inline ferry_transform gather_transform(bool augmented, ferry_augment& a, std::int64_t side) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  const float mean[3] = {0.4914f, 0.4822f, 0.4465f}, stdev[3] = {0.2470f, 0.2435f, 0.2616f};
  for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  if (!augmented) return t;
  t.resize_w = t.resize_h = side;
  ferry_augment_init(&a, sizeof a);
  a.seed = 2026;
  a.crop = FERRY_AUGMENT_CROP_RANDOM;
  a.padding = 4;
  a.flip_x_probability = 0.5f;
  t.augment = &a;
  return t;
}

// A gather's input bytes (the windows its crops read, each once) and output bytes, described on the host.
inline void gather_bytes(const SetShape& s, std::int64_t batch, const ferry_transform& t, std::size_t* in, std::size_t* out) {
  static const std::uint8_t any = 0;  // described, never read
  ferry_source probe = set_source(s, &any);
  probe.n = batch, probe.bytes = static_cast<std::size_t>(batch * s.side * s.side * 3);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  check(ferry_transform_describe_output(&info, &probe, &t), "ferry_transform_describe_output");
  *out = info.bytes;
  *in = t.resize_w > 0 ? fb::window_bytes(probe, t) : probe.bytes;
}

// The uploaded samples are the source's: a uint8 identity gather of a few indices, copied back.
inline bool uploaded_intact(const Backend& b, ferry_dataset_t ds, const SetShape& s, const std::uint8_t* source) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_UINT8, t.out_layout = FERRY_LAYOUT_NHWC;
  const std::vector<std::int64_t> indices{s.n - 1, 0, s.n / 2, 7 % s.n};
  const std::size_t sample = s.bytes() / static_cast<std::size_t>(s.n);
  ferry_batch_t batch = nullptr;
  check(ferry_dataset_gather(&batch, ds, indices.data(), 4, &t, nullptr, nullptr), "ferry_dataset_gather");
  check(ferry_batch_wait(batch), "ferry_batch_wait");
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  check(ferry_batch_describe_output(&info, batch), "ferry_batch_describe_output");
  std::vector<std::uint8_t> got(info.bytes);
#if FERRY_HAVE_CUDA
  if (b.gpu) fb::check_cuda(cudaMemcpy(got.data(), info.data, info.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
#endif
  if (!b.gpu) std::memcpy(got.data(), info.data, info.bytes);
  check(ferry_batch_release(batch), "ferry_batch_release");
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (std::memcmp(got.data() + i * sample, source + static_cast<std::size_t>(indices[i]) * sample, sample) != 0)
      return false;
  return true;
}

}  // namespace ferry::bench::dataset
