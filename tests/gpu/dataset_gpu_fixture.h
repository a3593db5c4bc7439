// The resident-dataset GPU tests' fixture: a CUDA and a CPU context that
// build datasets from the same source (their descriptions checked to agree),
// the CPU backend's gather as the reference, and the GPU's gather into a
// caller's buffer (poisoned, between canaries) or into memory ferry
// allocates (each block filled with poison before it goes back, so a later
// gather that gets it again from the cache starts from poison). Also two
// streams of the test's own: one to hold work back, one to read outputs on.
// CUDA builds only.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/dataset_gpu_cases.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/gpu/window_case_check.h"  // canary, guard_bytes, poison
#include "tests/support/test_context.h"

namespace ferry::test {

// GPU outputs start as kGpuPoison, CPU outputs as window_case_check.h's
// poison (0xCD): a byte neither backend wrote can never compare equal.
inline constexpr std::uint8_t kGpuPoison = 0xFF;

// Device memory with canary zones before and after `bytes` of poison.
struct GuardedOutput {
  std::uint8_t* base = nullptr;
  std::size_t bytes = 0;
  cudaError_t status;
  explicit GuardedOutput(std::size_t n) : bytes(n) {
    status = cudaMalloc(reinterpret_cast<void**>(&base), guard_bytes + n + guard_bytes);
    if (status == cudaSuccess) status = cudaMemset(base, canary, guard_bytes + n + guard_bytes);
    if (status == cudaSuccess) status = cudaMemset(base + guard_bytes, kGpuPoison, n);
    // cudaMemset is queued on the legacy stream, which ferry's non-blocking streams do not follow.
    if (status == cudaSuccess) status = cudaDeviceSynchronize();
  }
  ~GuardedOutput() { cudaFree(base); }
  GuardedOutput(const GuardedOutput&) = delete;
  GuardedOutput& operator=(const GuardedOutput&) = delete;
  void* data() const { return base + guard_bytes; }
  ferry_output output() const {
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = data(), o.bytes = bytes;
    return o;
  }
  // The output bytes, copied back on `stream` (after what it waits for), or
  // `problem` set when the copy fails or a canary was overwritten.
  std::vector<std::uint8_t> read(cudaStream_t stream, std::string& problem) const {
    std::vector<std::uint8_t> all(guard_bytes + bytes + guard_bytes);
    const cudaError_t copied = cudaMemcpyAsync(all.data(), base, all.size(), cudaMemcpyDeviceToHost, stream);
    const cudaError_t synced = cudaStreamSynchronize(stream);
    if (copied != cudaSuccess || synced != cudaSuccess) {
      problem = std::string("copy back: ") + cudaGetErrorString(copied != cudaSuccess ? copied : synced);
      return {};
    }
    for (std::size_t b = 0; b < guard_bytes; ++b)
      if (all[b] != canary || all[guard_bytes + bytes + b] != canary) {
        problem = "a canary beside the output was overwritten";
        return {};
      }
    return std::vector<std::uint8_t>(all.begin() + guard_bytes, all.end() - guard_bytes);
  }
};

// One dataset of a source on each context.
struct DatasetPair {
  ferry_dataset_t cpu = nullptr, gpu = nullptr;
};

class DatasetGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    FERRY_REQUIRE_GPU();
    cpu_ = make_test_context(FERRY_DEVICE_CPU, 4);
    gpu_ = make_test_context(FERRY_DEVICE_CUDA, 4);
    ASSERT_NE(cpu_, nullptr);
    ASSERT_NE(gpu_, nullptr);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&reader_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    cases_.clear();  // pinned sources go back to the GPU context before it goes
    if (reader_ != nullptr) cudaStreamDestroy(reader_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    ferry_context_destroy(gpu_);
    ferry_context_destroy(cpu_);
  }

  ferry_stats stats() {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    EXPECT_EQ(ferry_stats_get(&s, gpu_), FERRY_OK) << ferry_last_error();
    return s;
  }

