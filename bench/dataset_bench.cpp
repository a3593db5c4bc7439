// ferry_bench_dataset: resident datasets (issue 17), every figure beside its
// baseline measured in the same run:
//  1. upload: ferry_dataset_create of the whole set from pageable memory
//     (staged) and from pinned memory (DMA), host clock around the call (it
//     returns when the upload is complete; median of --reps after one
//     warm-up, each after the driver's work on the last one's free has
//     passed, as at a program's start; one row without that wait), against
//     a pinned cudaMemcpy H2D of the same bytes timed with CUDA events (the
//     bus limit; target 0.9);
//  2. gather: batches of 256 and 1024 random indices (ferry_dataset_epoch's
//     order) with CIFAR's training recipe (RandomCrop at the sample size with
//     padding 4, flip_x 0.5, normalized f16 NCHW; the step advanced per
//     batch) and the same gather without augmentation (normalized f16 NCHW,
//     no resize: per-sample pointers, the gather's own cost). The kernel's
//     time (ferry's timing events around it: stats.convert_ns per gather,
//     median of --reps single gathers, each held at a gate on its hand-off
//     stream until the call has returned, so the host's work in the call is
//     not counted) against a device-to-device cudaMemcpy moving the same
//     bytes (the uint8 bytes the crops read + the output's, through memory
//     beyond the L2 cache as the random samples are), timed alike (events
//     around one copy on a held stream; target 0.7); beside them the bare
//     gather (bare_gather.h: the plainest kernel reading the same random
//     samples, timed alike), what any gather of them costs; the host's
//     time in the gather call; 10 gathers back to back handed off to one
//     stream between two events; and the pipelined rate (gather k+1
//     submitted before k is waited for), images/s.
// Sets: CIFAR-10-shaped (50,000 x 32x32x3) and 64x64 (200,000 x 64x64x3).
// Without a GPU (or with --device cpu) the same rows run on the CPU backend
// and say so: the baselines are then a threaded host memcpy of the same
// bytes, the hand-off burst has no stream to time, and no target is judged.
//
//   ferry_bench_dataset [--sets cifar,64] [--tables upload,gather] [--small] [--reps 20]
//                       [--batches 40] [--in-flight 2] [--device auto|cpu|cuda]
// --tables: which tables to run (both by default; a gather-only run takes a
// tenth of the time, for comparing builds of the kernel round after round).
// --small (or FERRY_BENCH_SMALL=1 in the environment): 5,000 and 2,000
// samples and 4 gathers a pipelined run, for the CPU backend of a small
// machine (under a minute on 2 cores).
// This file: the command line, the tables and the targets; the sets, the
// backend and the recipes are dataset_bench_cases.h's, the timed rows
// dataset_bench_timing.cpp's.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_baselines.h"
#include "bench/dataset_bench_cases.h"
#include "bench/dataset_bench_timing.h"
#include "ferry/ferry.h"

#if FERRY_HAVE_CUDA
#include "bench/gpu_timing.h"
#endif

using namespace ferry::bench::dataset;  // and its alias fb = ferry::bench

namespace {

constexpr const char* kUsage =
    "usage: ferry_bench_dataset [--sets cifar,64] [--tables upload,gather] [--small] [--reps N] [--batches N]\n"
    "                           [--in-flight N] [--device auto|cpu|cuda]\n";

// --help to stdout and 0, a bad command line to stderr and 2.
[[noreturn]] void usage(int code) { std::fputs(kUsage, code == 0 ? stdout : stderr), std::exit(code); }

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);
  const char* small = std::getenv("FERRY_BENCH_SMALL");
  o.small = small != nullptr && std::strcmp(small, "") != 0 && std::strcmp(small, "0") != 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(2);
      return argv[++i];
    };
    if (a == "--sets") o.sets = next();
    else if (a == "--tables") o.tables = next();
    else if (a == "--small") o.small = true;
    else if (a == "--reps") o.reps = std::atoi(next().c_str());
    else if (a == "--batches") o.batches = std::atoi(next().c_str());
    else if (a == "--in-flight") o.in_flight = std::atoi(next().c_str());
    else if (a == "--device") o.device = next();
    else if (a == "-h" || a == "--help") usage(0);
    else usage(2);
  }
  if (o.batches == 0) o.batches = o.small ? 4 : 40;
  if (o.reps < 3 || o.batches < 2 || o.in_flight < 1) usage(2);
  if (o.device != "auto" && o.device != "cpu" && o.device != "cuda") usage(2);
  if (o.tables.find("upload") == std::string::npos && o.tables.find("gather") == std::string::npos) usage(2);
  return o;
}

