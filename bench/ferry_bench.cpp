// ferry-bench: stages batches through ferry on the GPU (or on the CPU backend
// where there is none) and prints ONE table beside the limit and the naive
// path measured in the same run. See --help.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/bench_baselines.h"
#include "bench/bench_report.h"
#include "ferry/ferry.h"

namespace fb = ferry::bench;

namespace {

struct Options {
  fb::Shape shape;
  std::string dtype = "f32", layout = "nchw", sources = "all", json, device = "auto";
  int iterations = 20, repeats = 5, warmup = 10, latency_iterations = 300, pageable_buffers = 4;
  int streams = 0, staging_threads = 0, in_flight = 0;
  double chunk_mb = 0;
};

[[noreturn]] void usage(int code) {
  std::printf(
      "usage: ferry-bench [options]\n"
      "  --n N --h H --w W --c C     batch shape, uint8 NHWC (default 256 224 224 3)\n"
      "  --dtype f32|f16|bf16|u8     output dtype (default f32, normalized with ImageNet mean/std)\n"
      "  --layout nchw|nhwc          output layout (default nchw)\n"
      "  --source all|pinned|pageable|registered   which ferry rows (default all)\n"
      "  --iterations N --repeats R  batches per timed run, runs (median; default 20, 5)\n"
      "  --warmup N                  untimed batches before each row (default 10: enough to fill the in-flight depth, so the caches reach their steady size)\n"
      "  --device auto|cpu|cuda      (default auto: the GPU if there is one)\n"
      "  --chunk-mb X --streams S --staging-threads T --in-flight B   context options (0 = ferry's default)\n"
      "  --json PATH                 also write the results as JSON\n");
  std::exit(code);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(2);
      return argv[++i];
    };
    if (a == "--help" || a == "-h") usage(0);
    else if (a == "--n") o.shape.n = std::stoll(next());
    else if (a == "--h") o.shape.h = std::stoll(next());
    else if (a == "--w") o.shape.w = std::stoll(next());
    else if (a == "--c") o.shape.c = std::stoll(next());
    else if (a == "--dtype") o.dtype = next();
    else if (a == "--layout") o.layout = next();
    else if (a == "--source") o.sources = next();
    else if (a == "--iterations") o.iterations = std::stoi(next());
    else if (a == "--repeats") o.repeats = std::stoi(next());
    else if (a == "--warmup") o.warmup = std::stoi(next());
    else if (a == "--device") o.device = next();
    else if (a == "--chunk-mb") o.chunk_mb = std::stod(next());
    else if (a == "--streams") o.streams = std::stoi(next());
    else if (a == "--staging-threads") o.staging_threads = std::stoi(next());
    else if (a == "--in-flight") o.in_flight = std::stoi(next());
    else if (a == "--json") o.json = next();
    else {
      std::fprintf(stderr, "ferry-bench: unknown option %s\n", a.c_str());
      usage(2);
    }
  }
  if (o.iterations < 1 || o.repeats < 1 || o.shape.n < 1) usage(2);
  return o;
}

void check(ferry_status st, const char* what) {
  if (st != FERRY_OK)
    throw std::runtime_error(std::string(what) + ": " + ferry_status_string(st) + ": " + ferry_last_error());
}

ferry_transform make_transform(const Options& o) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  if (o.dtype == "f32") t.out_dtype = FERRY_DTYPE_FLOAT32;
  else if (o.dtype == "f16") t.out_dtype = FERRY_DTYPE_FLOAT16;
  else if (o.dtype == "bf16") t.out_dtype = FERRY_DTYPE_BFLOAT16;
  else if (o.dtype == "u8") t.out_dtype = FERRY_DTYPE_UINT8;
  else usage(2);
  t.out_layout = o.layout == "nhwc" ? FERRY_LAYOUT_NHWC : FERRY_LAYOUT_NCHW;
  if (t.out_dtype != FERRY_DTYPE_UINT8) {
    const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
    for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  }
  return t;
}

ferry_source make_source(const fb::Shape& s, const void* data) {
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.data = data;
  src.bytes = s.bytes();
  src.n = s.n, src.h = s.h, src.w = s.w, src.c = s.c;
  return src;
}

