// Where a resident dataset's gathers and memory live on the GPU: a gather
// handed off to the caller's stream is read on that stream with no host
// wait; a dataset destroyed while its gather is held in flight leaves the
// batch its memory and its output right; the resident statistics count the
// device memory really taken and given back.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/gpu/dataset_gpu_fixture.h"
#include "tests/gpu/gpu_compare.h"
#include "tests/support/stream_gate.h"

using namespace ferry::test;

// One gather of `t` run to its end before a test closes a gate, so that its
// kernels are loaded. CUDA loads a module at its kernel's first launch
// (CUDA_MODULE_LOADING=LAZY, the default), and a load waits behind the
// gate's host function: run in a process of its own (ctest), a gated
// gather's call blocked until the gate's 30 s limit ran out (H200; at once
// with EAGER loading). Within the whole suite earlier tests had loaded them.
namespace {
void load_gather_kernels(ferry_dataset_t d, const std::vector<std::int64_t>& indices, const ferry_transform& t) {
  const auto n = static_cast<std::int64_t>(indices.size());
  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_dataset_gather(&b, d, indices.data(), n, &t, nullptr, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
}
}  // namespace

// A big gather handed off to the caller's stream: work queued there after
// the hand-off sees the finished output without any host wait.
TEST_F(DatasetGpu, HandOffToACallersStreamIsReadOnThatStream) {
  std::mt19937 rng(23);
  cases_.push_back(one_buffer("pageable buffer", 4096, 32, 32, rng));
  const DatasetPair p = create(*cases_.back());
  ASSERT_NE(p.gpu, nullptr);
  std::vector<std::int64_t> indices(4096);
  ASSERT_EQ(ferry_dataset_epoch(indices.data(), 4096, p.gpu, 3, 0, 1), FERRY_OK);
  ferry_augment augment;
  const ferry_transform t = jitter_recipe(augment, 8);
  const std::vector<std::uint8_t> want = cpu_gather(p.cpu, indices, t);
  load_gather_kernels(p.gpu, indices, t);

  {
    // ferry_batch_handoff onto reader_, the gather held back by a gate: the
    // whole read is queued on reader_ while the gate is closed, so if reader_
    // did not wait for the batch it would copy the poison.
    SCOPED_TRACE("ferry_batch_handoff, caller's output");
    GuardedOutput out(want.size());
    ASSERT_EQ(out.status, cudaSuccess);
    void* host = nullptr;  // pinned: a copy into pageable memory would block the host until the gate opens
    ASSERT_EQ(ferry_memory_alloc_host(&host, gpu_, want.size()), FERRY_OK);
    StreamGate gate;
    ASSERT_EQ(gate.close(stream_), cudaSuccess);
    ferry_submit_options so;
    ferry_submit_options_init(&so, sizeof so);
    so.handoff_stream = stream_, so.has_handoff_stream = 1;  // a caller's output waits for its stream: the gate
    const ferry_output o = out.output();
    ferry_batch_t b = nullptr;
    EXPECT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), 4096, &t, &o, &so), FERRY_OK) << ferry_last_error();
    EXPECT_EQ(ferry_batch_handoff(b, reader_), FERRY_OK) << ferry_last_error();
    EXPECT_EQ(cudaMemcpyAsync(host, out.data(), want.size(), cudaMemcpyDeviceToHost, reader_), cudaSuccess);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(cudaStreamQuery(reader_), cudaErrorNotReady) << "the hand-off stream did not wait for the gather";
    EXPECT_EQ(ferry_batch_query(b), FERRY_ERR_NOT_READY);
    gate.open();
    EXPECT_EQ(cudaStreamSynchronize(reader_), cudaSuccess);
    EXPECT_FALSE(gate.timed_out());
    const auto* read = static_cast<const std::uint8_t*>(host);
    EXPECT_EQ(first_difference(std::vector<std::uint8_t>(read, read + want.size()), want), "");
    std::string problem;
    out.read(reader_, problem);  // the canaries
    EXPECT_EQ(problem, "");
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
    ferry_memory_free_host(gpu_, host);
  }
  {
    // The hand-off in the gather's options, into memory ferry allocates:
    // first a gather of the same size whose block is poisoned and given back.
    SCOPED_TRACE("options.handoff_stream, ferry's output");
    std::string problem;
    EXPECT_EQ(first_difference(gpu_gather_into_ferry(p.gpu, indices, t, problem), want), "");
    ASSERT_EQ(problem, "");
    ferry_submit_options so;
    ferry_submit_options_init(&so, sizeof so);
    so.handoff_stream = reader_, so.has_handoff_stream = 1;
    ferry_batch_t b = nullptr;
    ASSERT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), 4096, &t, nullptr, &so), FERRY_OK) << ferry_last_error();
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    ASSERT_EQ(ferry_batch_describe_output(&info, b), FERRY_OK);
    ASSERT_EQ(info.bytes, want.size());
    std::printf("[          ] the hand-off's output %s the block poisoned before\n",
                poisoned_.count(info.data) ? "reuses" : "does not reuse");
    void* host = nullptr;  // pinned: the read is queued on reader_, truly asynchronous
    ASSERT_EQ(ferry_memory_alloc_host(&host, gpu_, info.bytes), FERRY_OK);
    EXPECT_EQ(cudaMemcpyAsync(host, info.data, info.bytes, cudaMemcpyDeviceToHost, reader_), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(reader_), cudaSuccess);
    const std::vector<std::uint8_t> got(static_cast<std::uint8_t*>(host), static_cast<std::uint8_t*>(host) + info.bytes);
    EXPECT_EQ(first_difference(got, want), "");
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);  // no wait: the hand-off was enough
    ferry_memory_free_host(gpu_, host);
  }
  ferry_dataset_destroy(p.gpu);
  ferry_dataset_destroy(p.cpu);
}

