// ferry_bench_convert: the conversion kernel's effective bandwidth (bytes read
// + written) beside a device-to-device cudaMemcpy moving the same bytes, in
// the same run, as one table: a row per case of issue 12 (convert_bench_cases.h:
// the base conversions, mirror, per-sample flips and crops, padded windows,
// pad to 4, a GL readback, uint8 output), each with the kernel that took it,
// its ratio to the copy, the target (base cases 0.9, the rest 0.85) and
// whether it was met, and its ratio to a streaming kernel that reads and
// writes as many bytes (stream_kernel.h: the ceiling of the row's read:write
// mix, below the copy for rows that write more than they read). Then the same
// cases on the CPU backend beside a threaded memcpy of the same bytes (target
// 0.6). CUDA events, warm-up, median of bursts of back-to-back calls (and of
// single calls, host overhead included); the CPU rows host clocks, medians.
//
//   ferry_bench_convert [--n 1024] [--h 224] [--w 224] [--iters 200] [--cpu-iters 5] [--no-cpu] [--no-gpu]
//                       [--list] [--case TEXT]
// Without a GPU the CUDA part is skipped (said so) and the CPU part still runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/thread_pool.h"
#include "ferry/ferry.h"

#include "bench/convert_bench_cases.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "bench/stream_kernel.h"
#endif

