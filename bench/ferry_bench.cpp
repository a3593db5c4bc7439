// ferry-bench: stages batches through ferry on the GPU (or on the CPU backend
// where there is none) and prints ONE table beside the limit and the naive
// path measured in the same run, each row against its target (bench_targets.h);
// also JSON and an SVG chart. The wording follows the backend. See --help.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "bench/bench_baselines.h"
#include "bench/bench_chart.h"
#include "bench/bench_report.h"
#include "bench/bench_targets.h"
#include "ferry/ferry.h"

namespace fb = ferry::bench;

namespace {

struct Options {
  fb::Shape shape;
  std::string dtype = "f32", layout = "nchw", sources = "all", json, svg, device = "auto";
  int iterations = 20, repeats = 5, warmup = 10, latency_iterations = 300, pageable_buffers = 4;
  int streams = 0, staging_threads = 0, in_flight = 0, cpu_threads = 0;
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
      "  --cpu-threads T             CPU backend: conversion threads, also the limit memcpy's (0 = cores)\n"
      "  --json PATH                 also write the results as JSON\n"
      "  --svg PATH                  also write a bar chart of each row against the limit (default: beside\n"
      "                              the JSON, PATH.json -> PATH.svg; 'none' for no chart)\n"
      "  --latency-iterations N      one-image submits timed (default 300)\n");
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
    else if (a == "--cpu-threads") o.cpu_threads = std::stoi(next());
    else if (a == "--json") o.json = next();
    else if (a == "--svg") o.svg = next();
    else if (a == "--latency-iterations") o.latency_iterations = std::stoi(next());
    else {
      std::fprintf(stderr, "ferry-bench: unknown option %s\n", a.c_str());
      usage(2);
    }
  }
  if (o.iterations < 1 || o.repeats < 1 || o.shape.n < 1 || o.latency_iterations < 1) usage(2);
  if (o.svg.empty() && !o.json.empty()) {
    const std::size_t dot = o.json.rfind(".json");
    o.svg = (dot != std::string::npos && dot + 5 == o.json.size() ? o.json.substr(0, dot) : o.json) + ".svg";
  }
  if (o.svg == "none") o.svg.clear();
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

// The rows' names and notes, in the terms of the backend the run is on.
struct Wording {
  std::string name, note;
};

Wording wording(const std::string& id, bool gpu, const Options& o, int threads) {
  const std::string buffers = std::to_string(o.pageable_buffers), n = std::to_string(threads);
  if (gpu) {
    if (id == "limit") return {"limit: cudaMemcpy uint8, pinned", "H2D of the same uint8 bytes, CUDA events"};
    if (id == "naive") return {"naive: CPU fp32 normalize + copy", "one thread, float32 NCHW, then the copy of the floats"};
    if (id == "pinned") return {"ferry, pinned source", "ferry_memory_alloc_host'd source, DMA straight from it"};
    if (id == "pageable")
      return {"ferry, pageable fresh (staged)", buffers + " unregistered pageable buffers, gathered by the staging threads"};
    if (id == "registered")
      return {"ferry, pageable reused (registered)",
              "the same buffers with FERRY_SOURCE_REGISTER: registered once, then DMA"};
    return {"ferry, 1 image end to end (pinned)", ""};
  }
  if (id == "limit")
    return {"limit: host memcpy, " + n + " threads",
            "copies (in + out) / 2 bytes: as many as the conversion reads and writes"};
  if (id == "naive")
    return {"naive: fp32 normalize, one thread", "uint8 NHWC -> float32 NCHW, (x/255 - mean)/std per element"};
  if (id == "pinned")
    return {"ferry, ferry_memory_alloc_host source",
            "converted from the source by " + n + " CPU threads into host memory"};
  if (id == "pageable")
    return {"ferry, " + buffers + " malloc'd sources",
            "plain host buffers, rotated; converted straight from them (no staging copy on the CPU)"};
  if (id == "registered")
    return {"ferry, FERRY_SOURCE_REGISTER",
            "the same buffers with the register policy: only recorded on the CPU, converted from them"};
  return {"ferry, 1 image end to end", ""};
}

