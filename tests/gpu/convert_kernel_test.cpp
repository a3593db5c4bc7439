// The CUDA conversion kernels against the CPU backend, for every combination
// of convert_test_cases.h; outputs poisoned first. float32 within 1 ulp,
// float16/bfloat16/uint8 identical (ferry's kernels are in fact bit-identical).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/support/convert_test_cases.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "c_api/struct_convert.h"
#include "core/convert/converter.h"
#include "core/device/make_runtime.h"
#include "core/memory/memory_system.h"

namespace {

using namespace ferry::test;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

struct Contexts {
  ferry_context_t cpu = nullptr, gpu = nullptr;
  Contexts() {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CPU;
    o.cpu_threads = 4;
    EXPECT_EQ(ferry_context_create(&cpu, &o), FERRY_OK) << ferry_last_error();
    o.device_kind = FERRY_DEVICE_CUDA;
    EXPECT_EQ(ferry_context_create(&gpu, &o), FERRY_OK) << ferry_last_error();
  }
  ~Contexts() {
    ferry_context_destroy(gpu);
    ferry_context_destroy(cpu);
  }
};

// Device memory for one case at a time, placed so that every pointer keeps
// its host address modulo 256 (unaligned cases stay unaligned on the GPU).
struct Arena {
  std::uint8_t* base = nullptr;
  std::size_t size = 0, used = 0;
  cudaError_t status = cudaSuccess;
  explicit Arena(std::size_t bytes) : size(bytes), status(cudaMalloc(reinterpret_cast<void**>(&base), bytes)) {}
  ~Arena() { cudaFree(base); }
  std::uint8_t* place(const void* host_ptr, std::size_t bytes) {
    used = (used + 255) / 256 * 256 + (reinterpret_cast<std::uintptr_t>(host_ptr) & 255);
    std::uint8_t* p = base + used;
    used += bytes;
    EXPECT_LE(used, size);
    return p;
  }
};

// Compares the GPU's output buffer with the CPU's, gaps included.
std::string compare(const std::vector<std::uint8_t>& gpu, const std::vector<std::uint8_t>& cpu, ferry_dtype dtype) {
  if (dtype == FERRY_DTYPE_FLOAT32) {
    for (std::size_t b = 0; b + 4 <= gpu.size(); b += 4) {
      std::int32_t g, c;
      std::memcpy(&g, &gpu[b], 4);
      std::memcpy(&c, &cpu[b], 4);
      if (g != c && (g - c > 1 || c - g > 1))
        return "float32 at byte " + std::to_string(b) + " differs by more than 1 ulp";
    }
    return "";
  }
  for (std::size_t b = 0; b < gpu.size(); ++b)
    if (gpu[b] != cpu[b]) return "byte " + std::to_string(b) + ": gpu " + std::to_string(gpu[b]) + ", cpu " +
                                 std::to_string(cpu[b]);
  return "";
}

}  // namespace

TEST(ConvertGpu, EveryCombinationMatchesTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  Contexts ctx;
  Arena in(64 << 20), out(64 << 20);
  // Another process (a test that exhausts GPU memory on purpose) may hold the memory: say so.
  ASSERT_EQ(in.status, cudaSuccess) << "cudaMalloc of the 64 MiB input arena: " << cudaGetErrorString(in.status);
  ASSERT_EQ(out.status, cudaSuccess) << "cudaMalloc of the 64 MiB output arena: " << cudaGetErrorString(out.status);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int cases = 0, failures = 0;
  for_each_case_key([&](const CaseKey& key, int index) {
    auto c = make_case(key, static_cast<std::uint32_t>(index) * 2654435761u + 1);
    ASSERT_NE(c, nullptr);
    ++cases;
    std::vector<std::uint8_t> want(c->output_bytes, 0xCD), got(c->output_bytes, 0);
    c->output.data = want.data();
    ASSERT_EQ(ferry_transform_apply(ctx.cpu, &c->source, &c->transform, &c->output, nullptr), FERRY_OK)
        << ferry_last_error();
    in.used = out.used = 0;
    ferry_source s = c->source;
    std::vector<const void*> device_samples;
    if (s.samples) {
      for (std::int64_t i = 0; i < s.n; ++i) {
        std::uint8_t* d = in.place(s.samples[i], s.sample_bytes);
        ASSERT_EQ(cudaMemcpyAsync(d, s.samples[i], s.sample_bytes, cudaMemcpyHostToDevice, stream), cudaSuccess)
            << c->name;
        device_samples.push_back(d);
      }
      s.samples = device_samples.data();
    } else {
      std::uint8_t* d = in.place(s.data, s.bytes);
      ASSERT_EQ(cudaMemcpyAsync(d, s.data, s.bytes, cudaMemcpyHostToDevice, stream), cudaSuccess) << c->name;
      s.data = d;
    }
    // Poison first. Everything on the call's stream: a non-blocking stream
    // does not wait for the legacy stream's cudaMemset or cudaMemcpy (whose
    // DMA from pageable memory may still run when it returns).
    std::uint8_t* d_out = out.place(want.data(), c->output_bytes);
    ASSERT_EQ(cudaMemsetAsync(d_out, 0xCD, c->output_bytes, stream), cudaSuccess) << c->name;
    ferry_output o = c->output;
    o.data = d_out;
    ASSERT_EQ(ferry_transform_apply(ctx.gpu, &s, &c->transform, &o, stream), FERRY_OK)
        << c->name << ": " << ferry_last_error();
    device_samples.assign(device_samples.size(), nullptr);  // the array may be reused at once
    ASSERT_EQ(cudaMemcpyAsync(got.data(), d_out, c->output_bytes, cudaMemcpyDeviceToHost, stream), cudaSuccess)
        << c->name;
    const cudaError_t synced = cudaStreamSynchronize(stream);
    ASSERT_EQ(synced, cudaSuccess) << c->name << ": the kernel failed: " << cudaGetErrorString(synced);
    const std::string diff = compare(got, want, key.dtype);
    if (!diff.empty() && ++failures <= 10) ADD_FAILURE() << "case " << index << " " << c->name << ": " << diff;
  });
  cudaStreamDestroy(stream);
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_GT(cases, 20000);
}