namespace {

struct Options {
  std::int64_t n = 1024, h = 224, w = 224;
  int iters = 200, cpu_iters = 5;
  bool cpu = true, gpu = true;
  bool list = false;  // --list: the kernel table's rows and the kernel each takes, then exit
  std::string only;   // --case TEXT: only the rows whose name contains TEXT
};

// The kernel table's rows, or those --case names.
std::vector<ferry::bench::KernelCase> selected_cases(const Options& o) {
  std::vector<ferry::bench::KernelCase> cases = ferry::bench::kernel_cases(o.n, o.h, o.w);
  auto unselected = [&](const ferry::bench::KernelCase& c) { return c.name.find(o.only) == std::string::npos; };
  cases.erase(std::remove_if(cases.begin(), cases.end(), unselected), cases.end());
  return cases;
}

// The largest input and output of the cases: one pair of buffers serves them all.
std::pair<std::size_t, std::size_t> largest_buffers(const std::vector<ferry::bench::KernelCase>& cases) {
  std::size_t in = 0, out = 0;
  for (const auto& c : cases) in = std::max(in, c.input_bytes()), out = std::max(out, c.output_bytes());
  return {in, out};
}

// The images' bytes: a fixed pseudo-random pattern.
std::vector<std::uint8_t> input_bytes(std::size_t n) {
  std::vector<std::uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(i * 2654435761u >> 24);
  return bytes;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void check(ferry_status s, const char* what) {
  if (s != FERRY_OK) {
    std::fprintf(stderr, "%s failed: %s\n", what, ferry_last_error());
    std::exit(1);
  }
}

#if FERRY_HAVE_CUDA
#define CUDA(call)                                                                 \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));             \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

// Milliseconds per fn() on `stream`: the median over bursts of kBurst calls
// queued back to back between two events, divided by kBurst. The GPU never
// waits for the host inside a burst, so host-side call overhead (argument
// checks, the launch itself) is hidden as it is in a pipeline; the kernel and
// the copy are timed the same way. single_ms gets the median of single calls
// with events right around each one (host overhead included: the latency).
constexpr int kBurst = 20;
template <typename Fn>
double time_gpu(int iters, cudaStream_t stream, double* single_ms, Fn&& fn) {
  cudaEvent_t a, b;
  CUDA(cudaEventCreate(&a));
  CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 10; ++i) fn();  // warm-up
  auto timed = [&](int calls) {
    CUDA(cudaEventRecord(a, stream));
    for (int c = 0; c < calls; ++c) fn();
    CUDA(cudaEventRecord(b, stream));
    CUDA(cudaEventSynchronize(b));
    float t = 0;
    CUDA(cudaEventElapsedTime(&t, a, b));
    return static_cast<double>(t) / calls;
  };
  std::vector<double> single, burst;
  for (int i = 0; i < iters; ++i) single.push_back(timed(1));
  for (int i = 0; i < std::max(5, iters / kBurst); ++i) burst.push_back(timed(kBurst));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  *single_ms = median(single);
  return median(burst);
}

void bench_gpu(const Options& o) {
  int devices = 0;
  if (ferry_device_count(&devices) != FERRY_OK || devices == 0) {
    std::printf("gpu: SKIPPED (no CUDA device or driver)\n");
    return;
  }
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = FERRY_DEVICE_CUDA;
  ferry_context_t ctx;
  check(ferry_context_create(&ctx, &co), "ferry_context_create");
  std::vector<ferry::bench::KernelCase> cases = selected_cases(o);
  const auto [in_max, out_max] = largest_buffers(cases);
  std::uint8_t *d_in = nullptr, *d_out = nullptr, *d_copy = nullptr;
  CUDA(cudaMalloc(reinterpret_cast<void**>(&d_in), in_max));
  CUDA(cudaMalloc(reinterpret_cast<void**>(&d_out), out_max));
  CUDA(cudaMalloc(reinterpret_cast<void**>(&d_copy), out_max));
  const std::vector<std::uint8_t> host = input_bytes(in_max);
  CUDA(cudaMemcpy(d_in, host.data(), in_max, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("gpu: %s, %d SMs; batch %lld x %lld x %lld uint8 NHWC on the device, median of %d (bursts of %d)\n",
              prop.name, prop.multiProcessorCount, static_cast<long long>(o.n), static_cast<long long>(o.h),
              static_cast<long long>(o.w), o.iters, kBurst);
  std::printf("| case | kernel | ms | GB/s (read+written) | d2d GB/s | ratio | target | met | x stream | single call ms |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n");
  int missed = 0;
  for (ferry::bench::KernelCase& c : cases) {
    c.bind(d_in, d_out);
    const std::size_t moved = c.bytes_read() + c.output_bytes();
    double kernel_single = 0, copy_single = 0;
    const double kernel_ms = time_gpu(o.iters, stream, &kernel_single, [&] {
      check(ferry_transform_apply(ctx, &c.source, &c.transform, &c.output, stream), c.name.c_str());
    });
    // A copy of moved/2 bytes reads and writes `moved` bytes in all.
    const double copy_ms = time_gpu(o.iters, stream, &copy_single, [&] {
      CUDA(cudaMemcpyAsync(d_copy, d_out, moved / 2, cudaMemcpyDeviceToDevice, stream));
    });
    // The plainest kernel reading and writing as many bytes (stream_kernel.h).
    const std::size_t stream_in = c.bytes_read() / 16 * 16, stream_out = c.output_bytes() / 16 * 16;
    double stream_single = 0;
    const double stream_ms = stream_in <= stream_out ? time_gpu(o.iters, stream, &stream_single, [&] {
      CUDA(ferry::bench::launch_stream_kernel(d_in, stream_in, d_copy, stream_out, stream));
    }) : 0.0;
    const double kernel_gbs = moved / kernel_ms / 1e6, copy_gbs = moved / copy_ms / 1e6;
    const double ratio = kernel_gbs / copy_gbs;
    const bool met = ratio >= c.target;
    missed += met ? 0 : 1;
    char stream_ratio[16] = "-";
    if (stream_ms > 0)
      std::snprintf(stream_ratio, sizeof stream_ratio, "%.3f",
                    (moved / kernel_ms) / (static_cast<double>(stream_in + stream_out) / stream_ms));
    std::printf("| %s | %s | %.4f | %.1f | %.1f | %.3f | >= %.2f | %s | %s | %.4f |\n", c.name.c_str(),
                c.kernel_path(), kernel_ms, kernel_gbs, copy_gbs, ratio, c.target, met ? "yes" : "no", stream_ratio,
                kernel_single);
  }
  std::printf("gpu kernel table: %d of %zu rows below target ('ratio': against the D2D copy, the issue's\n"
              "  target; 'x stream': against a streaming kernel reading and writing as many bytes, the\n"
              "  ceiling of the row's read:write mix)\n",
              missed, cases.size());
  cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_copy);
  ferry_context_destroy(ctx);
}
#else
void bench_gpu(const Options&) { std::printf("gpu: SKIPPED (built without the CUDA backend)\n"); }
#endif

// The kernel table's rows with the kernel each would take on 256-byte-aligned
// device buffers (cudaMalloc's), without running anything: works without a GPU.
void list_cases(const Options& o) {
  for (ferry::bench::KernelCase& c : selected_cases(o)) {
    c.bind(reinterpret_cast<const void*>(std::uintptr_t{1} << 32), reinterpret_cast<void*>(std::uintptr_t{1} << 36));
    std::printf("%-44s kernel %-8s target %.2f\n", c.name.c_str(), c.kernel_path(), c.target);
  }
}

template <typename Fn>
double time_cpu(int iters, Fn&& fn) {
  fn();  // warm-up (and first touch of the output)
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    const auto a = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return median(ms);
}

// Issue 12's CPU rows: every case of the kernel table on the CPU backend
// (host buffers, the context's thread pool) against a threaded memcpy of as
// many bytes (read + written) on a pool of as many threads. Target 0.6.
void bench_cpu(const Options& o) {
  constexpr double kCpuTarget = 0.6;
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = FERRY_DEVICE_CPU;
  ferry_context_t ctx;
  check(ferry_context_create(&ctx, &co), "ferry_context_create");
  ferry::core::ThreadPool pool(0);
  std::vector<ferry::bench::KernelCase> cases = selected_cases(o);
  const auto [in_max, out_max] = largest_buffers(cases);
  std::vector<std::uint8_t> in = input_bytes(in_max), out(out_max), copy(out_max);
  std::printf("cpu: %d threads (the context's pool and the memcpy's), batch %lld x %lld x %lld uint8 NHWC in host "
              "memory, median of %d\n",
              pool.size(), static_cast<long long>(o.n), static_cast<long long>(o.h), static_cast<long long>(o.w),
              o.cpu_iters);
  std::printf("| case | ms | GB/s (read+written) | threaded memcpy GB/s | ratio | target | met |\n"
              "|---|---|---|---|---|---|---|\n");
  int missed = 0;
  for (ferry::bench::KernelCase& c : cases) {
    c.bind(in.data(), out.data());
    const std::size_t moved = c.bytes_read() + c.output_bytes();
    const double convert_ms = time_cpu(o.cpu_iters, [&] {
      check(ferry_transform_apply(ctx, &c.source, &c.transform, &c.output, nullptr), c.name.c_str());
    });
    // A copy of moved/2 bytes reads and writes `moved` bytes in all.
    const std::int64_t half = static_cast<std::int64_t>(moved / 2), piece = 1 << 20;
    const double memcpy_ms = time_cpu(o.cpu_iters, [&] {
      pool.parallel_for(0, (half + piece - 1) / piece, [&](std::int64_t b, std::int64_t e) {
        const std::int64_t lo = b * piece, hi = std::min(half, e * piece);
        std::memcpy(copy.data() + lo, out.data() + lo, static_cast<std::size_t>(hi - lo));
      });
    });
    const double convert_gbs = moved / convert_ms / 1e6, memcpy_gbs = moved / memcpy_ms / 1e6;
    const double ratio = convert_gbs / memcpy_gbs;
    const bool met = ratio >= kCpuTarget;
    missed += met ? 0 : 1;
    std::printf("| %s | %.2f | %.1f | %.1f | %.3f | >= %.2f | %s |\n", c.name.c_str(), convert_ms, convert_gbs,
                memcpy_gbs, ratio, kCpuTarget, met ? "yes" : "no");
  }
  std::printf("cpu table: %d of %zu rows below target\n", missed, cases.size());
  ferry_context_destroy(ctx);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::atoll(argv[++i]) : 0; };
    if (a == "--n") o.n = next();
    else if (a == "--h") o.h = next();
    else if (a == "--w") o.w = next();
    else if (a == "--iters") o.iters = static_cast<int>(next());
    else if (a == "--cpu-iters") o.cpu_iters = static_cast<int>(next());
    else if (a == "--no-cpu") o.cpu = false;
    else if (a == "--no-gpu") o.gpu = false;
    else if (a == "--list") o.list = true;
    else if (a == "--case" && i + 1 < argc) o.only = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--n N] [--h H] [--w W] [--iters I] [--cpu-iters I] [--no-cpu] [--no-gpu] [--list] "
                   "[--case TEXT]\n",
                   argv[0]);
      return 2;
    }
  }
  if (o.n <= 0 || o.h <= 0 || o.w <= 0 || o.iters <= 0 || o.cpu_iters <= 0) {
    std::fprintf(stderr, "sizes and iteration counts must be positive\n");
    return 2;
  }
  if (o.list) {
    list_cases(o);
    return 0;
  }
  if (o.gpu) bench_gpu(o);
  if (o.cpu) bench_cpu(o);
  return 0;
}
