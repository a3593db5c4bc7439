// ferry_bench_resize: resize in the fused pass (issue 14), three tables from
// one run, each beside its baseline measured in the same process:
//  1. the kernel: each mode and interpolation on device data, its effective
//     bandwidth (the source window's bytes read once + the output's bytes
//     written) against a device-to-device cudaMemcpy of the same bytes;
//     target 0.7 for bilinear in each mode (issue 14: the stretch 400->224,
//     the letterbox of 16 frames, Resize(256)+CenterCrop(224)), the others
//     reported (the upscale, RandomResizedCrop's random windows, the other
//     interpolations);
//  2. detector input: one 1920x1080x3 BGR frame from pinned memory,
//     letterboxed to 640x640 RGB f16 NCHW into the engine's buffer on the
//     engine's stream: p50 latency against a pinned cudaMemcpy of the frame
//     (target +20 us) and the back-to-back rate against the memcpy's (0.95);
//  3. training input: 256 images of 300-500 px per side at their own sizes,
//     each a RandomResizedCrop to 224x224 with a random flip, normalized f16
//     NCHW, from pageable memory (and, to show what staging costs, the same
//     images in pinned memory): source bytes per second against a pinned
//     cudaMemcpy of the same bytes (the bus limit; target 0.9).
// torchvision's and the resize-on-the-CPU-first baselines of the training
// table run from Python: bench/python/resize_bench.py.
//
//   ferry_bench_resize [--n 256] [--iters 30] [--frames 300] [--batches 40] [--in-flight 3]
//                      [--tables kernel,detector,training] [--staging-threads N]
// --staging-threads sets ferry_context_options.staging_threads (default 0:
// three quarters of the host's cores): pageable images are only as fast as
// those threads copy host memory.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/resize_bench_cases.h"
#include "bench/stage_times.h"
#include "ferry/ferry.h"

#if FERRY_HAVE_CUDA
#include "bench/gpu_timing.h"
#endif

namespace {

using ferry::bench::frames_source;
using ferry::bench::ImageBatch;
using ferry::bench::interpolation_name;
using ferry::bench::letterbox_transform;
using ferry::bench::window_bytes;

struct Options {
  int n = 256, iters = 30, frames = 300, batches = 40, in_flight = 3;
  int staging_threads = 0;  // ferry_context_options.staging_threads (0: ferry's default)
  std::string tables = "kernel,detector,training";  // which tables to run
};

[[noreturn]] void usage(int code) {
  std::fprintf(stderr,
               "usage: ferry_bench_resize [--n N] [--iters N] [--frames N] [--batches N] [--in-flight N]\n"
               "                          [--tables kernel,detector,training] [--staging-threads N]\n");
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
    else if (a == "--frames") o.frames = next();
    else if (a == "--batches") o.batches = next();
    else if (a == "--in-flight") o.in_flight = next();
    else if (a == "--staging-threads") o.staging_threads = next();
    else if (a == "--tables" && i + 1 < argc) o.tables = argv[++i];
    else if (a == "-h" || a == "--help") usage(0);
    else usage(2);
  }
  if (o.n < 1 || o.iters < 3 || o.frames < 10 || o.batches < 3 || o.in_flight < 1 || o.staging_threads < 0) usage(2);
  return o;
}

}  // namespace

