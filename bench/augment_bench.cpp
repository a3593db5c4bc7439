// ferry_bench_augment: random augmentation drawn per sample in the fused pass
// (issue 16), two tables from one run, each beside its baseline measured in
// the same process:
//  1. the kernel on device data: n 224x224 RGB images, each augmented
//     (RandomResizedCrop + flip, then colour jitter, grayscale, erasing in
//     turn) to 224x224 normalized f16 NCHW; its effective bandwidth (the
//     drawn windows' bytes read once + the output written) against a
//     device-to-device cudaMemcpy of the same bytes (target 0.7), beside the
//     same crops without colour (the resize kernel alone);
//  2. training input: the same n images from pageable memory through the
//     pipeline, RandomResizedCrop + flip + ColorJitter(0.4, 0.4, 0.4, 0.1),
//     the step advanced per batch: source bytes per second against a pinned
//     cudaMemcpy of the same bytes (the bus limit; target 0.9).
// torchvision v2 and Kornia on the same batch run from Python:
// bench/python/augment_bench.py.
//
//   ferry_bench_augment [--n 256] [--iters 30] [--batches 40] [--in-flight 3] [--tables kernel,training]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/resize_bench_cases.h"
#include "ferry/ferry.h"

#if FERRY_HAVE_CUDA
#include "bench/gpu_timing.h"
#endif

namespace {

struct Options {
  int n = 256, iters = 30, batches = 40, in_flight = 3;
  std::string tables = "kernel,training";
};

[[noreturn]] void usage(int code) {
  std::fprintf(stderr,
               "usage: ferry_bench_augment [--n N] [--iters N] [--batches N] [--in-flight N] [--tables kernel,training]\n");
  std::exit(code);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> int {
      if (i + 1 >= argc) usage(2);
      return std::atoi(argv[++i]);
    };
    if (a == "--n") o.n = next();
    else if (a == "--iters") o.iters = next();
    else if (a == "--batches") o.batches = next();
    else if (a == "--in-flight") o.in_flight = next();
    else if (a == "--tables" && i + 1 < argc) o.tables = argv[++i];
    else if (a == "-h" || a == "--help") usage(0);
    else usage(2);
  }
  if (o.n < 1 || o.iters < 3 || o.batches < 3 || o.in_flight < 1) usage(2);
  return o;
}

constexpr int kSide = 224;

// The augmentations of the tables, from the crops alone to torchvision's whole training recipe.
struct Recipe {
  const char* name;
  bool jitter, contrast, grayscale, erase;
};
constexpr Recipe kRecipes[] = {
    {"RandomResizedCrop + flip (no colour: the resize kernel)", false, false, false, false},
    {"+ brightness, saturation, hue (one pass)", true, false, false, false},
    {"+ ColorJitter(0.4, 0.4, 0.4, 0.1) (contrast: a mean pass first)", true, true, false, false},
    {"+ RandomGrayscale(0.2) + RandomErasing(0.5)", true, true, true, true},
};

ferry_augment augment_of(const Recipe& r) {
  ferry_augment a;
  ferry_augment_init(&a, sizeof a);
  a.seed = 2026;
  a.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  a.flip_x_probability = 0.5f;
  if (r.jitter) {
    a.brightness[0] = a.saturation[0] = 0.6f, a.brightness[1] = a.saturation[1] = 1.4f;
    a.hue[0] = -0.1f, a.hue[1] = 0.1f;
  }
  if (r.contrast) a.contrast[0] = 0.6f, a.contrast[1] = 1.4f;
  if (r.grayscale) a.grayscale_probability = 0.2f;
  if (r.erase) a.erase_probability = 0.5f;
  return a;
}

ferry_transform transform_of(const ferry_augment* a) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.resize_w = t.resize_h = kSide;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  t.augment = a;
  return t;
}

ferry_source images_source(const void* data, int n) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = data, s.n = n, s.h = kSide, s.w = kSide, s.c = 3;
  s.bytes = static_cast<std::size_t>(n) * kSide * kSide * 3;
  return s;
}

}  // namespace