// A target of issue 17 and whether this run met it (judged on a GPU only).
struct Verdict {
  std::string what;
  bool met;
};

// The upload table of set `s`: ferry_dataset_create from pageable and from pinned memory against the limit.
void upload_table(const Backend& b, const SetShape& s, const std::uint8_t* pageable, const std::uint8_t* pinned,
                  const Options& o, std::vector<Verdict>& verdicts) {
  const std::size_t bytes = s.bytes();
  const double limit_ms = b.base->limit_ms(pinned, bytes, bytes, 1, o.reps);
  const CreateTimes from_pageable = create_times(b, set_source(s, pageable), o.reps);
  const CreateTimes from_pinned = create_times(b, set_source(s, pinned), o.reps);
  const CreateTimes unsettled = create_times(b, set_source(s, pinned), o.reps, false);
  const CreateTimes cold = create_times(b, set_source(s, pinned), o.reps, true, true);
  std::printf("\n## upload: %s, %lld x %lldx%lldx3 uint8 (%.1f MB), median of %d\n", s.name.c_str(),
              static_cast<long long>(s.n), static_cast<long long>(s.side), static_cast<long long>(s.side), bytes / 1e6,
              o.reps);
  std::printf("| row | ms | GB/s | x %s | target | met |\n|---|---|---|---|---|---|\n",
              b.gpu ? "bus limit" : "memcpy");
  const std::string limit_name = b.gpu ? "bus limit: pinned cudaMemcpy H2D of the same bytes (CUDA events)"
                                       : "CPU backend: host memcpy of the same bytes, " + std::to_string(b.threads) +
                                             " threads (host clock)";
  std::printf("| %s | %.2f | %.2f | 1.000 | | |\n", limit_name.c_str(), limit_ms, bytes / limit_ms / 1e6);
  double fresh_ms = 0;  // the same copy into device memory allocated for it, as every upload's is
#if FERRY_HAVE_CUDA
  if (b.gpu) {
    fresh_ms = fresh_buffer_copy_ms(b, pinned, bytes, o.reps);
    std::printf("| baseline: cudaMalloc + pinned cudaMemcpy H2D into it (host clock; new memory, as an upload's) | %.2f | "
                "%.2f | %.3f | report | - |\n",
                fresh_ms, bytes / fresh_ms / 1e6, limit_ms / fresh_ms);
    // The pinned set is a copy of the pageable one: copying over it leaves it as it was.
    auto* pinned_bytes = const_cast<std::uint8_t*>(pinned);
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int threads : {std::max(1, cores * 3 / 4), cores}) {
      const double copy_ms = host_copy_ms(pageable, pinned_bytes, bytes, threads, o.reps);
      std::printf("| host memcpy pageable -> pinned, %d threads (no bus: the staging's bound; %s) | %.2f | %.2f | %.3f "
                  "| report | - |\n",
                  threads, threads == cores ? "every core" : "as many as ferry stages with", copy_ms,
                  bytes / copy_ms / 1e6, limit_ms / copy_ms);
    }
    const double pageable_ms = pageable_copy_ms(b, pageable, bytes, o.reps);
    std::printf("| baseline: cudaMemcpy H2D from the pageable memory (the driver stages it; host clock) | %.2f | "
                "%.2f | %.3f | report | - |\n",
                pageable_ms, bytes / pageable_ms / 1e6, limit_ms / pageable_ms);
  }
