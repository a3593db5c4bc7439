// ferry_bench_frame: an engine's loop, one frame at a time on the engine's own
// stream (issue 12's frame rows). A 1920x1080 BGRA frame in ferry's pinned
// memory (a render target read back, say) becomes RGB float16 NCHW, flipped
// vertically (GL's rows run bottom-up), normalized, in the engine's own device
// buffer, handed off to the engine's stream. Beside it, in the same run: a
// pinned cudaMemcpyAsync of the frame's bytes on that stream (the bus's own
// latency and rate), and one 224x224x3 image submitted and waited for.
//
//   ferry_bench_frame [--frames 300] [--width 1920] [--height 1080]
//
// Rows: latency (p50 of submit -> the engine's stream synchronized, host
// clock, after a warm-up) and back-to-back rate (frames submitted one after
// another, each released at once; CUDA events on the engine's stream), each
// against its target; and report rows of what one CUDA launch per frame would
// buy: the copy and ferry's kernel (ferry_transform_apply) as two calls, and
// the same captured once as a CUDA graph and replayed, for the frame and the
// image. Without a CUDA device it says so and exits 0.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/stage_times.h"
#include "ferry/ferry.h"

#if FERRY_HAVE_CUDA
#include "bench/gpu_timing.h"
#endif

namespace {

struct Options {
  int frames = 300, width = 1920, height = 1080;
};

[[noreturn]] void usage(int code) {
  std::fprintf(stderr, "usage: ferry_bench_frame [--frames N] [--width W] [--height H]\n");
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
    if (a == "--frames") o.frames = next();
    else if (a == "--width") o.width = next();
    else if (a == "--height") o.height = next();
    else if (a == "-h" || a == "--help") usage(0);
    else usage(2);
  }
  if (o.frames < 10 || o.width < 1 || o.height < 1) usage(2);
  return o;
}

}  // namespace