// The staging pipeline's use: chunks of whole samples, each staged into a
// packed device copy, converted with per-sample tables indexed globally, on
// several streams from several threads at once; the result equals the CPU's.
TEST(ConvertGpu, ChunksOnManyStreamsMatchTheCpu) {
  FERRY_REQUIRE_GPU();
  CaseKey key{FERRY_DTYPE_BFLOAT16, FERRY_LAYOUT_NHWC, ChannelCase::bgra_to_rgb, CropCase::per_sample,
              MirrorCase::per_sample, true, FERRY_LAYOUT_NHWC, SourceForm::pitched_unaligned, false, 3};
  auto c = make_case(key, 99);
  ASSERT_NE(c, nullptr);
  // 600 samples: the per-sample table outgrows its first 16 KiB.
  const std::int64_t n = 600;
  const std::int64_t pitch = c->source.stride_h, h = c->source.h, w = c->source.w;
  c->source.n = n;
  c->source.stride_n = pitch * h;
  c->data.assign(static_cast<std::size_t>(pitch * h * n), 0);
  for (std::size_t b = 0; b < c->data.size(); ++b) c->data[b] = static_cast<std::uint8_t>(b * 2654435761u >> 24);
  c->source.data = c->data.data();
  c->source.bytes = c->data.size();
  c->mean.resize(static_cast<std::size_t>(n * 3), 0.25f);
  c->stdev.resize(static_cast<std::size_t>(n * 3), 0.5f);
  c->crops.assign(static_cast<std::size_t>(n), c->crops[0]);
  for (std::int64_t i = 0; i < n; ++i) c->crops[static_cast<std::size_t>(i)].x = i % 2;
  c->mirrors.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) c->mirrors[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i % 3);
  c->transform.per_sample_mean = c->mean.data();
  c->transform.per_sample_std = c->stdev.data();
  c->transform.per_sample_crop = c->crops.data();
  c->transform.per_sample_mirror = c->mirrors.data();
  c->transform.per_sample_count = n;
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_transform_describe_output(&info, &c->source, &c->transform), FERRY_OK) << ferry_last_error();
  c->output.bytes = info.bytes;

  std::vector<std::uint8_t> want(info.bytes, 0xCD), got(info.bytes, 0);
  Contexts ctx;
  c->output.data = want.data();
  ASSERT_EQ(ferry_transform_apply(ctx.cpu, &c->source, &c->transform, &c->output, nullptr), FERRY_OK)
      << ferry_last_error();

  const ferry::core::OutputDesc out_desc = ferry::api::to_core(c->output);
  const ferry::core::ConvertPlan plan =
      ferry::core::make_convert_plan(ferry::api::to_core(c->source), ferry::api::to_core(c->transform), &out_desc);
  ferry::core::MemorySystem memory(ferry::core::make_runtime(ferry::core::DeviceKind::Cuda, 0), ferry::core::ContextOptions{});
  ferry::core::Converter gpu(memory, 1);
  const std::int64_t packed_sample = w * 4 * h;  // the staged copy drops the row padding
  std::uint8_t *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&d_in), static_cast<std::size_t>(packed_sample * n)));
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&d_out), info.bytes));
  CUDA_OK(cudaMemset(d_out, 0xCD, info.bytes));
  CUDA_OK(cudaDeviceSynchronize());  // the workers' non-blocking streams do not wait for the legacy stream
  std::vector<std::thread> workers;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&, t] {
      cudaStream_t stream;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      for (std::int64_t first = t * 7; first < n; first += 28) {  // chunks of 7 samples
        const std::int64_t count = std::min<std::int64_t>(7, n - first);
        for (std::int64_t i = first; i < first + count; ++i)
          cudaMemcpy2DAsync(d_in + i * packed_sample, static_cast<std::size_t>(w * 4),
                            c->data.data() + i * c->source.stride_n, static_cast<std::size_t>(pitch),
                            static_cast<std::size_t>(w * 4), static_cast<std::size_t>(h), cudaMemcpyHostToDevice,
                            stream);
        ferry::core::SourceView view;
        view.base = d_in + first * packed_sample;
        view.strides = {packed_sample, 1, w * 4, 4};
        try {
          gpu.convert(plan, view, first, count, d_out, stream);
        } catch (const std::exception& e) {
          ++errors;
          ADD_FAILURE() << e.what();
        }
      }
      if (cudaStreamSynchronize(stream) != cudaSuccess) ++errors;
      cudaStreamDestroy(stream);
    });
  }
  for (auto& th : workers) th.join();
  CUDA_OK(cudaMemcpy(got.data(), d_out, info.bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_in);
  cudaFree(d_out);
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(compare(got, want, FERRY_DTYPE_BFLOAT16), "");
}