struct Bench {
  Options opt;
  std::unique_ptr<fb::Baselines> base;
  ferry_context_t ctx = nullptr;
  ferry_transform transform{};
  fb::Meta meta;
  std::vector<fb::Row> rows;
  double limit_gbps = 0;
  bool gpu = false;
  int cpu_threads = 1;

  fb::Row row(const std::string& id) const {
    const Wording w = wording(id, gpu, opt, cpu_threads);
    fb::Row r;
    r.id = id, r.name = w.name, r.note = w.note;
    r.target = fb::row_target(id, gpu);
    return r;
  }

  void fill_rates(fb::Row& r, std::int64_t images, std::size_t bytes) const {
    r.images_per_s = images / (r.ms / 1e3);
    r.gbps = static_cast<double>(bytes) / (r.ms / 1e3) / 1e9;
    r.ratio = limit_gbps > 0 ? r.gbps / limit_gbps : 0;
  }

  // The steady-state counters of a ferry row (reset after its warm-up), in the backend's terms;
  // what issue 5 asks of the steady state goes to r.missed where it is not so.
  void add_counters(fb::Row& r) const {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    check(ferry_stats_get(&s, ctx), "ferry_stats_get");
    const double batches = s.batches_completed ? static_cast<double>(s.batches_completed) : 1.0;
    char text[320];
    if (gpu) {
      r.mallocs = static_cast<long long>(s.cuda_malloc_calls);
      r.host_allocs = static_cast<long long>(s.cuda_host_alloc_calls);
      r.host_registers = static_cast<long long>(s.cuda_host_register_calls);
      r.pinned_peak_mb = static_cast<double>(s.pinned_peak_bytes) / 1e6;
      std::snprintf(text, sizeof text,
                    "steady state: cudaMalloc %lld, cudaHostAlloc %lld, cudaHostRegister %lld, pinned peak %.0f MB; "
                    "per batch: staging %.2f ms (thread time), H2D %.2f ms, convert %.2f ms",
                    r.mallocs, r.host_allocs, r.host_registers, r.pinned_peak_mb, s.staging_ns / batches / 1e6,
                    s.h2d_ns / batches / 1e6, s.convert_ns / batches / 1e6);
      if (r.mallocs + r.host_allocs + r.host_registers > 0) r.missed = "CUDA allocations after warm-up";
      if (r.pinned_peak_mb > meta.pinned_cap_mb) r.missed += std::string(r.missed.empty() ? "" : ", ") + "pinned over the cap";
    } else {
      r.host_new_allocs = static_cast<long long>(s.device_misses + s.pinned_misses);
      r.host_output_peak_mb = static_cast<double>(s.device_peak_bytes) / 1e6;
      r.host_pool_peak_mb = static_cast<double>(s.pinned_peak_bytes) / 1e6;
      std::snprintf(text, sizeof text,
                    "per batch: convert %.2f ms of thread time on %d threads; host memory: outputs peak %.0f MB, "
                    "ferry_memory_alloc_host pool peak %.0f MB, %lld new allocations after warm-up",
                    s.convert_ns / batches / 1e6, cpu_threads, r.host_output_peak_mb, r.host_pool_peak_mb,
                    r.host_new_allocs);
      if (r.host_new_allocs > 0) r.missed = "host allocations after warm-up";
    }
    r.counters = text;
  }