#if FERRY_HAVE_CUDA
namespace {

using ferry::bench::burst_ms;
using ferry::bench::check_cuda;
using ferry::bench::latency;
using ferry::bench::rate;
constexpr auto check = ferry::bench::check_ferry;

struct KernelRow {
  std::string name;
  ferry_source source;
  ferry_transform transform;
  bool mode_target;  // bilinear, the row of its mode: target 0.7 (the others are reported)
};

// Table 1: the kernel on device data, against a D2D copy of the same bytes.
void kernel_table(ferry_context_t ctx, cudaStream_t stream, const Options& o) {
  const int n = o.n;
  // Images of one size (400x400 and 200x200 packed) and at their own sizes, and 1080p frames.
  const std::size_t uniform_bytes = static_cast<std::size_t>(n) * 400 * 400 * 3;
  ImageBatch images(n, 11);
  const int frames = std::max(1, n / 16);
  const std::size_t frame_bytes = frames_source(nullptr, frames).bytes;
  const std::size_t in_bytes = std::max({uniform_bytes, images.bytes, frame_bytes});
  std::uint8_t* d_in = nullptr;
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&d_in), in_bytes), "cudaMalloc");
  {
    std::vector<std::uint8_t> noise(in_bytes);
    std::uint32_t x = 99;
    for (auto& b : noise) b = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
    check_cuda(cudaMemcpy(d_in, noise.data(), in_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  // The variable-size images, on the device (packed one after another).
  std::vector<ferry_sample_desc> device_descs = images.descs;
  std::size_t offset = 0;
  for (ferry_sample_desc& d : device_descs) d.data = d_in + offset, offset += d.bytes;

  auto uniform = [&](int side) {
    ferry_source s;
    ferry_source_init(&s, sizeof s);
    s.data = d_in, s.n = n, s.h = side, s.w = side, s.c = 3;
    s.bytes = static_cast<std::size_t>(n) * side * side * 3;
    return s;
  };
  auto normalized = [](ferry_transform& t) {
    const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
    for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  };
  std::vector<KernelRow> rows;
  const ferry_interpolation all[] = {FERRY_INTERP_NEAREST, FERRY_INTERP_LINEAR, FERRY_INTERP_CUBIC, FERRY_INTERP_AREA,
                                     FERRY_INTERP_LINEAR_ANTIALIAS};
  for (ferry_interpolation m : all) {
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.out_dtype = FERRY_DTYPE_FLOAT16, t.resize_w = t.resize_h = 224, t.interpolation = m;
    normalized(t);
    rows.push_back({std::string("stretch 400->224 ") + interpolation_name(m) + " f16 NCHW", uniform(400), t,
                    m == FERRY_INTERP_LINEAR});
  }
  {
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.out_dtype = FERRY_DTYPE_FLOAT16, t.resize_w = t.resize_h = 448;
    normalized(t);
    rows.push_back({"stretch 200->448 (upscale) bilinear f16 NCHW", uniform(200), t, false});
  }
  {
    ferry_source s = images.source();
    s.sample_descs = device_descs.data();
    for (ferry_interpolation m : {FERRY_INTERP_LINEAR, FERRY_INTERP_LINEAR_ANTIALIAS})
      rows.push_back({std::string("RandomResizedCrop+flip 300-500px->224 ") + interpolation_name(m) + " f16 NCHW", s,
                      images.transform(m), false});
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.out_dtype = FERRY_DTYPE_FLOAT16, t.resize_w = t.resize_h = 224;
    t.resize_mode = FERRY_RESIZE_SHORTER_SIDE, t.resize_shorter = 256;
    normalized(t);
    rows.push_back({"Resize(256)+CenterCrop(224) 300-500px bilinear f16 NCHW", s, t, true});
  }
  {
    const ferry_source s = frames_source(d_in, frames);
    ferry_transform t = letterbox_transform();
    for (ferry_interpolation m : {FERRY_INTERP_LINEAR, FERRY_INTERP_AREA}) {
      t.interpolation = m;
      rows.push_back({std::string("letterbox 1080p->640 ") + interpolation_name(m) + " BGR->RGB f16 NCHW", s, t,
                      m == FERRY_INTERP_LINEAR});
    }
    t.interpolation = FERRY_INTERP_LINEAR;  // the detector's one frame at a time (its latency)
    rows.push_back({"letterbox 1080p->640 bilinear, one frame", frames_source(d_in, 1), t, false});
  }
  std::size_t out_max = 0;
  for (const KernelRow& r : rows) {
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    check(ferry_transform_describe_output(&info, &r.source, &r.transform), r.name.c_str());
    out_max = std::max(out_max, info.bytes);
  }
  std::uint8_t *d_out = nullptr, *d_copy = nullptr;
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&d_out), out_max + in_bytes), "cudaMalloc");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&d_copy), out_max + in_bytes), "cudaMalloc");
  std::printf("\n## kernel: resize on device data (%d images or %d frames), median of %d bursts of 10\n", n, frames,
              o.iters);
  std::printf("| case | ms | host ms a call | GB/s (window read + written) | d2d GB/s | ratio | target | met |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (const KernelRow& r : rows) {
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    check(ferry_transform_describe_output(&info, &r.source, &r.transform), r.name.c_str());
    ferry_output out;
    ferry_output_init(&out, sizeof out);
    out.data = d_out, out.bytes = info.bytes;
    const std::size_t moved = window_bytes(r.source, r.transform) + info.bytes;
    const double kernel_ms = burst_ms(stream, o.iters, [&] {
      check(ferry_transform_apply(ctx, &r.source, &r.transform, &out, stream), r.name.c_str());
    });
    const double copy_ms = burst_ms(stream, o.iters, [&] {
      check_cuda(cudaMemcpyAsync(d_copy, d_out, moved / 2, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    });
    // The host's time in the call (the plan, the table, the launches), not
    // waiting for the device: a row whose ms is near it is bound by the host.
    const auto host_start = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i)
      check(ferry_transform_apply(ctx, &r.source, &r.transform, &out, stream), r.name.c_str());
    const double host_ms = ferry::bench::us_since(host_start) / 10e3;
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const double ratio = copy_ms / kernel_ms;
    std::printf("| %s | %.4f | %.4f | %.1f | %.1f | %.3f | %s | %s |\n", r.name.c_str(), kernel_ms, host_ms,
                moved / kernel_ms / 1e6, moved / copy_ms / 1e6, ratio, r.mode_target ? ">= 0.70" : "report",
                r.mode_target ? (ratio >= 0.7 ? "yes" : "NO") : "-");
  }
  cudaFree(d_copy);
  cudaFree(d_out);
  cudaFree(d_in);
}

