// ferry_bench_memory: steady-state allocate+free of ferry's caching allocators
// beside the raw calls they replace, 4 KB to 256 MB, one thread and eight.
//
//   ferry_device_alloc/free        (NULL stream: lazy events; and a caller stream: one event per free)
//   cudaMalloc/cudaFree, cudaMallocAsync/cudaFreeAsync
//   ferry_host_alloc/free          (FERRY_PINNED_METHOD=alloc|register picks the miss path)
//   cudaHostAlloc/cudaFreeHost, cudaHostRegister/Unregister of touched memory
//   the same ferry calls on the CPU backend (always run)
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
#include <vector>

#include "ferry/ferry.h"
#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

ferry_context_t make_context(ferry_device_kind kind) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = kind;
  o.pinned_cache_bytes = 4ull << 30;  // 8 threads x 256 MB fit under the cap
  ferry_context_t ctx = nullptr;
  if (ferry_context_create(&ctx, &o) != FERRY_OK) {
    std::fprintf(stderr, "ferry_context_create: %s\n", ferry_last_error());
    std::exit(1);
  }
  return ctx;
}

ferry_context_t g_cpu = nullptr;
ferry_context_t g_gpu = nullptr;
void* g_caller_stream = nullptr;

void check(ferry_status s, benchmark::State& state) {
  if (s != FERRY_OK) state.SkipWithError(ferry_last_error());
}

void ferry_device(benchmark::State& state, ferry_context_t ctx, void* stream) {
  const auto bytes = static_cast<size_t>(state.range(0));
  void* warm = nullptr;  // the first allocation of a size is a miss; steady state is what counts
  check(ferry_device_alloc(&warm, ctx, bytes, stream), state);
  check(ferry_device_free(ctx, warm, stream), state);
  for (auto _ : state) {
    void* p = nullptr;
    if (ferry_device_alloc(&p, ctx, bytes, stream) != FERRY_OK) {
      state.SkipWithError(ferry_last_error());
      break;
    }
    benchmark::DoNotOptimize(p);
    ferry_device_free(ctx, p, stream);
  }
}

void ferry_pinned(benchmark::State& state, ferry_context_t ctx) {
  const auto bytes = static_cast<size_t>(state.range(0));
  void* warm = nullptr;
  check(ferry_host_alloc(&warm, ctx, bytes), state);
  check(ferry_host_free(ctx, warm), state);
  for (auto _ : state) {
    void* p = nullptr;
    if (ferry_host_alloc(&p, ctx, bytes) != FERRY_OK) {
      state.SkipWithError(ferry_last_error());
      break;
    }
    benchmark::DoNotOptimize(p);
    ferry_host_free(ctx, p);
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
  auto stream = static_cast<cudaStream_t>(g_caller_stream);
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
  g_cpu = make_context(FERRY_DEVICE_CPU);
  add("cpu/ferry_device_alloc_free", [](benchmark::State& s) { ferry_device(s, g_cpu, nullptr); });
  add("cpu/ferry_host_alloc_free", [](benchmark::State& s) { ferry_pinned(s, g_cpu); });
  add("cpu/ferry_device_alloc_free", [](benchmark::State& s) { ferry_device(s, g_cpu, nullptr); }, 8);
  add("cpu/ferry_host_alloc_free", [](benchmark::State& s) { ferry_pinned(s, g_cpu); }, 8);

  int gpus = 0;
  if (ferry_device_count(&gpus) != FERRY_OK || gpus == 0) {
    std::printf("ferry_bench_memory: no CUDA device or driver: GPU benchmarks skipped, CPU backend only\n");
  } else {
#if FERRY_HAVE_CUDA
    g_gpu = make_context(FERRY_DEVICE_CUDA);
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    g_caller_stream = stream;
    const char* method = std::getenv("FERRY_PINNED_METHOD");
    std::printf("ferry_bench_memory: pinned method %s\n", method != nullptr ? method : "alloc (default)");
    add("gpu/ferry_device_alloc_free/null_stream", [](benchmark::State& s) { ferry_device(s, g_gpu, nullptr); });
    add("gpu/ferry_device_alloc_free/caller_stream",
        [](benchmark::State& s) { ferry_device(s, g_gpu, g_caller_stream); });
    add("gpu/ferry_host_alloc_free", [](benchmark::State& s) { ferry_pinned(s, g_gpu); });
    add("gpu/ferry_device_alloc_free/null_stream", [](benchmark::State& s) { ferry_device(s, g_gpu, nullptr); }, 8);
    add("gpu/ferry_host_alloc_free", [](benchmark::State& s) { ferry_pinned(s, g_gpu); }, 8);
    add("gpu/cudaMalloc_cudaFree", cuda_malloc);
    add("gpu/cudaMallocAsync_cudaFreeAsync", cuda_malloc_async);
    add("gpu/cudaHostAlloc_cudaFreeHost", cuda_host_alloc, 1, 10);      // up to ~100 ms each
    add("gpu/cudaHostRegister_Unregister", cuda_host_register, 1, 10);
#else
    std::printf("ferry_bench_memory: built without CUDA: GPU benchmarks skipped\n");
#endif
  }
  benchmark::RunSpecifiedBenchmarks();
  ferry_context_destroy(g_gpu);
  ferry_context_destroy(g_cpu);
  return 0;
}