#endif
  auto row = [&](const char* name, const CreateTimes& t, const char* verdict_name) {
    const double ratio = limit_ms / t.call_ms;
    const char* met = !b.gpu ? "-" : ratio >= 0.9 ? "yes" : "NO";
    std::printf("| %s: ferry_dataset_create (host clock) | %.2f | %.2f | %.3f | %s | %s |\n", name, t.call_ms,
                bytes / t.call_ms / 1e6, ratio, b.gpu ? ">= 0.90" : "GPU only", met);
    std::printf("| %s: the upload alone (info.upload_seconds) | %.2f | %.2f | %.3f | report | - |\n", name, t.upload_ms,
                bytes / t.upload_ms / 1e6, limit_ms / t.upload_ms);
    if (b.gpu) verdicts.push_back({s.name + " upload from " + verdict_name + " >= 0.90 of the bus limit", ratio >= 0.9});
    if (fresh_ms > 0)
      std::printf("| %s: ferry_dataset_create against the baseline's cudaMalloc + cudaMemcpy | | | %.3f (x baseline) | "
                  "report | - |\n",
                  name, fresh_ms / t.call_ms);
  };
  row(b.gpu ? "pageable (staged)" : "malloc'd memory", from_pageable, "pageable memory");
  row(b.gpu ? "pinned (DMA)" : "ferry_memory_alloc_host memory", from_pinned, "pinned memory");
  if (b.gpu)
    std::printf("| pinned, each create right after the last destroy (the driver still at work on the free) | %.2f | %.2f | "
                "%.3f | report | - |\n",
                unsettled.call_ms, bytes / unsettled.call_ms / 1e6, limit_ms / unsettled.call_ms);
  if (b.gpu)
    std::printf("| pinned, the context's device cache emptied first (ferry_memory_trim; as in a new context, the "
                "head's block allocated too) | %.2f | %.2f | %.3f | report | - |\n",
                cold.call_ms, bytes / cold.call_ms / 1e6, limit_ms / cold.call_ms);
}