// Table 2: one 1080p frame letterboxed to 640x640, engine style.
void detector_table(ferry_context_t ctx, cudaStream_t engine, const Options& o) {
  const std::size_t frame_bytes = std::size_t{1920} * 1080 * 3;
  void* frame = nullptr;
  check(ferry_memory_alloc_host(&frame, ctx, frame_bytes), "ferry_memory_alloc_host");
  std::uint32_t x = 5;
  for (std::size_t i = 0; i < frame_bytes; ++i)
    static_cast<std::uint8_t*>(frame)[i] = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  const ferry_source src = frames_source(frame, 1);
  const ferry_transform t = letterbox_transform();
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  check(ferry_transform_describe_output(&info, &src, &t), "ferry_transform_describe_output");
  void *input_tensor = nullptr, *copy_dst = nullptr;
  check_cuda(cudaMalloc(&input_tensor, info.bytes), "cudaMalloc");
  check_cuda(cudaMalloc(&copy_dst, frame_bytes), "cudaMalloc");
  ferry_output out;
  ferry_output_init(&out, sizeof out);
  out.data = input_tensor, out.bytes = info.bytes;
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.handoff_stream = engine, so.has_handoff_stream = 1;
  auto memcpy_frame = [&] {
    check_cuda(cudaMemcpyAsync(copy_dst, frame, frame_bytes, cudaMemcpyHostToDevice, engine), "cudaMemcpyAsync");
  };
  auto ferry_frame = [&] {
    ferry_batch_t b = nullptr;
    check(ferry_batch_submit(&b, ctx, &src, &t, &out, &so), "ferry_batch_submit");
    check(ferry_batch_release(b), "ferry_batch_release");
  };
  const auto [copy_p50, copy_p99] = latency(engine, o.frames, memcpy_frame);
  ferry_stats before, after;
  ferry_stats_init(&before, sizeof before);
  ferry_stats_init(&after, sizeof after);
  check(ferry_stats_get(&before, ctx), "ferry_stats_get");
  const auto [ferry_p50, ferry_p99] = latency(engine, o.frames, ferry_frame);
  check(ferry_stats_get(&after, ctx), "ferry_stats_get");
  // Where the time goes: ferry's own timing events around its copy and kernel (GPU time, per
  // frame), and the host's time in the submit call alone.
  const ferry::bench::StageTimes frame_times = ferry::bench::per_batch(before, after);
  std::vector<double> submit_us;
  for (int i = 0; i < o.frames; ++i) {
    ferry_batch_t b = nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    check(ferry_batch_submit(&b, ctx, &src, &t, &out, &so), "ferry_batch_submit");
    submit_us.push_back(ferry::bench::us_since(t0));
    check(ferry_batch_release(b), "ferry_batch_release");
    check_cuda(cudaStreamSynchronize(engine), "cudaStreamSynchronize");
  }
  const double copy_rate = rate(engine, o.frames, memcpy_frame);
  const double ferry_rate = rate(engine, o.frames, ferry_frame);
  std::printf("\n## detector input: 1920x1080x3 BGR, pinned -> 640x640 letterbox RGB f16 NCHW, caller's buffer on "
              "the engine's stream (%d frames)\n",
              o.frames);
  std::printf("| row | ferry | pinned memcpy of the frame | target | met |\n|---|---|---|---|---|\n");
  std::printf("| latency p50 (us) | %.1f (p99 %.1f) | %.1f (p99 %.1f) | <= memcpy + 20 (%+.1f) | %s |\n", ferry_p50,
              ferry_p99, copy_p50, copy_p99, ferry_p50 - copy_p50, ferry_p50 <= copy_p50 + 20 ? "yes" : "NO");
  std::printf("| back to back (frames/s) | %.0f | %.0f | >= 0.95 of memcpy (%.3f) | %s |\n", ferry_rate, copy_rate,
              ferry_rate / copy_rate, ferry_rate >= 0.95 * copy_rate ? "yes" : "NO");
  std::printf("where a frame's time goes (ferry's timing events, mean): %s; the submit call on the host p50 %.1f us\n",
              frame_times.gpu_text().c_str(), ferry::bench::percentile(submit_us, 0.5));
  cudaFree(input_tensor);
  cudaFree(copy_dst);
  ferry_memory_free_host(ctx, frame);
}