  // One ferry row: batches from `sources` (rotated) with `policy`, pipelined
  // with up to the context's in-flight bound, timed per run.
  void ferry_row(const std::string& id, const std::vector<const std::uint8_t*>& sources, ferry_source_policy policy) {
    fb::Row r = row(id);
    ferry_submit_options so;
    ferry_submit_options_init(&so, sizeof so);
    so.source_policy = policy;
    std::deque<ferry_batch_t> in_flight;
    std::size_t next = 0;
    auto submit = [&](bool timed) {
      const ferry_source src = make_source(opt.shape, sources[next++ % sources.size()]);
      ferry_batch_t b = nullptr;
      check(ferry_batch_submit(&b, ctx, &src, &transform, nullptr, &so), "ferry_batch_submit");
      if (timed && gpu)
        check(ferry_batch_handoff(b, static_cast<ferry_cuda_stream>(base->timing_stream())), "ferry_batch_handoff");
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
    progress(r.name, 0, steps);
    for (int i = 0; i < opt.warmup + static_cast<int>(sources.size()); ++i) submit(false);
    drain();
    check(ferry_stats_reset(ctx), "ferry_stats_reset");
    progress(r.name, 1, steps);
    std::vector<double> runs;
    for (int k = 0; k < opt.repeats; ++k) {
      base->timer_start();
      for (int i = 0; i < opt.iterations; ++i) submit(true);
      if (!gpu) drain();
      runs.push_back(base->timer_stop_ms() / opt.iterations);
      drain();
      progress(r.name, k + 2, steps);
    }
    r.ms = fb::median(runs);
    fill_rates(r, opt.shape.n, opt.shape.bytes());
    add_counters(r);
    fb::judge(r);
    rows.push_back(r);
  }

  void latency_row(const std::uint8_t* pinned) {
    fb::Shape one = opt.shape;
    one.n = 1;
    const double base_us = base->latency_base_us(pinned, one.bytes(), opt.latency_iterations);
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
    fb::Row r = row("latency");
    r.ms = ferry_us / 1e3;
    r.images_per_s = 1e6 / ferry_us;
    r.gbps = static_cast<double>(one.bytes()) / (ferry_us / 1e6) / 1e9;
    r.ratio = base_us / ferry_us;
    r.target = fb::latency_target(base_us, gpu);
    char note[240];
    std::snprintf(note, sizeof note, "submit->wait %.1f us; %s %.1f us; %+.1f us (target <= +%.0f us)", ferry_us,
                  base->latency_base_description().c_str(), base_us, ferry_us - base_us, fb::latency_budget_us(gpu));
    r.note = note;
    fb::judge(r);
    rows.push_back(r);
  }
};

ferry_device_kind device_kind_of(const std::string& d) {
  if (d == "cpu") return FERRY_DEVICE_CPU;
  if (d == "cuda") return FERRY_DEVICE_CUDA;
  return FERRY_DEVICE_AUTO;
}

// The bytes of the packed output of `shape` under `t`.
std::size_t output_bytes(const fb::Shape& shape, const ferry_transform& t) {
  static const std::uint8_t any = 0;  // only described, never read
  const ferry_source probe = make_source(shape, &any);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  check(ferry_transform_describe_output(&info, &probe, &t), "ferry_transform_describe_output");
  return info.bytes;
}

// The CPU backend's one-image base: ferry_transform_apply of one image from `src`, synchronous there.
std::function<void(const std::uint8_t*)> convert_one(const Bench& b) {
  fb::Shape one = b.opt.shape;
  one.n = 1;
  auto out = std::make_shared<std::vector<std::uint8_t>>(output_bytes(one, b.transform));
  return [&b, one, out](const std::uint8_t* src) {
    const ferry_source s = make_source(one, src);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out->data();
    o.bytes = out->size();
    check(ferry_transform_apply(b.ctx, &s, &b.transform, &o, nullptr), "ferry_transform_apply");
  };
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
  if (o.cpu_threads > 0) co.cpu_threads = o.cpu_threads;
  if (o.chunk_mb > 0) co.chunk_bytes = static_cast<std::uint64_t>(o.chunk_mb * (1 << 20));
  check(ferry_context_create(&b.ctx, &co), "ferry_context_create");
  ferry_device_kind kind = FERRY_DEVICE_CPU;
  int index = -1;
  check(ferry_context_get_device(&kind, &index, b.ctx), "ferry_context_get_device");
  b.transform = make_transform(o);
  // The CPU backend converts on cpu_threads threads, 0 meaning one per hardware thread.
  b.cpu_threads = co.cpu_threads > 0 ? co.cpu_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#if FERRY_HAVE_CUDA
  b.base = kind == FERRY_DEVICE_CUDA ? fb::make_cuda_baselines(index) : fb::make_cpu_baselines(b.cpu_threads, convert_one(b));
#else
  b.base = fb::make_cpu_baselines(b.cpu_threads, convert_one(b));
#endif
  b.gpu = b.base->is_gpu();
  const std::size_t bytes = o.shape.bytes();
  b.meta.device = b.base->device_name();
  b.meta.backend = b.gpu ? "CUDA" : "CPU";
  b.meta.shape = std::to_string(o.shape.n) + "x" + std::to_string(o.shape.h) + "x" + std::to_string(o.shape.w) +
                 "x" + std::to_string(o.shape.c);
  b.meta.dtype = o.dtype;
  b.meta.layout = o.layout;
  b.meta.limit = b.base->limit_description();
  b.meta.input_bytes = static_cast<long long>(bytes);
  b.meta.iterations = o.iterations;
  b.meta.repeats = o.repeats;
  b.meta.cpu_threads = b.gpu ? 0 : b.cpu_threads;
  b.meta.pinned_cap_mb = static_cast<double>(co.pinned_cache_bytes) / 1e6;
  if (b.gpu)
    std::fprintf(stderr, "ferry-bench: %s, CUDA backend\n", b.meta.device.c_str());
  else
    std::fprintf(stderr, "ferry-bench: %s, CPU backend, %d conversion threads\n", b.meta.device.c_str(), b.cpu_threads);

  void* pinned_raw = nullptr;
  check(ferry_memory_alloc_host(&pinned_raw, b.ctx, bytes), "ferry_memory_alloc_host");
  auto* pinned = static_cast<std::uint8_t*>(pinned_raw);
  for (std::size_t i = 0; i < bytes; ++i) pinned[i] = static_cast<std::uint8_t>(i * 131 + (i >> 11));
  std::vector<std::vector<std::uint8_t>> pageable(static_cast<std::size_t>(o.pageable_buffers),
                                                  std::vector<std::uint8_t>(pinned, pinned + bytes));
  std::vector<const std::uint8_t*> pageable_ptrs;
  for (auto& v : pageable) pageable_ptrs.push_back(v.data());

  progress("limit", 0, 1);
  fb::Row limit = b.row("limit");
  limit.ms = b.base->limit_ms(pinned, bytes, output_bytes(o.shape, b.transform), o.iterations, o.repeats);
  b.limit_gbps = static_cast<double>(bytes) / (limit.ms / 1e3) / 1e9;
  b.fill_rates(limit, o.shape.n, bytes);
  b.rows.push_back(limit);
  progress("limit", 1, 1);

  progress("naive", 0, 1);
  fb::Row naive = b.row("naive");
  naive.ms = b.base->naive_ms(pageable_ptrs[0], o.shape, std::max(1, o.iterations / 4), std::min(3, o.repeats));
  b.fill_rates(naive, o.shape.n, bytes);
  b.rows.push_back(naive);
  progress("naive", 1, 1);

  const bool all = o.sources == "all";
  if (all || o.sources == "pinned") b.ferry_row("pinned", {pinned}, FERRY_SOURCE_AUTO);
  if (all || o.sources == "pageable") b.ferry_row("pageable", pageable_ptrs, FERRY_SOURCE_AUTO);
  if (all || o.sources == "registered") {
    b.ferry_row("registered", pageable_ptrs, FERRY_SOURCE_REGISTER);
    for (const std::uint8_t* p : pageable_ptrs) ferry_memory_unregister_host(b.ctx, p);  // before the buffers are freed
  }
  progress("latency", 0, 1);
  b.latency_row(pinned);
  progress("latency", 1, 1);

  fb::print_table(b.meta, b.rows);
  for (const std::string& path : {o.json, o.svg}) {
    std::error_code ignored;  // the write below says what went wrong
    if (!path.empty()) std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
  }
  if (!o.json.empty()) {
    if (!fb::write_json(o.json, b.meta, b.rows)) {
      std::fprintf(stderr, "ferry-bench: cannot write %s\n", o.json.c_str());
      return 1;
    }
    std::fprintf(stderr, "ferry-bench: wrote %s\n", o.json.c_str());
  }
  if (!o.svg.empty()) {
    if (!fb::write_svg(o.svg, b.meta, b.rows)) {
      std::fprintf(stderr, "ferry-bench: cannot write %s\n", o.svg.c_str());
      return 1;
    }
    std::fprintf(stderr, "ferry-bench: wrote %s\n", o.svg.c_str());
  }
  check(ferry_memory_free_host(b.ctx, pinned), "ferry_memory_free_host");
  check(ferry_context_destroy(b.ctx), "ferry_context_destroy");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "\nferry-bench: %s\n", e.what());
  return 1;
}
