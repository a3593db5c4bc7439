// ferry_bench_memory: steady-state allocate+free of ferry's caching allocators
// beside the raw calls they replace, 4 KB to 256 MB, one thread and eight.
//
//   ferry_memory_alloc_device/free        (NULL stream: lazy events; and a caller stream: one event per free)
//   cudaMalloc/cudaFree, cudaMallocAsync/cudaFreeAsync
//   ferry_memory_alloc_host/free          (--pinned-method alloc|register picks the miss path)
//   cudaHostAlloc/cudaFreeHost, cudaHostRegister/Unregister of touched memory
//   the same ferry calls on the CPU backend (always run)
//   gpu/pinned_segment_miss/{alloc,register}: the pool's miss path, one fresh
//     segment of 2/20/64/256 MiB from each pinned method and its release
//     (cudaHostAlloc+cudaFreeHost vs posix_memalign+pre-fault+cudaHostRegister
//     +cudaHostUnregister+free), whatever --pinned-method says
//
// The ferry rows report misses_in_loop: the allocations inside the timed loop
// that the cache did not serve (0 in steady state). The contexts' pinned cap
// is 4 GiB, so the 8-thread 256 MiB row (8 x 256 MiB = 2 GiB) measures the
// steady state, not waiting at the cap.
// Time with threads:8 is Google Benchmark's: the wall time of the run divided
// by the iterations of all 8 threads together.
//
// Targets: ferry device and pinned steady state <= 1 us median at every size;
// with 8 threads no worse than 4x the single-thread time.
// Run with --benchmark_repetitions=5 --benchmark_report_aggregates_only=true for medians.
// Without a GPU the CUDA figures are skipped with a message; the CPU ones run.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ferry/ferry.h"
#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>

#include "core/device/cuda/cuda_runtime.h"
#endif

namespace {

ferry_pinned_method g_pinned_method = FERRY_PINNED_REGISTER;  // --pinned-method alloc|register

ferry_context_t make_context(ferry_device_kind kind) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = kind;
  o.pinned_method = g_pinned_method;
  o.pinned_cache_bytes = 4ull << 30;  // 8 threads x 256 MB (2 GiB) in use fit under the cap,
  o.device_cache_bytes = 8ull << 30;  // and 8 x 256 MB freed at once stay cached (2 GiB would trim them)
  ferry_context_t ctx = nullptr;
  if (ferry_context_create(&ctx, &o) != FERRY_OK) {
    std::fprintf(stderr, "ferry_context_create: %s\n", ferry_last_error());
    std::exit(1);
  }
  return ctx;
}

ferry_context_t g_cpu = nullptr;
ferry_context_t g_gpu = nullptr;
ferry_cuda_stream g_caller_stream = nullptr;

void check(ferry_status s, benchmark::State& state) {
  if (s != FERRY_OK) state.SkipWithError(ferry_last_error());
}

// Cache misses (device + pinned) of ctx so far.
uint64_t misses(ferry_context_t ctx) {
  ferry_stats s;
  ferry_stats_init(&s, sizeof s);
  if (ferry_stats_get(&s, ctx) != FERRY_OK) return 0;
  return s.device_misses + s.pinned_misses;
}

// Counts the misses inside the timed loop: thread 0 looks at the first
// iteration (every thread has passed its warm-up then) and after the loop.
class MissCounter {
 public:
  MissCounter(benchmark::State& state, ferry_context_t ctx) : state_(state), ctx_(ctx) {}
  void first_iteration() {
    if (!started_ && state_.thread_index() == 0) before_ = misses(ctx_);
    started_ = true;
  }
  ~MissCounter() {
    if (state_.thread_index() == 0 && started_)
      state_.counters["misses_in_loop"] = static_cast<double>(misses(ctx_) - before_);
  }

 private:
  benchmark::State& state_;
  ferry_context_t ctx_;
  bool started_ = false;
  uint64_t before_ = 0;
};