// Seconds per batch of submits of s with t, o.in_flight deep.
double pipelined_seconds(ferry_context_t ctx, const ferry_source& s, const ferry_transform& t, const Options& o) {
  return ferry::bench::pipelined_seconds(o.in_flight, o.batches, [&] {
    ferry_batch_t b = nullptr;
    check(ferry_batch_submit(&b, ctx, &s, &t, nullptr, nullptr), "ferry_batch_submit");
    return b;
  });
}

// Table 3: training input through the pipeline, against the bus limit.
void training_table(ferry_context_t ctx, cudaStream_t stream, const Options& o) {
  ImageBatch images(o.n, 3);
  const ferry_source pageable = images.source();
  const ferry_transform t = images.transform();
  // The same images in pinned memory (one block), and the bus limit: one pinned copy of all their bytes.
  void* pinned = nullptr;
  check(ferry_memory_alloc_host(&pinned, ctx, images.bytes), "ferry_memory_alloc_host");
  std::vector<ferry_sample_desc> pinned_descs = images.descs;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < pinned_descs.size(); ++i) {
    std::memcpy(static_cast<std::uint8_t*>(pinned) + offset, images.pixels[i].data(), images.descs[i].bytes);
    pinned_descs[i].data = static_cast<std::uint8_t*>(pinned) + offset;
    offset += images.descs[i].bytes;
  }
  ferry_source from_pinned = pageable;
  from_pinned.sample_descs = pinned_descs.data();
  void* d_copy = nullptr;
  check_cuda(cudaMalloc(&d_copy, images.bytes), "cudaMalloc");
  const double copies_per_s = rate(stream, o.batches * 3, [&] {
    check_cuda(cudaMemcpyAsync(d_copy, pinned, images.bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  });
  const double limit_gbs = copies_per_s * images.bytes / 1e9;
  const double pageable_s = pipelined_seconds(ctx, pageable, t, o);
  const double pinned_s = pipelined_seconds(ctx, from_pinned, t, o);
  std::printf("\n## training input: %d images 300-500 px (%.1f MB uint8), RandomResizedCrop+flip -> 224x224 "
              "normalized f16 NCHW, %d batches, %d in flight\n",
              o.n, images.bytes / 1e6, o.batches, o.in_flight);
  std::printf("| row | ms / batch | GB/s of source | x bus limit | target | met |\n|---|---|---|---|---|---|\n");
  std::printf("| bus limit: pinned cudaMemcpy of the same bytes | %.3f | %.2f | 1.000 | | |\n", 1e3 / copies_per_s,
              limit_gbs);
  const double pageable_ratio = images.bytes / pageable_s / 1e9 / limit_gbs;
  std::printf("| ferry, pageable images (staged) | %.3f | %.2f | %.3f | >= 0.90 | %s |\n", pageable_s * 1e3,
              images.bytes / pageable_s / 1e9, pageable_ratio, pageable_ratio >= 0.9 ? "yes" : "NO");
  std::printf("| ferry, the same images in pinned memory | %.3f | %.2f | %.3f | report | - |\n", pinned_s * 1e3,
              images.bytes / pinned_s / 1e9, images.bytes / pinned_s / 1e9 / limit_gbs);
  cudaFree(d_copy);
  ferry_memory_free_host(ctx, pinned);
}

int run(const Options& o) {
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = FERRY_DEVICE_CUDA;
  co.staging_threads = o.staging_threads;
  ferry_context_t ctx = nullptr;
  check(ferry_context_create(&ctx, &co), "ferry_context_create");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaDeviceProp prop{};
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::printf("ferry_bench_resize on %s (%d SMs); every baseline from this run\n", prop.name,
              prop.multiProcessorCount);
  if (o.tables.find("kernel") != std::string::npos) kernel_table(ctx, stream, o);
  if (o.tables.find("detector") != std::string::npos) detector_table(ctx, stream, o);
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
  // Without a GPU: the training batch's description is still checked, so the
  // benchmark's own inputs are known valid wherever it builds.
  ImageBatch images(std::min(o.n, 8));
  std::printf("ferry_bench_resize: SKIPPED (no CUDA device or driver); %s reads %zu window bytes of %zu\n",
              interpolation_name(FERRY_INTERP_LINEAR), window_bytes(images.source(), images.transform()), images.bytes);
  return 0;
}