// The gather is held in flight by a gate on its hand-off stream while its
// dataset is destroyed: the batch keeps the memory, and its output is right.
TEST_F(DatasetGpu, ADatasetDestroyedWhileItsGatherIsInFlightStillGivesItsOutput) {
  std::mt19937 rng(29);
  cases_.push_back(one_buffer("pageable buffer", 2048, 32, 32, rng));
  const DatasetPair p = create(*cases_.back());
  ASSERT_NE(p.gpu, nullptr);
  const std::uint64_t bytes = info_of(p.gpu).bytes;
  std::vector<std::int64_t> indices(2048);
  ASSERT_EQ(ferry_dataset_epoch(indices.data(), 2048, p.gpu, 4, 1, 1), FERRY_OK);
  ferry_augment augment;
  const ferry_transform t = cifar_recipe(augment, 3);
  const std::vector<std::uint8_t> want = cpu_gather(p.cpu, indices, t);
  const ferry_stats before = stats();
  ASSERT_EQ(before.resident_bytes, bytes);
  load_gather_kernels(p.gpu, indices, t);

  GuardedOutput out(want.size());
  ASSERT_EQ(out.status, cudaSuccess);
  StreamGate gate;
  ASSERT_EQ(gate.close(stream_), cudaSuccess);
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.handoff_stream = stream_, so.has_handoff_stream = 1;
  const ferry_output o = out.output();
  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), 2048, &t, &o, &so), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_batch_query(b), FERRY_ERR_NOT_READY);  // in flight for certain: the gate holds it
  ASSERT_EQ(ferry_dataset_destroy(p.gpu), FERRY_OK);
  EXPECT_EQ(ferry_dataset_destroy(p.gpu), FERRY_ERR_INVALID_HANDLE);
  ferry_dataset_info gone;
  ferry_dataset_info_init(&gone, sizeof gone);
  EXPECT_EQ(ferry_dataset_get_info(&gone, p.gpu), FERRY_ERR_INVALID_HANDLE);
  // The handle is gone, the memory is not: the batch holds it.
  EXPECT_EQ(stats().resident_bytes, bytes);
  EXPECT_EQ(stats().resident_datasets, 1u);
  gate.open();
  ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
  EXPECT_FALSE(gate.timed_out());
  std::string problem;
  const std::vector<std::uint8_t> got = out.read(stream_, problem);
  ASSERT_EQ(problem, "");
  EXPECT_EQ(first_difference(got, want), "");
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  EXPECT_EQ(stats().resident_bytes, 0u);
  EXPECT_EQ(stats().resident_datasets, 0u);
  ferry_dataset_destroy(p.cpu);
}

// The statistics count each dataset's device memory, which really is taken
// from the device and given back at destroy.
TEST_F(DatasetGpu, StatisticsCountTheDeviceMemoryHeld) {
  std::mt19937 rng(31);
  cases_.push_back(one_buffer("96 MiB", 32768, 32, 32, rng));
  cases_.push_back(one_buffer("small", 10, 8, 8, rng));
  ferry_dataset_t big = nullptr, small = nullptr;
  // The upload's own buffers (staging ring, stream inputs) are made by a first dataset.
  ASSERT_EQ(ferry_dataset_create(&small, gpu_, &cases_[1]->source, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto free_before = static_cast<std::int64_t>(device_free_bytes());
  ASSERT_EQ(ferry_dataset_create(&big, gpu_, &cases_[0]->source, nullptr), FERRY_OK) << ferry_last_error();
  const auto free_with = static_cast<std::int64_t>(device_free_bytes());
  const std::uint64_t big_bytes = info_of(big).bytes, small_bytes = info_of(small).bytes;
  EXPECT_EQ(big_bytes, 32768u * 32 * 32 * 3);
  EXPECT_GE(free_before - free_with, static_cast<std::int64_t>(big_bytes)) << "the dataset is not in device memory";
  ferry_stats s = stats();
  EXPECT_EQ(s.resident_bytes, big_bytes + small_bytes);
  EXPECT_EQ(s.resident_datasets, 2u);
  ASSERT_EQ(ferry_stats_reset(gpu_), FERRY_OK);  // a gauge: a reset leaves it
  EXPECT_EQ(stats().resident_bytes, big_bytes + small_bytes);
  ASSERT_EQ(ferry_dataset_destroy(big), FERRY_OK);
  EXPECT_GE(static_cast<std::int64_t>(device_free_bytes()) - free_with, static_cast<std::int64_t>(big_bytes))
      << "the dataset's memory did not go back";
  s = stats();
  EXPECT_EQ(s.resident_bytes, small_bytes);
  EXPECT_EQ(s.resident_datasets, 1u);
  ASSERT_EQ(ferry_dataset_destroy(small), FERRY_OK);
  EXPECT_EQ(stats().resident_bytes, 0u);
  EXPECT_EQ(stats().resident_datasets, 0u);
}

#endif