// Progress on stderr: a percentage redrawn in place on a terminal, one line per row in a log.
void progress(const std::string& what, int step, int steps) {
  static const bool tty = isatty(2) != 0;
  if (tty) {
    std::fprintf(stderr, "\r  %-44s %3d%%", what.c_str(), steps ? 100 * step / steps : 100);
    if (step == steps) std::fprintf(stderr, "\n");
  } else if (step == 0) {
    std::fprintf(stderr, "  %s ...\n", what.c_str());
  }
  std::fflush(stderr);
}

struct Bench {
  Options opt;
  std::unique_ptr<fb::Baselines> base;
  ferry_context_t ctx = nullptr;
  ferry_transform transform{};
  fb::Meta meta;
  std::vector<fb::Row> rows;
  double limit_gbps = 0;

  void fill_rates(fb::Row& r, std::int64_t images, std::size_t bytes) const {
    r.images_per_s = images / (r.ms / 1e3);
    r.gbps = static_cast<double>(bytes) / (r.ms / 1e3) / 1e9;
    r.ratio = limit_gbps > 0 ? r.gbps / limit_gbps : 0;
  }

  void add_counters(fb::Row& r) {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    check(ferry_context_stats(&s, ctx), "ferry_context_stats");
    r.mallocs = static_cast<long long>(s.cuda_malloc_calls);
    r.host_allocs = static_cast<long long>(s.cuda_host_alloc_calls);
    r.host_registers = static_cast<long long>(s.cuda_host_register_calls);
    r.pinned_peak_mb = static_cast<double>(s.pinned_peak_bytes) / 1e6;
    const double batches = s.batches_completed ? static_cast<double>(s.batches_completed) : 1.0;
    char text[256];
    std::snprintf(text, sizeof text,
                  "steady state: cudaMalloc %llu, cudaHostAlloc %llu, cudaHostRegister %llu, pinned peak %.0f MB; "
                  "per batch: staging %.2f ms (thread time), H2D %.2f ms, convert %.2f ms",
                  static_cast<unsigned long long>(s.cuda_malloc_calls),
                  static_cast<unsigned long long>(s.cuda_host_alloc_calls),
                  static_cast<unsigned long long>(s.cuda_host_register_calls), r.pinned_peak_mb,
                  s.staging_ns / batches / 1e6, s.h2d_ns / batches / 1e6, s.convert_ns / batches / 1e6);
    r.counters = text;
  }

  // One ferry row: batches from `sources` (rotated) with `policy`, pipelined
  // with up to the context's in-flight bound, timed per run.
  void ferry_row(const std::string& name, const std::string& note, const std::vector<const std::uint8_t*>& sources,
                 ferry_source_policy policy) {
    ferry_submit_options so;
    ferry_submit_options_init(&so, sizeof so);
    so.source_policy = policy;
    std::deque<ferry_batch_t> in_flight;
    std::size_t next = 0;
    auto submit = [&](bool timed) {
      const ferry_source src = make_source(opt.shape, sources[next++ % sources.size()]);
      ferry_batch_t b = nullptr;
      check(ferry_batch_submit(&b, ctx, &src, &transform, nullptr, &so), "ferry_batch_submit");
      if (timed && base->is_gpu()) check(ferry_batch_stream_wait(b, base->timing_stream()), "ferry_batch_stream_wait");
      in_flight.push_back(b);
      if (in_flight.size() > 4) {
        check(ferry_batch_wait(in_flight.front()), "ferry_batch_wait");
        check(ferry_batch_release(in_flight.front()), "ferry_batch_release");
        in_flight.pop_front();
      }
    };
    auto drain = [&] {
      for (ferry_batch_t b : in_flight) {
        check(ferry_batch_wait(b), "ferry_batch_wait");
        check(ferry_batch_release(b), "ferry_batch_release");
      }
      in_flight.clear();
    };
    const int steps = opt.repeats + 1;
    progress(name, 0, steps);
    for (int i = 0; i < opt.warmup + static_cast<int>(sources.size()); ++i) submit(false);
    drain();
    check(ferry_context_reset_stats(ctx), "ferry_context_reset_stats");
    progress(name, 1, steps);
    std::vector<double> runs;
    for (int r = 0; r < opt.repeats; ++r) {
      base->timer_start();
      for (int i = 0; i < opt.iterations; ++i) submit(true);
      if (!base->is_gpu()) drain();
      runs.push_back(base->timer_stop_ms() / opt.iterations);
      drain();
      progress(name, r + 2, steps);
    }
    fb::Row row{name, note};
    row.ms = fb::median(runs);
    fill_rates(row, opt.shape.n, opt.shape.bytes());
    add_counters(row);
    rows.push_back(row);
  }