void ferry_device(benchmark::State& state, ferry_context_t ctx, ferry_cuda_stream stream) {
  const auto bytes = static_cast<size_t>(state.range(0));
  void* warm = nullptr;  // the first allocation of a size is a miss; steady state is what counts
  check(ferry_memory_alloc_device(&warm, ctx, bytes, stream), state);
  check(ferry_memory_free_device(ctx, warm, stream), state);
  MissCounter counter(state, ctx);
  for (auto _ : state) {
    counter.first_iteration();
    void* p = nullptr;
    if (ferry_memory_alloc_device(&p, ctx, bytes, stream) != FERRY_OK) {
      state.SkipWithError(ferry_last_error());
      break;
    }
    benchmark::DoNotOptimize(p);
    ferry_memory_free_device(ctx, p, stream);
  }
}

void ferry_pinned(benchmark::State& state, ferry_context_t ctx) {
  const auto bytes = static_cast<size_t>(state.range(0));
  void* warm = nullptr;
  check(ferry_memory_alloc_host(&warm, ctx, bytes), state);
  check(ferry_memory_free_host(ctx, warm), state);
  MissCounter counter(state, ctx);
  for (auto _ : state) {
    counter.first_iteration();
    void* p = nullptr;
    if (ferry_memory_alloc_host(&p, ctx, bytes) != FERRY_OK) {
      state.SkipWithError(ferry_last_error());
      break;
    }
    benchmark::DoNotOptimize(p);
    ferry_memory_free_host(ctx, p);
  }
}

#if FERRY_HAVE_CUDA
void cuda_malloc(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      state.SkipWithError("cudaMalloc failed");
      break;
    }
    cudaFree(p);
  }
}

void cuda_malloc_async(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  cudaStream_t stream = g_caller_stream;
  for (auto _ : state) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, stream) != cudaSuccess) {
      state.SkipWithError("cudaMallocAsync failed");
      break;
    }
    cudaFreeAsync(p, stream);
  }
  cudaStreamSynchronize(stream);
}

void cuda_host_alloc(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) != cudaSuccess) {
      state.SkipWithError("cudaHostAlloc failed");
      break;
    }
    cudaFreeHost(p);
  }
}

void cuda_host_register(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  std::vector<char> buffer(bytes);
  std::memset(buffer.data(), 1, bytes);  // touched, as a caller's buffer would be
  for (auto _ : state) {
    if (cudaHostRegister(buffer.data(), bytes, cudaHostRegisterDefault) != cudaSuccess) {
      state.SkipWithError("cudaHostRegister failed");
      break;
    }
    cudaHostUnregister(buffer.data());
  }
}

// The pinned pool's miss path: one new segment from the backend and its release.
void pinned_segment_miss(benchmark::State& state, ferry::core::PinnedMethod method) {
  const auto bytes = static_cast<size_t>(state.range(0));
  auto backend = ferry::core::make_cuda_runtime(0, method);
  double alloc_ns = 0, free_ns = 0;
  using clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const auto t0 = clock::now();
    void* p = backend->pinned_alloc(bytes);
    const auto t1 = clock::now();
    if (p == nullptr) {
      state.SkipWithError("pinned_alloc failed");
      break;
    }
    backend->pinned_free(p, bytes);
    const auto t2 = clock::now();
    alloc_ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    free_ns += std::chrono::duration<double, std::nano>(t2 - t1).count();
  }
  // The pinned memory of either method copies at the same speed (64 MiB H2D).
  if (bytes == (size_t{64} << 20)) {
    void* p = backend->pinned_alloc(bytes);
    void* d = nullptr;
    if (p != nullptr && cudaMalloc(&d, bytes) == cudaSuccess) {
      cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice);
      const auto t0 = clock::now();
      for (int i = 0; i < 5; ++i) cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice);
      const double s = std::chrono::duration<double>(clock::now() - t0).count();
      state.counters["h2d_GBps"] = 5.0 * static_cast<double>(bytes) / s / 1e9;
      cudaFree(d);
    }
    if (p != nullptr) backend->pinned_free(p, bytes);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["alloc_ms"] = n > 0 ? alloc_ns / n / 1e6 : 0;
  state.counters["free_ms"] = n > 0 ? free_ns / n / 1e6 : 0;
}
#endif

