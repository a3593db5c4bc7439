// ferry_bench_formats: camera and video frames as they come (issue 15's rows).
//  1. A 1920x1080 NV12 frame in ferry's pinned memory to 640x640 letterboxed
//     RGB f16 NCHW, normalized, into the engine's buffer on the engine's
//     stream: p50 latency against a pinned cudaMemcpyAsync of the NV12 bytes,
//     and back-to-back frames against that memcpy's rate. Beside it, the same
//     frame sent as RGB (3 bytes a pixel) and converted the same way.
//  2. A batch of 64 1080p NV12 frames from pageable memory to 224x224 f16
//     NCHW: NV12 bytes per second against the bus limit (a pinned memcpy of
//     the same bytes, same run); beside it the host's staging ceiling for
//     those bytes (staging_ceiling.h), and the same frames from pinned memory;
//     and from pageable memory to the detector's 640 letterbox (reported: its
//     taps read rows 3r + 1 only, so 0.44 of the frames is staged).
//  3. The colour conversion alone on device frames (ferry_transform_apply,
//     NV12 -> uint8 RGB NHWC): bytes read plus written per second against a
//     device-to-device copy of the same bytes; the same for I420, YUYV
//     (each with nearest and linear chroma), NV12 with linear chroma and
//     Bayer RGGB, against the same 0.7; and the NV12 decode kernel alone.
//
//   ferry_bench_formats [--frames 200] [--batch 64] [--chunk-mib 0]
// Without a CUDA device it says so and exits 0.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/stage_times.h"
#include "ferry/ferry.h"

#if FERRY_HAVE_CUDA
#include "bench/gpu_timing.h"
#include "bench/staging_ceiling.h"
#include "core/context_options.h"
#include "core/convert/cuda/frame_decode_kernel.h"
#endif

namespace {

struct Options {
  int frames = 200, batch = 64, chunk_mib = 0;  // chunk_mib: the batches' chunk_bytes (0: ferry's choice)
};

[[noreturn]] void usage(int code) {
  std::fprintf(stderr, "usage: ferry_bench_formats [--frames N] [--batch N] [--chunk-mib N]\n");
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
    else if (a == "--batch") o.batch = next();
    else if (a == "--chunk-mib") o.chunk_mib = next();
    else if (a == "-h" || a == "--help") usage(0);
    else usage(2);
  }
  if (o.frames < 10 || o.batch < 1 || o.chunk_mib < 0) usage(2);
  return o;
}

}  // namespace

#if FERRY_HAVE_CUDA
namespace {

using ferry::bench::burst_ms;
using ferry::bench::check_cuda;
using ferry::bench::latency;
using ferry::bench::percentile;
using ferry::bench::rate;
using ferry::bench::us_since;
constexpr auto check = ferry::bench::check_ferry;

constexpr int kWidth = 1920, kHeight = 1080;
constexpr std::size_t kNv12Bytes = std::size_t{kWidth} * kHeight * 3 / 2, kRgbBytes = std::size_t{kWidth} * kHeight * 3;

void fill_random(void* p, std::size_t bytes) {
  auto* b = static_cast<std::uint8_t*>(p);
  std::uint32_t x = 12345;
  for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
}

ferry_source frame_source(const void* data, ferry_pixel_format format, std::int64_t n, std::size_t frame_bytes) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = data, s.bytes = frame_bytes * static_cast<std::size_t>(n);
  s.n = n, s.h = kHeight, s.w = kWidth;
  if (format == FERRY_FORMAT_CHANNELS) s.c = 3;
  s.format = format;
  s.color_matrix = FERRY_COLOR_BT709;  // HD video
  return s;
}

ferry_transform normalized_f16(std::int64_t size, ferry_resize_mode mode) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.resize_w = t.resize_h = size;
  t.resize_mode = mode;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k], t.letterbox_value[k] = 0.0f;
  return t;
}

using ferry::bench::per_batch;
using ferry::bench::StageTimes;

ferry_stats stats_of(ferry_context_t ctx) {
  ferry_stats s;
  ferry_stats_init(&s, sizeof s);
  check(ferry_stats_get(&s, ctx), "ferry_stats_get");
  return s;
}

struct Row {
  std::string name;
  double value, target;
  bool higher_is_better;
  std::string note;
};