  void latency_row(const std::uint8_t* pinned) {
    fb::Shape one = opt.shape;
    one.n = 1;
    const double copy_us = base->copy_latency_us(pinned, one.bytes(), opt.latency_iterations);
    const ferry_source src = make_source(one, pinned);
    std::vector<double> us;
    for (int i = 0; i < opt.latency_iterations + 20; ++i) {
      const auto t = std::chrono::steady_clock::now();
      ferry_batch_t b = nullptr;
      check(ferry_batch_submit(&b, ctx, &src, &transform, nullptr, nullptr), "ferry_batch_submit");
      check(ferry_batch_wait(b), "ferry_batch_wait");
      const double elapsed = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count();
      check(ferry_batch_release(b), "ferry_batch_release");
      if (i >= 20) us.push_back(elapsed);  // the first ones warm the caches up
    }
    const double ferry_us = fb::median(us);
    fb::Row row{"ferry, 1 image end to end (pinned)"};
    row.ms = ferry_us / 1e3;
    row.images_per_s = 1e6 / ferry_us;
    row.gbps = static_cast<double>(one.bytes()) / (ferry_us / 1e6) / 1e9;
    row.ratio = copy_us / ferry_us;
    char note[160];
    std::snprintf(note, sizeof note, "submit->wait %.1f us; pinned %s of the bytes %.1f us; +%.1f us (target <= 20)",
                  ferry_us, base->is_gpu() ? "cudaMemcpy" : "memcpy", copy_us, ferry_us - copy_us);
    row.note = note;
    rows.push_back(row);
  }
};

ferry_device_kind device_kind_of(const std::string& d) {
  if (d == "cpu") return FERRY_DEVICE_CPU;
  if (d == "cuda") return FERRY_DEVICE_CUDA;
  return FERRY_DEVICE_AUTO;
}

}  // namespace

