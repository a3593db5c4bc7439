// ferry-bench's baselines on a GPU, timed with CUDA events: the limit is
// cudaMemcpyAsync of the same uint8 bytes from pinned memory; the naive path
// converts to float32 on one CPU thread, then copies the floats from pageable
// memory; the latency is one image's pinned copy, host clock, call to sync.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "bench/bench_baselines.h"

namespace ferry::bench {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

class CudaBaselines final : public Baselines {
 public:
  explicit CudaBaselines(int device) : device_(device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~CudaBaselines() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
    if (device_buffer_ != nullptr) cudaFree(device_buffer_);
  }

  std::string device_name() override {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, device_);
    return std::string(p.name) + " (GPU " + std::to_string(device_) + ")";
  }
  bool is_gpu() const override { return true; }

  std::string limit_description() const override { return "cudaMemcpy of the same uint8 bytes from pinned memory"; }

  double limit_ms(const std::uint8_t* pinned, std::size_t bytes, std::size_t, int iterations, int repeats) override {
    void* dst = device(bytes);
    check(cudaMemcpyAsync(dst, pinned, bytes, cudaMemcpyHostToDevice, stream_), "warm-up copy");
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
      timer_start();
      for (int i = 0; i < iterations; ++i)
        check(cudaMemcpyAsync(dst, pinned, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
      runs.push_back(timer_stop_ms() / iterations);
    }
    return median(runs);
  }

  double naive_ms(const std::uint8_t* pageable, const Shape& s, int iterations, int repeats) override {
    std::vector<float> floats(s.bytes());
    void* dst = device(floats.size() * sizeof(float));
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
      timer_start();
      for (int i = 0; i < iterations; ++i) {
        naive_normalize(pageable, floats.data(), s);
        check(cudaMemcpyAsync(dst, floats.data(), floats.size() * sizeof(float), cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync (pageable)");
      }
      runs.push_back(timer_stop_ms() / iterations);
    }
    return median(runs);
  }

  double latency_base_us(const std::uint8_t* pinned, std::size_t bytes, int iterations) override {
    void* dst = device(bytes);
    std::vector<double> runs;
    for (int i = 0; i < iterations; ++i) {
      const auto t = std::chrono::steady_clock::now();
      check(cudaMemcpyAsync(dst, pinned, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      runs.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count());
    }
    return median(runs);
  }
  std::string latency_base_description() const override { return "pinned cudaMemcpy of the bytes"; }

  void* timing_stream() override { return stream_; }
  void timer_start() override { check(cudaEventRecord(start_, stream_), "cudaEventRecord"); }
  double timer_stop_ms() override {
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  void* device(std::size_t bytes) {
    if (bytes > device_bytes_) {
      if (device_buffer_ != nullptr) cudaFree(device_buffer_);
      check(cudaMalloc(&device_buffer_, bytes), "cudaMalloc");
      device_bytes_ = bytes;
    }
    return device_buffer_;
  }

  int device_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* device_buffer_ = nullptr;
  std::size_t device_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Baselines> make_cuda_baselines(int device) { return std::make_unique<CudaBaselines>(device); }

}  // namespace ferry::bench