#if FERRY_HAVE_CUDA
namespace {

using ferry::bench::check_cuda;
using ferry::bench::latency;
using ferry::bench::percentile;
using ferry::bench::rate;
using ferry::bench::us_since;
constexpr auto check = ferry::bench::check_ferry;

struct Row {
  std::string name;
  double value, base, target;
  bool higher_is_better;
  std::string unit, note;
};

void print(const std::vector<Row>& rows) {
  std::printf("\n%-44s %12s %12s %10s %8s  %s\n", "row", "ferry", "baseline", "target", "met", "note");
  for (const Row& r : rows) {
    const bool met = r.higher_is_better ? r.value >= r.target : r.value <= r.target;
    std::printf("%-44s %12.2f %12.2f %10.2f %8s  %s\n", r.name.c_str(), r.value, r.base, r.target,
                std::isnan(r.target) ? "report" : met ? "yes" : "NO", r.note.c_str());
  }
}

// Two report rows: `queue` (a copy and ferry's kernel) called on `stream`,
// then captured once as a CUDA graph and replayed; each row's p50 latency
// over the memcpy's (`copy_p50`), and the host time of the calls.
template <typename Queue>
void graph_rows(std::vector<Row>& rows, const char* what, cudaStream_t stream, int calls, double copy_p50,
                Queue&& queue) {
  std::vector<double> call_us;
  auto two_calls = [&] {
    const auto t = std::chrono::steady_clock::now();
    if (!queue()) {
      std::fprintf(stderr, "%s: %s\n", what, ferry_last_error());
      std::exit(1);
    }
    call_us.push_back(us_since(t));
  };
  const double calls_p50 = latency(stream, calls, two_calls).first;
  char note[200];
  std::snprintf(note, sizeof note, "us, p50; %+.1f us over the memcpy; the two calls' host time p50 %.1f us",
                calls_p50 - copy_p50, percentile(call_us, 0.5));
  rows.push_back({std::string(what) + ": memcpy + ferry_transform_apply", calls_p50, copy_p50, NAN, false, "us", note});
  std::string why;
  cudaGraphExec_t graph = ferry::bench::capture_graph(stream, queue, why);
  if (graph == nullptr) {
    rows.push_back({std::string(what) + ": the same as one CUDA graph", NAN, copy_p50, NAN, false, "us",
                    "not captured: " + why});
    return;
  }
  std::vector<double> launch_us;
  const double graph_p50 = latency(stream, calls, [&] {
    const auto t = std::chrono::steady_clock::now();
    check_cuda(cudaGraphLaunch(graph, stream), "cudaGraphLaunch");
    launch_us.push_back(us_since(t));
  }).first;
  std::snprintf(note, sizeof note, "us, p50; %+.1f us over the memcpy; cudaGraphLaunch's host time p50 %.1f us",
                graph_p50 - copy_p50, percentile(launch_us, 0.5));
  rows.push_back({std::string(what) + ": the same as one CUDA graph", graph_p50, copy_p50, NAN, false, "us", note});
  cudaGraphExecDestroy(graph);
}

int run(const Options& o) {
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = FERRY_DEVICE_CUDA;
  ferry_context_t ctx = nullptr;
  check(ferry_context_create(&ctx, &co), "ferry_context_create");
  cudaStream_t engine = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&engine, cudaStreamNonBlocking), "cudaStreamCreate");

  // The frame: BGRA, pinned by ferry, random content.
  const std::size_t frame_bytes = static_cast<std::size_t>(o.width) * o.height * 4;
  void* frame = nullptr;
  check(ferry_memory_alloc_host(&frame, ctx, frame_bytes), "ferry_memory_alloc_host");
  auto* bytes = static_cast<std::uint8_t*>(frame);
  std::uint32_t x = 12345;
  for (std::size_t i = 0; i < frame_bytes; ++i) bytes[i] = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.data = frame;
  src.bytes = frame_bytes;
  src.n = 1, src.h = o.height, src.w = o.width, src.c = 4;
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.out_layout = FERRY_LAYOUT_NCHW;
  t.out_channels = 3;
  t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
  t.mirror = FERRY_MIRROR_Y;
  t.scale = 1.0f / 255.0f;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  check(ferry_transform_describe_output(&info, &src, &t), "ferry_transform_describe_output");

  // The engine's buffers: its input tensor, and a plain copy's destination.
  void* input_tensor = nullptr;
  void* copy_dst = nullptr;
  check_cuda(cudaMalloc(&input_tensor, info.bytes), "cudaMalloc");
  check_cuda(cudaMalloc(&copy_dst, frame_bytes), "cudaMalloc");
  ferry_output out;
  ferry_output_init(&out, sizeof out);
  out.data = input_tensor;
  out.bytes = info.bytes;
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.handoff_stream = engine;
  so.has_handoff_stream = 1;

  auto memcpy_frame = [&] {
    check_cuda(cudaMemcpyAsync(copy_dst, frame, frame_bytes, cudaMemcpyHostToDevice, engine), "cudaMemcpyAsync");
  };
  auto ferry_frame = [&] {
    ferry_batch_t b = nullptr;
    check(ferry_batch_submit(&b, ctx, &src, &t, &out, &so), "ferry_batch_submit");
    check(ferry_batch_release(b), "ferry_batch_release");  // stream-ordered: the engine's stream holds the result
  };

  std::vector<Row> rows;
  const auto [copy_p50, copy_p99] = latency(engine, o.frames, memcpy_frame);
  ferry_stats before, after;
  ferry_stats_init(&before, sizeof before);
  ferry_stats_init(&after, sizeof after);
  check(ferry_stats_get(&before, ctx), "ferry_stats_get");
  const auto [ferry_p50, ferry_p99] = latency(engine, o.frames, ferry_frame);
  check(ferry_stats_get(&after, ctx), "ferry_stats_get");
  // ferry's own timing events around each chunk's copy and kernel: what the GPU spent, per frame.
  const ferry::bench::StageTimes frame_times = ferry::bench::per_batch(before, after);
  char note[320];
  std::snprintf(note, sizeof note,
                "us, p50; p99 ferry %.1f, memcpy %.1f; %+.1f us over the memcpy (target <= +15); "
                "per frame: %s",
                ferry_p99, copy_p99, ferry_p50 - copy_p50, frame_times.gpu_text().c_str());
  rows.push_back({"frame latency (BGRA->RGB f16 NCHW, mirror Y)", ferry_p50, copy_p50, copy_p50 + 15, false, "us",
                  note});
  const double copy_rate = rate(engine, o.frames, memcpy_frame);
  const double ferry_rate = rate(engine, o.frames, ferry_frame);
  std::snprintf(note, sizeof note, "frames/s back to back: ferry %.0f, memcpy %.0f (target >= 0.95 of it)", ferry_rate,
                copy_rate);
  rows.push_back({"frame rate / memcpy rate", ferry_rate / copy_rate, 1.0, 0.95, true, "", note});

  // What one CUDA launch per frame would buy (issue 12): the frame's copy and
  // ferry's kernel (ferry_transform_apply on the copied bytes) as two calls on
  // the engine's stream, then the same captured once as a CUDA graph and
  // replayed: one cudaGraphLaunch a frame.
  ferry_source on_device = src;
  on_device.data = copy_dst;
  graph_rows(rows, "frame", engine, o.frames, copy_p50, [&] {
    return cudaMemcpyAsync(copy_dst, frame, frame_bytes, cudaMemcpyHostToDevice, engine) == cudaSuccess &&
           ferry_transform_apply(ctx, &on_device, &t, &out, engine) == FERRY_OK;
  });

  // One 224x224x3 image, pinned, to normalized f32 NCHW in ferry's output: submit -> wait.
  ferry_source one = src;
  one.h = 224, one.w = 224, one.c = 3, one.bytes = 224 * 224 * 3;
  ferry_transform plain;
  ferry_transform_init(&plain, sizeof plain);
  auto copy_image = [&] {
    check_cuda(cudaMemcpyAsync(copy_dst, frame, one.bytes, cudaMemcpyHostToDevice, engine), "cudaMemcpyAsync");
  };
  // Issue 12's row: submit to wait, as ferry-bench's latency row; the
  // release (no GPU work: the batch has ended) is timed apart, after it.
  const auto [image_copy_p50, image_copy_p99] = latency(engine, o.frames, copy_image);
  std::vector<double> image_us, submit_us, wait_us, release_us;
  for (int i = 0; i < o.frames + 20; ++i) {
    ferry_batch_t b = nullptr;
    const auto start = std::chrono::steady_clock::now();
    check(ferry_batch_submit(&b, ctx, &one, &plain, nullptr, nullptr), "ferry_batch_submit");
    const double submitted = us_since(start);
    auto t = std::chrono::steady_clock::now();
    check(ferry_batch_wait(b), "ferry_batch_wait");
    const double waited = us_since(t), end_to_end = us_since(start);
    t = std::chrono::steady_clock::now();
    check(ferry_batch_release(b), "ferry_batch_release");
    if (i < 20) continue;  // warm-up, as latency()
    release_us.push_back(us_since(t));
    submit_us.push_back(submitted);
    wait_us.push_back(waited);
    image_us.push_back(end_to_end);
  }
  const double image_p50 = percentile(image_us, 0.5), image_p99 = percentile(image_us, 0.99);
  std::snprintf(note, sizeof note,
                "us, p50, submit -> wait; p99 ferry %.1f, memcpy %.1f; %+.1f us over the memcpy (target <= +12); "
                "calls p50: submit %.1f, wait %.1f, then release %.1f",
                image_p99, image_copy_p99, image_p50 - image_copy_p50, percentile(submit_us, 0.5),
                percentile(wait_us, 0.5), percentile(release_us, 0.5));
  rows.push_back({"one image latency (224x224x3 -> f32 NCHW)", image_p50, image_copy_p50, image_copy_p50 + 12, false,
                  "us", note});
  ferry_source one_on_device = one;
  one_on_device.data = copy_dst;
  ferry_tensor_info image_info;
  ferry_tensor_info_init(&image_info, sizeof image_info);
  check(ferry_transform_describe_output(&image_info, &one, &plain), "ferry_transform_describe_output");
  ferry_output image_out;
  ferry_output_init(&image_out, sizeof image_out);
  image_out.data = input_tensor;  // large enough: the frame's output is larger
  image_out.bytes = image_info.bytes;
  graph_rows(rows, "one image", engine, o.frames, image_copy_p50, [&] {
    return cudaMemcpyAsync(copy_dst, frame, one.bytes, cudaMemcpyHostToDevice, engine) == cudaSuccess &&
           ferry_transform_apply(ctx, &one_on_device, &plain, &image_out, engine) == FERRY_OK;
  });

  cudaDeviceProp prop{};
  int device = 0;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&prop, device);
  std::printf("ferry_bench_frame on %s: %dx%d BGRA frame (%.1f MB), %d frames per row; baseline: pinned "
              "cudaMemcpyAsync of the same bytes on the engine's stream, same run\n",
              prop.name, o.width, o.height, frame_bytes / 1e6, o.frames);
  print(rows);
  ferry_memory_free_host(ctx, frame);
  cudaFree(input_tensor);
  cudaFree(copy_dst);
  cudaStreamDestroy(engine);
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
  std::printf("ferry_bench_frame: SKIPPED (no CUDA device or driver): the engine loop needs a GPU\n");
  return 0;
}