int main(int argc, char** argv) try {
  Bench b;
  b.opt = parse(argc, argv);
  const Options& o = b.opt;
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = device_kind_of(o.device);
  if (o.streams > 0) co.stream_count = o.streams;
  if (o.staging_threads > 0) co.staging_threads = o.staging_threads;
  if (o.in_flight > 0) co.max_batches_in_flight = o.in_flight;
  if (o.chunk_mb > 0) co.chunk_bytes = static_cast<std::uint64_t>(o.chunk_mb * (1 << 20));
  check(ferry_context_create(&b.ctx, &co), "ferry_context_create");
  ferry_device_kind kind = FERRY_DEVICE_CPU;
  int index = -1;
  check(ferry_context_device(&kind, &index, b.ctx), "ferry_context_device");
#if FERRY_HAVE_CUDA
  b.base = kind == FERRY_DEVICE_CUDA ? fb::make_cuda_baselines(index) : fb::make_cpu_baselines();
#else
  b.base = fb::make_cpu_baselines();
#endif
  b.transform = make_transform(o);
  const std::size_t bytes = o.shape.bytes();
  b.meta.device = b.base->device_name();
  b.meta.backend = kind == FERRY_DEVICE_CUDA ? "CUDA" : "CPU";
  b.meta.shape = std::to_string(o.shape.n) + "x" + std::to_string(o.shape.h) + "x" + std::to_string(o.shape.w) +
                 "x" + std::to_string(o.shape.c);
  b.meta.dtype = o.dtype;
  b.meta.layout = o.layout;
  b.meta.input_bytes = static_cast<long long>(bytes);
  b.meta.iterations = o.iterations;
  b.meta.repeats = o.repeats;
  b.meta.pinned_cap_mb = static_cast<double>(co.pinned_cache_bytes) / 1e6;
  std::fprintf(stderr, "ferry-bench: %s, %s backend\n", b.meta.device.c_str(), b.meta.backend.c_str());

  void* pinned_raw = nullptr;
  check(ferry_host_alloc(&pinned_raw, b.ctx, bytes), "ferry_host_alloc");
  auto* pinned = static_cast<std::uint8_t*>(pinned_raw);
  for (std::size_t i = 0; i < bytes; ++i) pinned[i] = static_cast<std::uint8_t>(i * 131 + (i >> 11));
  std::vector<std::vector<std::uint8_t>> pageable(static_cast<std::size_t>(o.pageable_buffers),
                                                  std::vector<std::uint8_t>(pinned, pinned + bytes));
  std::vector<const std::uint8_t*> pageable_ptrs;
  for (auto& v : pageable) pageable_ptrs.push_back(v.data());

  progress("limit", 0, 1);
  fb::Row limit{b.base->is_gpu() ? "limit: cudaMemcpy uint8, pinned" : "limit: threaded memcpy (CPU backend)",
                b.base->is_gpu() ? "H2D of the same uint8 bytes, CUDA events" : "the same bytes, every hardware thread"};
  limit.ms = b.base->limit_ms(pinned, bytes, o.iterations, o.repeats);
  b.limit_gbps = static_cast<double>(bytes) / (limit.ms / 1e3) / 1e9;
  b.fill_rates(limit, o.shape.n, bytes);
  b.rows.push_back(limit);
  progress("limit", 1, 1);

  progress("naive", 0, 1);
  fb::Row naive{"naive: CPU fp32 normalize + copy", "one thread, float32 NCHW, then the copy of the floats"};
  naive.ms = b.base->naive_ms(pageable_ptrs[0], o.shape, std::max(1, o.iterations / 4), std::min(3, o.repeats));
  b.fill_rates(naive, o.shape.n, bytes);
  b.rows.push_back(naive);
  progress("naive", 1, 1);

  const bool all = o.sources == "all";
  const bool gpu = b.base->is_gpu();
  if (all || o.sources == "pinned")
    b.ferry_row("ferry, pinned source",
                gpu ? "ferry_host_alloc'd source, DMA straight from it" : "CPU backend: converted from the source",
                {pinned},
                FERRY_SOURCE_AUTO);
  if (all || o.sources == "pageable")
    b.ferry_row("ferry, pageable fresh (staged)",
                std::to_string(o.pageable_buffers) +
                    (gpu ? " unregistered pageable buffers, gathered by the staging threads"
                         : " pageable buffers; CPU backend: converted from the source"),
                pageable_ptrs, FERRY_SOURCE_AUTO);
  if (all || o.sources == "registered") {
    b.ferry_row("ferry, pageable reused (registered)",
                gpu ? "the same buffers with FERRY_SOURCE_REGISTER: registered once, then DMA"
                    : "FERRY_SOURCE_REGISTER; CPU backend: only recorded, converted from the source",
                pageable_ptrs,
                FERRY_SOURCE_REGISTER);
    for (const std::uint8_t* p : pageable_ptrs) ferry_host_unregister(b.ctx, p);  // before the buffers are freed
  }
  progress("latency", 0, 1);
  b.latency_row(pinned);
  progress("latency", 1, 1);

  fb::print_table(b.meta, b.rows);
  if (!o.json.empty() && !fb::write_json(o.json, b.meta, b.rows)) {
    std::fprintf(stderr, "ferry-bench: cannot write %s\n", o.json.c_str());
    return 1;
  }
  check(ferry_host_free(b.ctx, pinned), "ferry_host_free");
  check(ferry_context_destroy(b.ctx), "ferry_context_destroy");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "\nferry-bench: %s\n", e.what());
  return 1;
}
