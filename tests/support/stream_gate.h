// A gate on a CUDA stream: a host function queued on it spins until open()
// (or 30 s, so that a broken run cannot hang), so work queued behind it, and
// work made to wait for it, cannot start before. Needs no kernel of its own.
// Shared by the resident-dataset GPU tests (a gather held in flight for
// certain) and ferry_bench_dataset (a gather's hand-off stream held until the
// call has returned, so ferry's timing events around the kernel do not count
// the host's work in the call). CUDA builds only.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ferry::test {

class StreamGate {
 public:
  StreamGate() = default;
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  // Opens the gate and waits for the host function to return: a failed ASSERT
  // between close and open must not leave the function reading a gate that is gone.
  ~StreamGate() {
    open();
    while (closed_ && !returned_) std::this_thread::yield();
  }

  // Queues the host function on `stream`; cudaLaunchHostFunc's status.
  cudaError_t close(cudaStream_t stream) {
    const cudaError_t e = cudaLaunchHostFunc(stream, &StreamGate::hold, this);
    closed_ = e == cudaSuccess;
    return e;
  }
  void open() { opened_ = true; }
  // The host function gave up waiting for open(): what the gate held ran early.
  bool timed_out() const { return timed_out_; }

 private:
  // Yields rather than sleeps: the stream goes on as soon as the gate opens.
  static void CUDART_CB hold(void* self) {
    auto* g = static_cast<StreamGate*>(self);
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!g->opened_) {
      if (std::chrono::steady_clock::now() > limit) {
        g->timed_out_ = true;
        break;
      }
      std::this_thread::yield();
    }
    g->returned_ = true;
  }

  std::atomic<bool> opened_{false}, timed_out_{false}, closed_{false}, returned_{false};
};

}  // namespace ferry::test