// With the device memory exhausted, a call that needs a per-sample table on a
// new stream reports FERRY_ERR_OUT_OF_MEMORY (or succeeds from memory the
// pool kept): never a crash or a wrong result; once memory is back it works.
TEST(ConvertGpu, OutOfDeviceMemoryIsReportedCleanly) {
  FERRY_REQUIRE_GPU();
  const std::int64_t n = 4, h = 8, w = 8;
  const std::size_t sample_bytes = static_cast<std::size_t>(h * w * 3), out_bytes = sample_bytes * 4 * n;
  std::vector<std::uint8_t> host(sample_bytes * n);
  for (std::size_t b = 0; b < host.size(); ++b) host[b] = static_cast<std::uint8_t>(b * 2654435761u >> 24);
  std::uint8_t *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&d_in), host.size()));
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&d_out), out_bytes));
  CUDA_OK(cudaMemcpy(d_in, host.data(), host.size(), cudaMemcpyHostToDevice));
  std::vector<const void*> host_samples, device_samples;
  for (std::int64_t i = 0; i < n; ++i) {
    host_samples.push_back(host.data() + i * sample_bytes);
    device_samples.push_back(d_in + i * sample_bytes);
  }
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.samples = host_samples.data();
  s.sample_bytes = sample_bytes;
  s.n = n, s.h = h, s.w = w, s.c = 3;
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.bytes = out_bytes;
  Contexts ctx;
  std::vector<std::uint8_t> want(out_bytes), got(out_bytes);
  o.data = want.data();
  ASSERT_EQ(ferry_transform_apply(ctx.cpu, &s, nullptr, &o, nullptr), FERRY_OK) << ferry_last_error();
  s.samples = device_samples.data();
  o.data = d_out;

  CUDA_OK(cudaDeviceSynchronize());
  cudaMemPool_t pool;
  CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
  CUDA_OK(cudaMemPoolTrimTo(pool, 0));
  std::vector<void*> hog;  // take every byte cudaMalloc gives
  for (std::size_t piece = std::size_t{1} << 32; piece >= (std::size_t{1} << 12);) {
    void* p = nullptr;
    if (cudaMalloc(&p, piece) == cudaSuccess) hog.push_back(p);
    else piece /= 2;
  }
  (void)cudaGetLastError();
  int oom = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    cudaStream_t stream;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) break;  // no memory for a stream
    CUDA_OK(cudaMemsetAsync(d_out, 0xCD, out_bytes, stream));
    const ferry_status status = ferry_transform_apply(ctx.gpu, &s, nullptr, &o, stream);
    if (status == FERRY_ERR_OUT_OF_MEMORY) {
      ++oom;
      EXPECT_NE(std::string(ferry_last_error()), "");
    } else {
      ASSERT_EQ(status, FERRY_OK) << "attempt " << attempt << ": " << ferry_last_error();
      CUDA_OK(cudaMemcpyAsync(got.data(), d_out, out_bytes, cudaMemcpyDeviceToHost, stream));
      CUDA_OK(cudaStreamSynchronize(stream));
      EXPECT_EQ(compare(got, want, FERRY_DTYPE_FLOAT32), "") << "attempt " << attempt;
    }
    cudaStreamDestroy(stream);
  }
  for (void* p : hog) cudaFree(p);
  std::printf("[          ] %d of 4 calls with the device memory exhausted reported FERRY_ERR_OUT_OF_MEMORY\n", oom);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_OK(cudaMemsetAsync(d_out, 0xCD, out_bytes, stream));
  ASSERT_EQ(ferry_transform_apply(ctx.gpu, &s, nullptr, &o, stream), FERRY_OK) << ferry_last_error();
  CUDA_OK(cudaMemcpyAsync(got.data(), d_out, out_bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_EQ(compare(got, want, FERRY_DTYPE_FLOAT32), "");
  cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_out);
}

#else
TEST(ConvertGpu, EveryCombinationMatchesTheCpuBackend) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
