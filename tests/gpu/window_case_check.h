// Runs one case (a WindowCase of tests/support/convert_window_cases.h, a
// ResizeCase, or any struct with source, transform and output) on the GPU and
// on the CPU backend and compares them: the device output is poisoned, and
// canary zones on both sides of its exact extent catch any write past it.
// The source (data, samples or sample_descs) is copied to the device first.
// Shared by the window, fast-path, resize and variable-size tests.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/convert_window_cases.h"
#include "tests/support/test_context.h"

namespace ferry::test {

inline constexpr std::size_t guard_bytes = 4096;
inline constexpr std::uint8_t canary = 0xA5, poison = 0xCD;

// Device buffers for one case at a time: the input, and the output between canaries.
struct DeviceBuffers {
  std::uint8_t* in = nullptr;
  std::uint8_t* out = nullptr;
  std::size_t in_bytes, out_bytes;
  cudaError_t status = cudaSuccess;
  explicit DeviceBuffers(std::size_t in_size = 1 << 20, std::size_t out_size = 4 << 20)
      : in_bytes(in_size), out_bytes(out_size) {
    status = cudaMalloc(reinterpret_cast<void**>(&in), in_bytes);
    if (status == cudaSuccess) status = cudaMalloc(reinterpret_cast<void**>(&out), out_bytes);
  }
  ~DeviceBuffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

// Runs one case on the GPU and the CPU; "" or the first problem.
template <typename Case>
std::string check_window_case(ferry_context_t cpu, ferry_context_t gpu, Case& c, DeviceBuffers& d, cudaStream_t stream) {
  const std::size_t bytes = c.output.bytes, total = guard_bytes + bytes + guard_bytes;
  if (total > d.out_bytes) return "the case's output is larger than the test's buffer";
  std::vector<std::uint8_t> want(total, canary), got(total, 0);
  std::fill(want.begin() + guard_bytes, want.begin() + guard_bytes + bytes, poison);
  ferry_output o = c.output;
  o.data = want.data() + guard_bytes;
  if (ferry_transform_apply(cpu, &c.source, &c.transform, &o, nullptr) != FERRY_OK)
    return std::string("CPU ferry_transform_apply failed: ") + ferry_last_error();

  ferry_source s = c.source;
  std::vector<const void*> device_samples;
  std::vector<ferry_sample_desc> device_descs;
  std::size_t used = 0;
  const auto upload = [&](const void* host, std::size_t n) -> const void* {
    // The host address's offset within 16 bytes is kept: unaligned cases stay unaligned.
    std::uint8_t* p = d.in + used + (reinterpret_cast<std::uintptr_t>(host) & 15);
    used += (n + 16 + 255) / 256 * 256;
    // On `stream`, like everything here: a non-blocking stream does not wait
    // for the legacy stream (a cudaMemset there raced with the kernel).
    if (used > d.in_bytes || cudaMemcpyAsync(p, host, n, cudaMemcpyHostToDevice, stream) != cudaSuccess)
      return nullptr;
    return p;
  };
  if (s.sample_descs) {
    for (std::int64_t i = 0; i < s.n; ++i) {
      ferry_sample_desc desc = s.sample_descs[i];
      desc.data = upload(desc.data, desc.bytes);
      if (desc.data == nullptr) return "uploading sample " + std::to_string(i) + " failed";
      device_descs.push_back(desc);
    }
    s.sample_descs = device_descs.data();
  } else if (s.samples) {
    for (std::int64_t i = 0; i < s.n; ++i) device_samples.push_back(upload(s.samples[i], s.sample_bytes));
    s.samples = device_samples.data();
  } else {
    s.data = upload(s.data, s.bytes);
  }
  for (const void* p : device_samples)
    if (p == nullptr) return "uploading the samples failed";
  if (s.data == nullptr && s.samples == nullptr && s.sample_descs == nullptr) return "uploading the source failed";
  if (cudaMemsetAsync(d.out, canary, total, stream) != cudaSuccess ||
      cudaMemsetAsync(d.out + guard_bytes, poison, bytes, stream) != cudaSuccess)
    return "cudaMemset failed";
  o.data = d.out + guard_bytes;
  if (ferry_transform_apply(gpu, &s, &c.transform, &o, stream) != FERRY_OK)
    return std::string("GPU ferry_transform_apply failed: ") + ferry_last_error();
  const cudaError_t copied = cudaMemcpyAsync(got.data(), d.out, total, cudaMemcpyDeviceToHost, stream);
  const cudaError_t synced = cudaStreamSynchronize(stream);
  if (copied != cudaSuccess || synced != cudaSuccess)
    return std::string("the kernel or the copy back failed: ") + cudaGetErrorString(synced);
  for (std::size_t b = 0; b < guard_bytes; ++b) {
    if (got[b] != canary) return "the GPU wrote before the output, at byte -" + std::to_string(guard_bytes - b);
    if (got[guard_bytes + bytes + b] != canary)
      return "the GPU wrote past the output of " + std::to_string(bytes) + " bytes, at byte +" + std::to_string(b);
    if (want[b] != canary || want[guard_bytes + bytes + b] != canary) return "the CPU wrote outside the output";
  }
  for (std::size_t b = guard_bytes; b < guard_bytes + bytes; ++b)
    if (got[b] != want[b])
      return "byte " + std::to_string(b - guard_bytes) + " of " + std::to_string(bytes) + ": gpu " +
             std::to_string(got[b]) + ", cpu " + std::to_string(want[b]);
  return "";
}

// What a run of window cases shares: the buffers, a CPU and a GPU context and
// a stream. `problem` says what could not be made ("" when all is ready).
struct WindowCaseRig {
  DeviceBuffers buffers;
  ferry_context_t cpu = nullptr, gpu = nullptr;
  cudaStream_t stream = nullptr;
  std::string problem;
  explicit WindowCaseRig(std::size_t in_bytes = 1 << 20, std::size_t out_bytes = 4 << 20)
      : buffers(in_bytes, out_bytes) {
    if (buffers.status != cudaSuccess)
      problem = std::string("cudaMalloc of the test's buffers: ") + cudaGetErrorString(buffers.status);
    cpu = make_test_context(FERRY_DEVICE_CPU, 4);
    gpu = make_test_context(FERRY_DEVICE_CUDA, 4);
    if (cpu == nullptr || gpu == nullptr) problem = "a context could not be made";
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) problem = "no stream";
  }
  ~WindowCaseRig() {
    if (stream != nullptr) cudaStreamDestroy(stream);
    ferry_context_destroy(gpu);
    ferry_context_destroy(cpu);
  }
  WindowCaseRig(const WindowCaseRig&) = delete;
  WindowCaseRig& operator=(const WindowCaseRig&) = delete;
  template <typename Case>
  std::string check(Case& c) {
    return check_window_case(cpu, gpu, c, buffers, stream);
  }
};

}  // namespace ferry::test
