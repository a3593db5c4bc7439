// ferry-bench's baselines on the CPU backend: the limit is a memcpy of the
// same bytes with every hardware thread; the naive path converts on one
// thread and copies the floats; timing is the host's steady clock.
#include <chrono>
#include <cstring>
#include <thread>

#include "bench/bench_baselines.h"

namespace ferry::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void threaded_memcpy(std::uint8_t* dst, const std::uint8_t* src, std::size_t bytes, unsigned threads) {
  std::vector<std::thread> pool;
  const std::size_t slice = (bytes + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t from = std::min(bytes, t * slice), to = std::min(bytes, from + slice);
    pool.emplace_back([=] { std::memcpy(dst + from, src + from, to - from); });
  }
  for (auto& th : pool) th.join();
}

class CpuBaselines final : public Baselines {
 public:
  std::string device_name() override { return "CPU (" + std::to_string(threads_) + " hardware threads)"; }
  bool is_gpu() const override { return false; }

  double limit_ms(const std::uint8_t* src, std::size_t bytes, int iterations, int repeats) override {
    std::vector<std::uint8_t> dst(bytes);
    threaded_memcpy(dst.data(), src, bytes, threads_);  // warm-up: touches the pages
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
      const auto t = Clock::now();
      for (int i = 0; i < iterations; ++i) threaded_memcpy(dst.data(), src, bytes, threads_);
      runs.push_back(ms_since(t) / iterations);
    }
    return median(runs);
  }
  double naive_ms(const std::uint8_t* src, const Shape& s, int iterations, int repeats) override {
    std::vector<float> floats(s.bytes()), copy(s.bytes());
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
      const auto t = Clock::now();
      for (int i = 0; i < iterations; ++i) {
        naive_normalize(src, floats.data(), s);
        std::memcpy(copy.data(), floats.data(), floats.size() * sizeof(float));
      }
      runs.push_back(ms_since(t) / iterations);
    }
    return median(runs);
  }
  double copy_latency_us(const std::uint8_t* src, std::size_t bytes, int iterations) override {
    std::vector<std::uint8_t> dst(bytes);
    std::vector<double> runs;
    for (int i = 0; i < iterations; ++i) {
      const auto t = Clock::now();
      std::memcpy(dst.data(), src, bytes);
      runs.push_back(ms_since(t) * 1000);
    }
    return median(runs);
  }
  void* timing_stream() override { return nullptr; }
  void timer_start() override { start_ = Clock::now(); }
  double timer_stop_ms() override { return ms_since(start_); }

 private:
  unsigned threads_ = std::max(1u, std::thread::hardware_concurrency());
  Clock::time_point start_;
};

}  // namespace

std::unique_ptr<Baselines> make_cpu_baselines() { return std::make_unique<CpuBaselines>(); }

}  // namespace ferry::bench