#if FERRY_HAVE_CUDA
namespace {

using ferry::bench::burst_ms;
using ferry::bench::check_cuda;
using ferry::bench::rate;
constexpr auto check = ferry::bench::check_ferry;

void kernel_table(ferry_context_t ctx, cudaStream_t stream, const Options& o) {
  const std::size_t in_bytes = static_cast<std::size_t>(o.n) * kSide * kSide * 3;
  const std::size_t out_bytes = static_cast<std::size_t>(o.n) * 3 * kSide * kSide * 2;
  std::uint8_t *d_in = nullptr, *d_out = nullptr, *d_copy = nullptr;
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&d_in), in_bytes), "cudaMalloc");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&d_out), out_bytes), "cudaMalloc");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&d_copy), in_bytes + out_bytes), "cudaMalloc");
  {
    std::vector<std::uint8_t> noise(in_bytes);
    std::uint32_t x = 5;
    for (auto& b : noise) b = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
    check_cuda(cudaMemcpy(d_in, noise.data(), in_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  const ferry_source src = images_source(d_in, o.n);
  ferry_output out;
  ferry_output_init(&out, sizeof out);
  out.data = d_out, out.bytes = out_bytes;
  std::printf("\n## augmentation kernel: %d images 224x224x3 on the device -> 224x224 normalized f16 NCHW, "
              "median of %d bursts\n",
              o.n, o.iters);
  std::printf("| augmentation | bytes moved (MB) | ferry ms | D2D copy ms | x D2D | target |\n|---|---|---|---|---|---|\n");
  {
    // The first recipe's crops and flips given as arrays (no augmentation): what drawing them costs.
    const ferry_augment a = augment_of(kRecipes[0]);
    std::vector<std::int64_t> h(static_cast<std::size_t>(o.n), kSide), w(static_cast<std::size_t>(o.n), kSide);
    std::vector<ferry_augment_params> drawn(static_cast<std::size_t>(o.n));
    check(ferry_augment_draw(&a, o.n, h.data(), w.data(), kSide, kSide, drawn.data(), 0), "ferry_augment_draw");
    std::vector<ferry_rectf> windows;
    std::vector<std::uint8_t> mirrors;
    for (const ferry_augment_params& d : drawn) {
      windows.push_back(ferry_rectf{static_cast<float>(d.crop.x), static_cast<float>(d.crop.y),
                                    static_cast<float>(d.crop.w), static_cast<float>(d.crop.h)});
      mirrors.push_back(static_cast<std::uint8_t>(d.flip));
    }
    ferry_transform t = transform_of(nullptr);
    t.per_sample_window = windows.data();
    t.per_sample_mirror = mirrors.data();
    t.per_sample_count = o.n;
    const std::size_t moved = ferry::bench::window_bytes(src, t) + out_bytes;
    const double copy_ms = burst_ms(stream, o.iters, [&] {
      check_cuda(cudaMemcpyAsync(d_copy, d_out, moved / 2, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    });
    const double ferry_ms = burst_ms(stream, o.iters, [&] {
      check(ferry_transform_apply(ctx, &src, &t, &out, stream), "ferry_transform_apply");
    });
    std::printf("| the same crops and flips as per_sample_window / per_sample_mirror arrays | %.1f | %.3f | %.3f | %.3f "
                "| report |\n",
                moved / 1e6, ferry_ms, copy_ms, copy_ms / ferry_ms);
  }
  for (const Recipe& r : kRecipes) {
    const ferry_augment a = augment_of(r);
    const ferry_transform t = transform_of(&a);
    // The drawn windows' bytes (read once) and the output's: what a copy of them costs.
    const std::size_t moved = ferry::bench::window_bytes(src, t) + out_bytes;
    const double copy_ms = burst_ms(stream, o.iters, [&] {
      // A copy reads and writes its bytes: half of them each way (as ferry_bench_resize).
      check_cuda(cudaMemcpyAsync(d_copy, d_out, moved / 2, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    });
    const double ferry_ms = burst_ms(stream, o.iters, [&] {
      check(ferry_transform_apply(ctx, &src, &t, &out, stream), "ferry_transform_apply");
    });
    // The host's time in the call (the plan, the draws, the table), not waiting for the device.
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i) check(ferry_transform_apply(ctx, &src, &t, &out, stream), "ferry_transform_apply");
    const double host_ms = ferry::bench::us_since(t0) / 10e3;
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const double ratio = copy_ms / ferry_ms;
    std::printf("| %s (host %.3f ms a call) | %.1f | %.3f | %.3f | %.3f | %s |\n", r.name, host_ms, moved / 1e6, ferry_ms, copy_ms, ratio,
                r.jitter ? (ratio >= 0.7 ? ">= 0.70 met" : ">= 0.70 NOT met") : "report");
  }
  cudaFree(d_copy);
  cudaFree(d_out);
  cudaFree(d_in);
}

// Seconds per batch, o.in_flight deep, the augmentation's step advanced per batch.
double pipelined_seconds(ferry_context_t ctx, const ferry_source& s, ferry_augment& a, const Options& o) {
  const ferry_transform t = transform_of(&a);
  return ferry::bench::pipelined_seconds(o.in_flight, o.batches, [&] {
    ferry_batch_t b = nullptr;
    check(ferry_batch_submit(&b, ctx, &s, &t, nullptr, nullptr), "ferry_batch_submit");
    ++a.step;
    return b;
  });
}

void training_table(ferry_context_t ctx, cudaStream_t stream, const Options& o) {
  const std::size_t bytes = static_cast<std::size_t>(o.n) * kSide * kSide * 3;
  std::vector<std::uint8_t> pageable(bytes);
  std::uint32_t x = 3;
  for (auto& b : pageable) b = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  void* pinned = nullptr;
  check(ferry_memory_alloc_host(&pinned, ctx, bytes), "ferry_memory_alloc_host");
  std::memcpy(pinned, pageable.data(), bytes);
  void* d_copy = nullptr;
  check_cuda(cudaMalloc(&d_copy, bytes), "cudaMalloc");
  const double copies_per_s = rate(stream, o.batches * 3, [&] {
    check_cuda(cudaMemcpyAsync(d_copy, pinned, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  });
  const double limit_gbs = copies_per_s * bytes / 1e9;
  ferry_augment a = augment_of(kRecipes[2]);
  const double pageable_s = pipelined_seconds(ctx, images_source(pageable.data(), o.n), a, o);
  const double pinned_s = pipelined_seconds(ctx, images_source(pinned, o.n), a, o);
  std::printf("\n## training input: %d images 224x224x3 (%.1f MB uint8), RandomResizedCrop + flip + "
              "ColorJitter(0.4, 0.4, 0.4, 0.1) -> normalized f16 NCHW, step advanced per batch, %d batches, %d in "
              "flight\n",
              o.n, bytes / 1e6, o.batches, o.in_flight);
  std::printf("| row | ms / batch | GB/s of source | x bus limit | target |\n|---|---|---|---|---|\n");
  std::printf("| bus limit: pinned cudaMemcpy of the same bytes | %.3f | %.2f | 1.000 | |\n", 1e3 / copies_per_s,
              limit_gbs);
  const double ratio = bytes / pageable_s / 1e9 / limit_gbs;
  std::printf("| ferry, pageable images (staged) | %.3f | %.2f | %.3f | >= 0.90 %s |\n", pageable_s * 1e3,
              bytes / pageable_s / 1e9, ratio, ratio >= 0.9 ? "met" : "NOT met");
  std::printf("| ferry, the same images in pinned memory | %.3f | %.2f | %.3f | report |\n", pinned_s * 1e3,
              bytes / pinned_s / 1e9, bytes / pinned_s / 1e9 / limit_gbs);
  cudaFree(d_copy);
  ferry_memory_free_host(ctx, pinned);
}

int run(const Options& o) {
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = FERRY_DEVICE_CUDA;
  ferry_context_t ctx = nullptr;
  check(ferry_context_create(&ctx, &co), "ferry_context_create");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaDeviceProp prop{};
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::printf("ferry_bench_augment on %s (%d SMs); every baseline from this run\n", prop.name,
              prop.multiProcessorCount);
  if (o.tables.find("kernel") != std::string::npos) kernel_table(ctx, stream, o);
  if (o.tables.find("training") != std::string::npos) training_table(ctx, stream, o);
  cudaStreamDestroy(stream);
  check(ferry_context_destroy(ctx), "ferry_context_destroy");
  return 0;
}

}  // namespace
#endif

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
#if FERRY_HAVE_CUDA
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return run(o);
#endif
  // Without a GPU: each recipe's description is checked on the CPU, so the
  // benchmark's inputs are known valid wherever it builds.
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(2) * kSide * kSide * 3, 128);
  const ferry_source src = images_source(pixels.data(), 2);
  for (const Recipe& r : kRecipes) {
    const ferry_augment a = augment_of(r);
    const ferry_transform t = transform_of(&a);
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    if (ferry_transform_describe_output(&info, &src, &t) != FERRY_OK) {
      std::fprintf(stderr, "%s: %s\n", r.name, ferry_last_error());
      return 1;
    }
  }
  std::printf("ferry_bench_augment: SKIPPED (no CUDA device or driver); %zu recipes described\n",
              sizeof kRecipes / sizeof kRecipes[0]);
  return 0;
}
