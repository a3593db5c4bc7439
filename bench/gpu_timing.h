// Timing for the GPU benchmarks (ferry_bench_frame, ferry_bench_resize):
// latency percentiles of one call followed by a synchronize (host clock,
// after a warm-up), back-to-back rates between two CUDA events on the
// caller's stream, and the median of bursts of calls. CUDA builds only.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "ferry/ferry.h"

namespace ferry::bench {

inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

inline void check_ferry(ferry_status s, const char* what) {
  if (s != FERRY_OK) {
    std::fprintf(stderr, "%s failed: %s\n", what, ferry_last_error());
    std::exit(1);
  }
}

inline double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

inline double us_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count();
}

// Times `calls` calls of `one` back to back on `stream` with events, after a
// warm-up; returns calls per second.
template <typename Fn>
double rate(cudaStream_t stream, int calls, Fn&& one) {
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < 10; ++i) one();  // warm-up
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int i = 0; i < calls; ++i) one();
  check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return calls / (ms / 1e3);
}

// p50 and p99 latency in microseconds of `one` followed by a synchronize of
// `stream`, host clock, after 20 warm-up calls.
template <typename Fn>
std::pair<double, double> latency(cudaStream_t stream, int calls, Fn&& one) {
  std::vector<double> us;
  for (int i = 0; i < calls + 20; ++i) {
    const auto t = std::chrono::steady_clock::now();
    one();
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (i >= 20) us.push_back(us_since(t));
  }
  return {percentile(us, 0.5), percentile(us, 0.99)};
}

// Milliseconds per call of `fn` on `stream`: the median of bursts of 10 calls
// between two events (the host's launch cost hidden as in a pipeline). Each
// burst's first event follows a call of its own, so that the host prepares
// the burst's first call while the device runs that one: recorded on an idle
// stream, the event had counted the first call's host time (a table of 256
// resized samples, about 45 us on an H200 host) as device time, 6 % of a
// burst of 66 us kernels, however fast the device ran them.
template <typename Fn>
double burst_ms(cudaStream_t stream, int iters, Fn&& fn) {
  cudaEvent_t a, b;
  check_cuda(cudaEventCreate(&a), "cudaEventCreate");
  check_cuda(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 5; ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    fn();
    check_cuda(cudaEventRecord(a, stream), "cudaEventRecord");
    for (int c = 0; c < 10; ++c) fn();
    check_cuda(cudaEventRecord(b, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(b), "cudaEventSynchronize");
    float t = 0;
    check_cuda(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    ms.push_back(t / 10.0);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return percentile(ms, 0.5);
}

// Seconds per batch of `submit()` (which returns a submitted ferry_batch_t)
// kept `in_flight` deep, each waited for and released in turn: the median of
// three runs of `batches`, after a warm-up (pools, ring, kernels loaded).
template <typename Submit>
double pipelined_seconds(int in_flight, int batches, Submit&& submit) {
  auto run = [&](int count) {
    std::vector<ferry_batch_t> queue;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
      queue.push_back(submit());
      if (static_cast<int>(queue.size()) >= in_flight) {
        check_ferry(ferry_batch_wait(queue.front()), "ferry_batch_wait");
        check_ferry(ferry_batch_release(queue.front()), "ferry_batch_release");
        queue.erase(queue.begin());
      }
    }
    for (ferry_batch_t b : queue) {
      check_ferry(ferry_batch_wait(b), "ferry_batch_wait");
      check_ferry(ferry_batch_release(b), "ferry_batch_release");
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / count;
  };
  run(3);
  std::vector<double> seconds;
  for (int r = 0; r < 3; ++r) seconds.push_back(run(batches));
  return percentile(seconds, 0.5);
}

// What `queue` queues on `stream` from this thread (it returns false where a
// call failed), captured once as a CUDA graph and instantiated: replaying it
// is one cudaGraphLaunch. NULL, with `why` set, where the capture failed.
template <typename Queue>
cudaGraphExec_t capture_graph(cudaStream_t stream, Queue&& queue, std::string& why) {
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    why = "cudaStreamBeginCapture failed";
    return nullptr;
  }
  const bool queued = queue();
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec = nullptr;
  if (!queued || ended != cudaSuccess || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    why = queued ? std::string("capture: ") + cudaGetErrorString(ended)
                 : std::string("in capture: ") + ferry_last_error();
    exec = nullptr;
  }
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaGetLastError();  // a failed capture leaves no sticky error
  return exec;
}

}  // namespace ferry::bench