// The gather tables of set `s`, resident from `pinned`: each case against its copy, then its rates.
void gather_tables(Backend& b, const SetShape& s, const std::uint8_t* pinned, const Options& o,
                   std::vector<Verdict>& verdicts) {
  ferry_dataset_t ds = nullptr;
  const ferry_source src = set_source(s, pinned);
  check(ferry_dataset_create(&ds, b.ctx, &src, nullptr), "ferry_dataset_create");
  if (!uploaded_intact(b, ds, s, pinned)) {
    std::fprintf(stderr, "ferry_bench_dataset: %s: a gathered sample differs from the source\n", s.name.c_str());
    std::exit(1);
  }
  ferry_dataset_info info;
  ferry_dataset_info_init(&info, sizeof info);
  check(ferry_dataset_get_info(&info, ds), "ferry_dataset_get_info");
  std::vector<std::int64_t> order(static_cast<std::size_t>(info.epoch_size));
  check(ferry_dataset_epoch(order.data(), info.epoch_size, ds, 7, 0, 1), "ferry_dataset_epoch");
#if FERRY_HAVE_CUDA
  std::uint8_t* set_copy = nullptr;  // the bare gather's set, allocated and filled as any upload's
  if (b.gpu) {
    fb::check_cuda(cudaMalloc(reinterpret_cast<void**>(&set_copy), s.bytes()), "cudaMalloc");
    fb::check_cuda(cudaMemcpy(set_copy, pinned, s.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
    b.set_copy = set_copy;
  }
#endif
  std::vector<GatherRow> rows;
  for (std::int64_t batch : {256, 1024})
    for (bool augmented : {true, false})
      rows.push_back(measure_gather(b, ds, s, order, batch, augmented, pinned, o));
  check(ferry_dataset_destroy(ds), "ferry_dataset_destroy");
#if FERRY_HAVE_CUDA
  if (b.gpu) fb::check_cuda(cudaFree(set_copy), "cudaFree");
  b.set_copy = nullptr;
#endif

  std::printf("\n## gather + convert: %s resident (%.1f MB), random indices of one epoch, median of %d\n",
              s.name.c_str(), s.bytes() / 1e6, o.reps);
  std::printf("bytes moved = the uint8 bytes the batch's windows read (each once) + the output's bytes; the %s\n",
              b.gpu ? "D2D cudaMemcpy moves as many (it reads and writes half of them each, each copy in memory\n"
                      "the previous ones did not touch). Both timed alone: ferry's events around the kernel, events "
                      "around the copy, the host's work in the call not counted"
                    : "CPU backend's baseline is a threaded host memcpy moving as many; kernel: the conversion's wall "
                      "time");
  if (b.gpu)
    std::printf("bare gather = the plainest kernel gathering the same random samples (bare_gather.h: each whole sample\n"
                "read once, its bytes widened to 16 bits, one launch, events around it as around the copy): what any\n"
                "gather of these samples costs, which a contiguous copy does not (its bytes: whole samples, at least\n"
                "the row's)\n");
  std::printf("| case | batch | MB moved (in + out) | kernel ms | %s ms | x copy | bare gather ms | bare x copy | "
              "kernel x bare | target | met |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
              b.gpu ? "D2D copy" : "memcpy");
  for (const GatherRow& r : rows) {
    const double ratio = r.copy_ms / r.kernel_ms;
    const bool judged = b.gpu && r.augmented;
    char bare[96] = "- | - | -";
    if (r.bare_ms > 0)
      std::snprintf(bare, sizeof bare, "%.4f | %.3f | %.3f", r.bare_ms, r.copy_ms / r.bare_ms, r.bare_ms / r.kernel_ms);
    std::printf("| %s | %lld | %.2f + %.2f | %.4f | %.4f | %.3f | %s | %s | %s |\n", r.name.c_str(),
                static_cast<long long>(r.batch), r.in_bytes / 1e6, r.out_bytes / 1e6, r.kernel_ms, r.copy_ms, ratio,
                bare, judged ? ">= 0.70" : "report", judged ? (ratio >= 0.7 ? "yes" : "NO") : "-");
    if (judged)
      verdicts.push_back({s.name + " gather+augment+convert, batch " + std::to_string(r.batch) +
                              ": kernel >= 0.70 of a D2D copy",
                          ratio >= 0.7});
  }
  std::printf("\n| case | batch | host ms in the gather call | burst ms / batch (10 gathers handed off to one stream, "
              "events) | pipelined ms / batch (%d in flight) | images/s (pipelined) |\n|---|---|---|---|---|---|\n",
              o.in_flight);
  for (const GatherRow& r : rows) {
    char burst[32] = "- (no streams)";
    if (r.burst_ms >= 0) std::snprintf(burst, sizeof burst, "%.4f", r.burst_ms);
    std::printf("| %s | %lld | %.4f | %s | %.4f | %.0f |\n", r.name.c_str(), static_cast<long long>(r.batch),
                r.host_ms, burst, r.pipelined_ms, r.batch / (r.pipelined_ms / 1e3));
  }
}

ferry_device_kind device_kind_of(const std::string& d) {
  if (d == "cpu") return FERRY_DEVICE_CPU;
  if (d == "cuda") return FERRY_DEVICE_CUDA;
  return FERRY_DEVICE_AUTO;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<SetShape> sets;
  if (o.sets.find("cifar") != std::string::npos)
    sets.push_back({"cifar", "CIFAR-10-shaped", o.small ? 5000 : 50000, 32});
  if (o.sets.find("64") != std::string::npos) sets.push_back({"64", "64x64", o.small ? 2000 : 200000, 64});
  Backend b;
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = device_kind_of(o.device);
  // The pinned source is one ferry_memory_alloc_host block of a whole set (2.5 GB for the 64x64 one):
  // the pinned pool's cap leaves its default room beside it.
  for (const SetShape& s : sets) co.pinned_cache_bytes = std::max<std::uint64_t>(co.pinned_cache_bytes, (std::uint64_t{1} << 30) + s.bytes());
  check(ferry_context_create(&b.ctx, &co), "ferry_context_create");
  ferry_device_kind kind = FERRY_DEVICE_CPU;
  int index = -1;
  check(ferry_context_get_device(&kind, &index, b.ctx), "ferry_context_get_device");
  b.gpu = kind == FERRY_DEVICE_CUDA;
  b.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));  // cpu_threads 0: one a core
#if FERRY_HAVE_CUDA
  if (b.gpu) {
    b.base = fb::make_cuda_baselines(index);
    fb::check_cuda(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    fb::check_cuda(cudaMalloc(reinterpret_cast<void**>(&b.d2d_from), kD2DSpan), "cudaMalloc");
    fb::check_cuda(cudaMalloc(reinterpret_cast<void**>(&b.d2d_to), kD2DSpan), "cudaMalloc");
  }
#endif
  // The CPU baselines' one-image latency is never asked for here: no conversion to time.
  if (!b.gpu) b.base = fb::make_cpu_baselines(b.threads, [](const std::uint8_t*) {});
  std::printf("ferry_bench_dataset on %s, %s backend%s; every baseline from this run\ncommand: %s\n",
              b.base->device_name().c_str(), b.gpu ? "CUDA" : "CPU",
              b.gpu ? "" : " (CPU figures: the GPU targets are not judged here)", o.command.c_str());

  std::vector<Verdict> verdicts;
  for (const SetShape& s : sets) {
    const std::size_t bytes = s.bytes();
    std::vector<std::uint8_t> pageable(bytes);
    fill_random(pageable.data(), bytes);
    void* pinned = nullptr;
    check(ferry_memory_alloc_host(&pinned, b.ctx, bytes), "ferry_memory_alloc_host");
    std::memcpy(pinned, pageable.data(), bytes);
#if FERRY_HAVE_CUDA
    if (b.gpu) {
      // The kernel-time gathers' output: batch 1024 of f16 NCHW.
      const std::size_t need = static_cast<std::size_t>(1024 * 3 * s.side * s.side) * 2;
      if (need > b.timed_out_bytes) {
        cudaFree(b.timed_out);
        fb::check_cuda(cudaMalloc(&b.timed_out, need), "cudaMalloc");
        b.timed_out_bytes = need;
      }
    }
#endif
    if (o.tables.find("upload") != std::string::npos)
      upload_table(b, s, pageable.data(), static_cast<const std::uint8_t*>(pinned), o, verdicts);
    if (o.tables.find("gather") != std::string::npos)
      gather_tables(b, s, static_cast<const std::uint8_t*>(pinned), o, verdicts);
    check(ferry_memory_free_host(b.ctx, pinned), "ferry_memory_free_host");
  }

  std::printf("\n## targets (issue 17)\n");
  if (!b.gpu) std::printf("CPU backend: figures only; the targets are the GPU's and are not judged here\n");
  int missed = 0;
  for (const Verdict& v : verdicts) {
    std::printf("- %s: %s\n", v.what.c_str(), v.met ? "met" : "NOT met");
    missed += v.met ? 0 : 1;
  }
  if (b.gpu) std::printf("%d of %zu targets met\n", static_cast<int>(verdicts.size()) - missed, verdicts.size());
#if FERRY_HAVE_CUDA
  if (b.gpu) {
    cudaFree(b.d2d_from), cudaFree(b.d2d_to), cudaFree(b.timed_out);
    cudaStreamDestroy(b.stream);
  }
#endif
  b.base.reset();
  check(ferry_context_destroy(b.ctx), "ferry_context_destroy");
  return 0;
}