int run(const Options& o) {
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = FERRY_DEVICE_CUDA;
  ferry_context_t ctx = nullptr;
  check(ferry_context_create(&ctx, &co), "ferry_context_create");
  cudaStream_t engine = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&engine, cudaStreamNonBlocking), "cudaStreamCreate");
  std::vector<Row> rows;
  char note[512];

  // 1. One frame at a time, engine style.
  void* nv12 = nullptr;
  void* rgb = nullptr;
  check(ferry_memory_alloc_host(&nv12, ctx, kNv12Bytes), "ferry_memory_alloc_host");
  check(ferry_memory_alloc_host(&rgb, ctx, kRgbBytes), "ferry_memory_alloc_host");
  fill_random(nv12, kNv12Bytes);
  fill_random(rgb, kRgbBytes);
  const ferry_transform detector = normalized_f16(640, FERRY_RESIZE_LETTERBOX);
  const ferry_source nv12_src = frame_source(nv12, FERRY_FORMAT_NV12, 1, kNv12Bytes);
  const ferry_source rgb_src = frame_source(rgb, FERRY_FORMAT_CHANNELS, 1, kRgbBytes);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  check(ferry_transform_describe_output(&info, &nv12_src, &detector), "ferry_transform_describe_output");
  void* input_tensor = nullptr;
  void* copy_dst = nullptr;
  check_cuda(cudaMalloc(&input_tensor, info.bytes), "cudaMalloc");
  check_cuda(cudaMalloc(&copy_dst, kRgbBytes * static_cast<std::size_t>(o.batch)), "cudaMalloc");
  ferry_output out;
  ferry_output_init(&out, sizeof out);
  out.data = input_tensor, out.bytes = info.bytes;
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.handoff_stream = engine;
  so.has_handoff_stream = 1;
  std::vector<double> submit_us;  // the host's time in ferry_batch_submit (the copy and kernel queued within it)
  auto submit_to_engine = [&](const ferry_source& src) {
    ferry_batch_t b = nullptr;
    const auto t = std::chrono::steady_clock::now();
    check(ferry_batch_submit(&b, ctx, &src, &detector, &out, &so), "ferry_batch_submit");
    submit_us.push_back(us_since(t));
    check(ferry_batch_release(b), "ferry_batch_release");  // stream-ordered: the engine's stream holds the result
  };
  auto memcpy_of = [&](const void* src, std::size_t bytes) {
    return [=] { check_cuda(cudaMemcpyAsync(copy_dst, src, bytes, cudaMemcpyHostToDevice, engine), "cudaMemcpyAsync"); };
  };
  const auto [copy_p50, copy_p99] = latency(engine, o.frames, memcpy_of(nv12, kNv12Bytes));
  const ferry_stats before_frames = stats_of(ctx);
  submit_us.clear();
  const auto [nv12_p50, nv12_p99] = latency(engine, o.frames, [&] { submit_to_engine(nv12_src); });
  const double nv12_submit_us = percentile(submit_us, 0.5);
  const StageTimes frame_times = per_batch(before_frames, stats_of(ctx));
  const auto [rgb_copy_p50, rgb_copy_p99] = latency(engine, o.frames, memcpy_of(rgb, kRgbBytes));
  const auto [rgb_p50, rgb_p99] = latency(engine, o.frames, [&] { submit_to_engine(rgb_src); });
  std::snprintf(note, sizeof note,
                "us p50 (p99 %.1f); NV12 memcpy p50 %.1f: %+.1f us over it (target <= +20); host in submit %.1f us "
                "(p50); per frame: %s; the frame as RGB: %.1f us (memcpy of RGB %.1f)",
                nv12_p99, copy_p50, nv12_p50 - copy_p50, nv12_submit_us, frame_times.gpu_text().c_str(), rgb_p50,
                rgb_copy_p50);
  rows.push_back({"NV12 1080p -> 640 letterbox f16 NCHW, latency", nv12_p50, copy_p50 + 20, false, note});
  const double copy_rate = rate(engine, o.frames, memcpy_of(nv12, kNv12Bytes));
  const double nv12_rate = rate(engine, o.frames, [&] { submit_to_engine(nv12_src); });
  const double rgb_rate = rate(engine, o.frames, [&] { submit_to_engine(rgb_src); });
  std::snprintf(note, sizeof note, "frames/s: NV12 %.0f, its memcpy %.0f (target >= 0.95); the frame as RGB %.0f",
                nv12_rate, copy_rate, rgb_rate);
  rows.push_back({"NV12 frames back to back / memcpy rate", nv12_rate / copy_rate, 0.95, true, note});
  (void)copy_p99, (void)rgb_copy_p99, (void)rgb_p99;

  // 2. A batch of NV12 frames from pageable memory.
  const std::size_t batch_bytes = kNv12Bytes * static_cast<std::size_t>(o.batch);
  std::vector<std::uint8_t> pageable(batch_bytes);
  fill_random(pageable.data(), batch_bytes);
  void* pinned_batch = nullptr;
  check(ferry_memory_alloc_host(&pinned_batch, ctx, batch_bytes), "ferry_memory_alloc_host");
  const double bus_ms = burst_ms(engine, 5, memcpy_of(pinned_batch, batch_bytes));
  const ferry_transform train = normalized_f16(224, FERRY_RESIZE_STRETCH);
  std::memcpy(pinned_batch, pageable.data(), batch_bytes);
  ferry_submit_options batch_options;
  ferry_submit_options_init(&batch_options, sizeof batch_options);
  batch_options.chunk_bytes = static_cast<std::uint64_t>(o.chunk_mib) << 20;
  for (const int run : {0, 1, 2}) {  // pageable, pinned, pageable to the detector's letterbox
    const bool pinned = run == 1, letterbox = run == 2;
    const ferry_source batch_src =
        frame_source(pinned ? pinned_batch : pageable.data(), FERRY_FORMAT_NV12, o.batch, kNv12Bytes);
    std::vector<double> batch_ms;
    ferry_stats before_batches{};
    for (int i = 0; i < 13; ++i) {
      if (i == 3) before_batches = stats_of(ctx);
      const auto t = std::chrono::steady_clock::now();
      ferry_batch_t b = nullptr;
      check(ferry_batch_submit(&b, ctx, &batch_src, letterbox ? &detector : &train, nullptr, &batch_options),
            "ferry_batch_submit");
      check(ferry_batch_wait(b), "ferry_batch_wait");
      check(ferry_batch_release(b), "ferry_batch_release");
      if (i >= 3) batch_ms.push_back(us_since(t) / 1e3);
    }
    const double ferry_batch_ms = percentile(batch_ms, 0.5);
    const StageTimes batch_times = per_batch(before_batches, stats_of(ctx));
    std::snprintf(note, sizeof note,
                  "%d NV12 frames (%.0f MB): %.2f ms (p50 of 10); pinned memcpy %.2f ms (%.1f GB/s); per batch: H2D "
                  "%.2f ms, kernels %.2f ms (GPU, summed over chunks), staging %.2f ms (summed over threads)",
                  o.batch, batch_bytes / 1e6, ferry_batch_ms, bus_ms, batch_bytes / bus_ms / 1e6,
                  batch_times.h2d_us / 1e3, batch_times.convert_us / 1e3, batch_times.staging_us / 1e3);
    if (letterbox) {
      rows.push_back(
          {"NV12 batch pageable -> 640 letterbox f16 NCHW / bus limit", bus_ms / ferry_batch_ms, 0, true, note});
      continue;
    }
    rows.push_back({pinned ? "NV12 batch pinned -> 224 f16 NCHW / bus limit" : "NV12 batch pageable -> 224 f16 NCHW / bus limit",
                    bus_ms / ferry_batch_ms, pinned ? 0.95 : 0.9, true, note});
    if (pinned) continue;
    // What this host's memory allows from pageable memory, nothing of ferry's in it (staging_ceiling.h).
    const int threads = ferry::core::staging_thread_count(0);  // the context's: its option is 0
    const double ceiling_ms =
        1e3 * ferry::bench::staging_ceiling_seconds({{pageable.data(), batch_bytes}}, threads, 16 << 20, 10, engine);
    std::snprintf(note, sizeof note,
                  "the same bytes through a bare pipeline of %d threads (16 MiB chunks, no conversion): %.2f ms; "
                  "ferry's pageable batch is %.3f of it",
                  threads, ceiling_ms, ceiling_ms / ferry_batch_ms);
    rows.push_back({"  host's staging ceiling for those bytes / bus limit", bus_ms / ceiling_ms, 0, true, note});
  }

  // 3. The colour conversion on device frames: NV12 -> uint8 RGB NHWC.
  void* device_frames = nullptr;
  check_cuda(cudaMalloc(&device_frames, batch_bytes), "cudaMalloc");
  check_cuda(cudaMemcpy(device_frames, pageable.data(), batch_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  ferry_source device_src = frame_source(device_frames, FERRY_FORMAT_NV12, o.batch, kNv12Bytes);
  ferry_transform to_rgb;
  ferry_transform_init(&to_rgb, sizeof to_rgb);
  to_rgb.out_dtype = FERRY_DTYPE_UINT8;
  to_rgb.out_layout = FERRY_LAYOUT_NHWC;
  ferry_output rgb_out;
  ferry_output_init(&rgb_out, sizeof rgb_out);
  rgb_out.data = copy_dst, rgb_out.bytes = kRgbBytes * static_cast<std::size_t>(o.batch);
  const double colour_ms = burst_ms(engine, 5, [&] {
    check(ferry_transform_apply(ctx, &device_src, &to_rgb, &rgb_out, engine), "ferry_transform_apply");
  });
  const std::size_t moved = batch_bytes + rgb_out.bytes;  // read + written
  void* d2d = nullptr;  // large enough for the YUYV row below too (2 bytes a pixel)
  const std::size_t yuyv_bytes = 2 * std::size_t{kWidth} * kHeight * static_cast<std::size_t>(o.batch);
  check_cuda(cudaMalloc(&d2d, (yuyv_bytes + rgb_out.bytes) / 2 + 1), "cudaMalloc");
  const double d2d_ms = burst_ms(engine, 5, [&] {
    check_cuda(cudaMemcpyAsync(d2d, copy_dst, moved / 2, cudaMemcpyDeviceToDevice, engine), "cudaMemcpyAsync");
  });
  std::snprintf(note, sizeof note, "%.2f ms for %.0f MB read + written (%.0f GB/s); D2D copy of the same bytes %.2f ms",
                colour_ms, moved / 1e6, moved / colour_ms / 1e6, d2d_ms);
  rows.push_back({"NV12 -> RGB u8 NHWC through ferry_transform_apply / D2D", d2d_ms / colour_ms, 0.7, true, note});

  // The other formats' decoders, the same way (reported): bytes of each format's frames, RGB out.
  {
    struct Other {
      const char* name;
      ferry_pixel_format format;
      double bytes_a_pixel;
      ferry_chroma_filter chroma;
    };
    const Other others[] = {{"I420", FERRY_FORMAT_I420, 1.5, FERRY_CHROMA_NEAREST},
                            {"NV12, linear chroma", FERRY_FORMAT_NV12, 1.5, FERRY_CHROMA_LINEAR},
                            {"I420, linear chroma", FERRY_FORMAT_I420, 1.5, FERRY_CHROMA_LINEAR},
                            {"YUYV", FERRY_FORMAT_YUYV, 2.0, FERRY_CHROMA_NEAREST},
                            {"YUYV, linear chroma", FERRY_FORMAT_YUYV, 2.0, FERRY_CHROMA_LINEAR},
                            {"Bayer RGGB", FERRY_FORMAT_BAYER_RGGB, 1.0, FERRY_CHROMA_NEAREST}};
    const auto frame_pixels = static_cast<std::size_t>(kWidth) * kHeight;
    void* frames = nullptr;
    const std::size_t most = yuyv_bytes;
    check_cuda(cudaMalloc(&frames, most), "cudaMalloc");
    check_cuda(cudaMemcpy(frames, pageable.data(), batch_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check_cuda(cudaMemcpy(static_cast<std::uint8_t*>(frames) + batch_bytes, pageable.data(), most - batch_bytes,
                          cudaMemcpyHostToDevice),
               "cudaMemcpy");
    for (const Other& f : others) {
      const auto frame_bytes = static_cast<std::size_t>(f.bytes_a_pixel * static_cast<double>(frame_pixels));
      ferry_source src = frame_source(frames, f.format, o.batch, frame_bytes);
      src.chroma_filter = f.chroma;
      const double ms = burst_ms(engine, 5, [&] {
        check(ferry_transform_apply(ctx, &src, &to_rgb, &rgb_out, engine), "ferry_transform_apply");
      });
      const std::size_t bytes = frame_bytes * static_cast<std::size_t>(o.batch) + rgb_out.bytes;
      const double copy_ms = burst_ms(engine, 5, [&] {
        check_cuda(cudaMemcpyAsync(d2d, copy_dst, bytes / 2, cudaMemcpyDeviceToDevice, engine), "cudaMemcpyAsync");
      });
      std::snprintf(note, sizeof note, "%.3f ms for %.0f MB read + written; D2D copy of the same bytes %.3f ms", ms,
                    bytes / 1e6, copy_ms);
      rows.push_back({std::string("  ") + f.name + " -> RGB u8 through ferry_transform_apply / D2D", copy_ms / ms, 0.7,
                      true, note});
    }
    cudaFree(frames);
  }

  // The colour kernel alone: ferry's decode launch over the same frames into RGB (as the converter runs it).
  {
    namespace cc = ferry::core::cuda_convert;
    std::vector<cc::DecodeFrameRow> table(static_cast<std::size_t>(o.batch));
    for (int i = 0; i < o.batch; ++i) {
      ferry::core::frame::FrameRef& f = table[static_cast<std::size_t>(i)].frame;
      f.base = static_cast<const std::uint8_t*>(device_frames) + static_cast<std::size_t>(i) * kNv12Bytes;
      f.offset[1] = std::int64_t{kWidth} * kHeight;
      f.pitch[0] = f.pitch[1] = kWidth;
      f.h = kHeight, f.w = kWidth;
      table[static_cast<std::size_t>(i)].rgb = static_cast<std::uint8_t*>(copy_dst) + static_cast<std::size_t>(i) * kRgbBytes;
    }
    void* on_device = nullptr;
    check_cuda(cudaMalloc(&on_device, table.size() * sizeof table[0]), "cudaMalloc");
    check_cuda(cudaMemcpy(on_device, table.data(), table.size() * sizeof table[0], cudaMemcpyHostToDevice), "cudaMemcpy");
    cc::DecodeFrames frames;
    frames.table = static_cast<const cc::DecodeFrameRow*>(on_device);
    frames.count = o.batch;
    frames.aligned = std::all_of(table.begin(), table.end(), [](const cc::DecodeFrameRow& row) {
      return cc::decodes_in_words(row, ferry::core::PixelFormat::NV12);
    });
    ferry::core::FrameDecode decode;
    decode.format = ferry::core::PixelFormat::NV12;
    decode.color = ferry::core::color_coefficients(ferry::core::ColorMatrix::BT709, ferry::core::ColorRange::Limited);
    const double kernel_ms = burst_ms(engine, 5, [&] { cc::launch_decode_frames(frames, decode, kHeight, kWidth, engine); });
    std::snprintf(note, sizeof note, "%.3f ms for %.0f MB read + written (%.0f GB/s); D2D copy of the same bytes %.3f ms",
                  kernel_ms, moved / 1e6, moved / kernel_ms / 1e6, d2d_ms);
    rows.push_back({"colour kernel alone (NV12 -> RGB u8) / D2D", d2d_ms / kernel_ms, 0.7, true, note});
    cudaFree(on_device);
  }

  cudaDeviceProp prop{};
  int device = 0;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&prop, device);
  std::printf("ferry_bench_formats on %s: 1920x1080 NV12 frames (%.2f MB, RGB %.2f MB), BT.709; baselines from "
              "the same run\n\n%-50s %10s %10s %6s  %s\n",
              prop.name, kNv12Bytes / 1e6, kRgbBytes / 1e6, "row", "ferry", "target", "met", "note");
  for (const Row& r : rows) {
    const bool met = r.higher_is_better ? r.value >= r.target : r.value <= r.target;
    if (r.target == 0)  // a baseline, reported
      std::printf("%-50s %10.3f %10s %6s  %s\n", r.name.c_str(), r.value, "report", "-", r.note.c_str());
    else
      std::printf("%-50s %10.3f %10.3f %6s  %s\n", r.name.c_str(), r.value, r.target, met ? "yes" : "NO",
                  r.note.c_str());
  }
  ferry_memory_free_host(ctx, nv12);
  ferry_memory_free_host(ctx, rgb);
  ferry_memory_free_host(ctx, pinned_batch);
  cudaFree(input_tensor);
  cudaFree(copy_dst);
  cudaFree(device_frames);
  cudaFree(d2d);
  cudaStreamDestroy(engine);
  check(ferry_context_destroy(ctx), "ferry_context_destroy");
  return 0;
}

}  // namespace
#endif

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  (void)o;  // a build without CUDA only says so
#if FERRY_HAVE_CUDA
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return run(o);
#endif
  std::printf("ferry_bench_formats: SKIPPED (no CUDA device or driver): the frame rows need a GPU\n");
  return 0;
}