template <typename F>
void add(const std::string& name, F&& f, int threads = 1, int64_t max_iterations = 0) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(f));
  b->RangeMultiplier(16)->Range(4 << 10, 256 << 20)->UseRealTime();
  if (threads > 1) b->Threads(threads);
  if (max_iterations > 0) b->Iterations(max_iterations);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--pinned-method")
      g_pinned_method = std::string(argv[i + 1]) == "alloc" ? FERRY_PINNED_HOST_ALLOC : FERRY_PINNED_REGISTER;
  g_cpu = make_context(FERRY_DEVICE_CPU);
  add("cpu/ferry_memory_alloc_free_device", [](benchmark::State& s) { ferry_device(s, g_cpu, nullptr); });
  add("cpu/ferry_memory_alloc_free_host", [](benchmark::State& s) { ferry_pinned(s, g_cpu); });
  add("cpu/ferry_memory_alloc_free_device", [](benchmark::State& s) { ferry_device(s, g_cpu, nullptr); }, 8);
  add("cpu/ferry_memory_alloc_free_host", [](benchmark::State& s) { ferry_pinned(s, g_cpu); }, 8);

  int gpus = 0;
  if (ferry_device_count(&gpus) != FERRY_OK || gpus == 0) {
    std::printf("ferry_bench_memory: no CUDA device or driver: GPU benchmarks skipped, CPU backend only\n");
  } else {
#if FERRY_HAVE_CUDA
    g_gpu = make_context(FERRY_DEVICE_CUDA);
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    g_caller_stream = stream;
    std::printf("ferry_bench_memory: pinned method %s\n",
                g_pinned_method == FERRY_PINNED_HOST_ALLOC ? "cudaHostAlloc" : "register (default)");
    add("gpu/ferry_memory_alloc_free_device/null_stream", [](benchmark::State& s) { ferry_device(s, g_gpu, nullptr); });
    add("gpu/ferry_memory_alloc_free_device/caller_stream",
        [](benchmark::State& s) { ferry_device(s, g_gpu, g_caller_stream); });
    add("gpu/ferry_memory_alloc_free_host", [](benchmark::State& s) { ferry_pinned(s, g_gpu); });
    add("gpu/ferry_memory_alloc_free_device/null_stream",
        [](benchmark::State& s) { ferry_device(s, g_gpu, nullptr); }, 8);
    add("gpu/ferry_memory_alloc_free_host", [](benchmark::State& s) { ferry_pinned(s, g_gpu); }, 8);
    add("gpu/cudaMalloc_cudaFree", cuda_malloc);
    add("gpu/cudaMallocAsync_cudaFreeAsync", cuda_malloc_async);
    add("gpu/cudaHostAlloc_cudaFreeHost", cuda_host_alloc, 1, 10);      // up to ~100 ms each
    add("gpu/cudaHostRegister_Unregister", cuda_host_register, 1, 10);
    for (auto [name, method] : {std::pair{"alloc", ferry::core::PinnedMethod::kHostAlloc},
                                std::pair{"register", ferry::core::PinnedMethod::kRegister}}) {
      auto* b = benchmark::RegisterBenchmark((std::string("gpu/pinned_segment_miss/") + name).c_str(),
                                             [m = method](benchmark::State& s) { pinned_segment_miss(s, m); });
      for (int64_t mib : {2, 20, 64, 256}) b->Arg(mib << 20);
      b->Iterations(10)->UseRealTime()->Unit(benchmark::kMillisecond);
    }
#else
    std::printf("ferry_bench_memory: built without CUDA: GPU benchmarks skipped\n");
#endif
  }
  benchmark::RunSpecifiedBenchmarks();
  ferry_context_destroy(g_gpu);
  ferry_context_destroy(g_cpu);
  return 0;
}