  static ferry_dataset_info info_of(ferry_dataset_t ds) {
    ferry_dataset_info info;
    ferry_dataset_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_dataset_get_info(&info, ds), FERRY_OK) << ferry_last_error();
    return info;
  }

  // The same source on both contexts; their descriptions agree but for the device.
  DatasetPair create(const SourceCase& s) {
    DatasetPair p;
    EXPECT_EQ(ferry_dataset_create(&p.cpu, cpu_, &s.source, &s.options), FERRY_OK) << s.name << ": " << ferry_last_error();
    EXPECT_EQ(ferry_dataset_create(&p.gpu, gpu_, &s.source, &s.options), FERRY_OK) << s.name << ": " << ferry_last_error();
    if (p.cpu == nullptr || p.gpu == nullptr) return p;
    const ferry_dataset_info c = info_of(p.cpu), g = info_of(p.gpu);
    EXPECT_EQ(g.device_kind, FERRY_DEVICE_CUDA) << s.name;
    EXPECT_GE(g.device_index, 0) << s.name;
    EXPECT_EQ(c.device_kind, FERRY_DEVICE_CPU) << s.name;
    EXPECT_EQ(g.count, c.count) << s.name;
    EXPECT_EQ(g.source_count, c.source_count) << s.name;
    EXPECT_EQ(g.h, c.h) << s.name;
    EXPECT_EQ(g.w, c.w) << s.name;
    EXPECT_EQ(g.c, c.c) << s.name;
    EXPECT_EQ(g.layout, c.layout) << s.name;
    EXPECT_EQ(g.variable_sizes, c.variable_sizes) << s.name;
    EXPECT_EQ(g.bytes, c.bytes) << s.name;
    EXPECT_EQ(g.epoch_size, c.epoch_size) << s.name;
    EXPECT_EQ(g.placement, c.placement) << s.name;
    EXPECT_EQ(g.rank, c.rank) << s.name;
    EXPECT_GT(g.upload_seconds, 0.0) << s.name;
    return p;
  }

  // The CPU dataset's gather into a host buffer poisoned with 0xCD.
  std::vector<std::uint8_t> cpu_gather(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                       const ferry_transform& t) {
    std::vector<std::uint8_t> out(gather_bytes(info_of(ds), static_cast<std::int64_t>(indices.size()), t), poison);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out.data(), o.bytes = out.size();
    ferry_batch_t b = nullptr;
    EXPECT_EQ(ferry_dataset_gather(&b, ds, indices.data(), static_cast<std::int64_t>(indices.size()), &t, &o, nullptr),
              FERRY_OK)
        << ferry_last_error();
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
    ferry_batch_release(b);
    return out;
  }

  // The GPU dataset's gather into a caller's buffer (poisoned, between canaries).
  std::vector<std::uint8_t> gpu_gather_into_caller(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                                   const ferry_transform& t, std::string& problem) {
    const GuardedOutput out(gather_bytes(info_of(ds), static_cast<std::int64_t>(indices.size()), t));
    if (out.status != cudaSuccess) {
      problem = std::string("output buffer: ") + cudaGetErrorString(out.status);
      return {};
    }
    const ferry_output o = out.output();
    ferry_batch_t b = nullptr;
    if (ferry_dataset_gather(&b, ds, indices.data(), static_cast<std::int64_t>(indices.size()), &t, &o, nullptr) !=
            FERRY_OK ||
        ferry_batch_wait(b) != FERRY_OK) {
      problem = std::string("gather: ") + ferry_last_error();
      ferry_batch_release(b);
      return {};
    }
    ferry_batch_release(b);
    return out.read(stream_, problem);
  }

  // The GPU dataset's gather into memory ferry allocates. Each block is
  // filled with kGpuPoison before it goes back, so a later gather that gets
  // it again starts from poison (counted in reused_poisoned_).
  std::vector<std::uint8_t> gpu_gather_into_ferry(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                                  const ferry_transform& t, std::string& problem) {
    ferry_batch_t b = nullptr;
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    if (ferry_dataset_gather(&b, ds, indices.data(), static_cast<std::int64_t>(indices.size()), &t, nullptr,
                             nullptr) != FERRY_OK ||
        ferry_batch_wait(b) != FERRY_OK || ferry_batch_describe_output(&info, b) != FERRY_OK) {
      problem = std::string("gather: ") + ferry_last_error();
      ferry_batch_release(b);
      return {};
    }
    const auto known = poisoned_.find(info.data);
    if (known != poisoned_.end() && known->second >= info.bytes) ++reused_poisoned_;
    ++ferry_outputs_;
    std::vector<std::uint8_t> out(info.bytes);
    if (cudaMemcpy(out.data(), info.data, info.bytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemset(info.data, kGpuPoison, info.bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
      problem = "copy back or poison";
    poisoned_[info.data] = info.bytes;
    ferry_batch_release(b);
    // The block's free is stream-ordered: once the device is idle the cache may hand it out to any stream.
    if (cudaDeviceSynchronize() != cudaSuccess) problem = "cudaDeviceSynchronize";
    return out;
  }

  ferry_context_t cpu_ = nullptr, gpu_ = nullptr;
  cudaStream_t stream_ = nullptr, reader_ = nullptr;
  std::vector<std::unique_ptr<SourceCase>> cases_;
  std::map<void*, std::size_t> poisoned_;  // ferry-allocated blocks the test filled with kGpuPoison
  int ferry_outputs_ = 0, reused_poisoned_ = 0;
};

// The device's free memory now (cudaMemGetInfo).
inline std::size_t device_free_bytes() {
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  return free_bytes;
}

}  // namespace ferry::test
