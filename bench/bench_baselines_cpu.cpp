// ferry-bench's baselines on the CPU backend: the limit is a host memcpy by as
// many threads as ferry converts with, moving as many bytes as the conversion
// reads and writes (so a conversion as fast as memory allows reads 1.0); the
// naive path converts on one thread (no copy: the floats are already where
// they are used); the one-image base is ferry_transform_apply alone; timing is the
// host's steady clock. The memcpy is the one ferry_bench_convert measures its
// CPU ratio against: 1 MiB pieces over a pool of threads.
#include <chrono>
#include <cstring>
#include <thread>

#include "bench/bench_baselines.h"
#include "core/thread_pool.h"

namespace ferry::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void threaded_memcpy(core::ThreadPool& pool, std::uint8_t* dst, const std::uint8_t* src, std::size_t bytes) {
  const std::int64_t size = static_cast<std::int64_t>(bytes), piece = 1 << 20;
  pool.parallel_for(0, (size + piece - 1) / piece, [&](std::int64_t b, std::int64_t e) {
    const std::int64_t lo = b * piece, hi = std::min(size, e * piece);
    std::memcpy(dst + lo, src + lo, static_cast<std::size_t>(hi - lo));
  });
}

class CpuBaselines final : public Baselines {
 public:
  CpuBaselines(int threads, std::function<void(const std::uint8_t*)> convert_one)
      : pool_(threads), convert_one_(std::move(convert_one)) {}

  std::string device_name() override {
    return "CPU (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " hardware threads)";
  }
  bool is_gpu() const override { return false; }
  std::string limit_description() const override {
    return "host memcpy with " + std::to_string(pool_.size()) + " threads of the bytes the conversion reads and writes";
  }

  double limit_ms(const std::uint8_t* src, std::size_t in_bytes, std::size_t out_bytes, int iterations,
                  int repeats) override {
    // A copy of (in + out) / 2 bytes reads and writes in + out bytes in all.
    const std::size_t bytes = (in_bytes + out_bytes) / 2;
    std::vector<std::uint8_t> from(bytes), to(bytes);
    for (std::size_t at = 0; at < bytes; at += in_bytes) std::memcpy(from.data() + at, src, std::min(in_bytes, bytes - at));
    threaded_memcpy(pool_, to.data(), from.data(), bytes);  // warm-up: touches the pages
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
      const auto t = Clock::now();
      for (int i = 0; i < iterations; ++i) threaded_memcpy(pool_, to.data(), from.data(), bytes);
      runs.push_back(ms_since(t) / iterations);
    }
    return median(runs);
  }
  double naive_ms(const std::uint8_t* src, const Shape& s, int iterations, int repeats) override {
    std::vector<float> floats(s.bytes());
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
      const auto t = Clock::now();
      for (int i = 0; i < iterations; ++i) naive_normalize(src, floats.data(), s);
      runs.push_back(ms_since(t) / iterations);
    }
    return median(runs);
  }
  double latency_base_us(const std::uint8_t* src, std::size_t, int iterations) override {
    std::vector<double> runs;
    for (int i = 0; i < iterations + 20; ++i) {
      const auto t = Clock::now();
      convert_one_(src);
      if (i >= 20) runs.push_back(ms_since(t) * 1000);  // the first ones warm the caches up
    }
    return median(runs);
  }
  std::string latency_base_description() const override {
    return "the conversion alone (ferry_transform_apply, " + std::to_string(pool_.size()) + " threads)";
  }
  void* timing_stream() override { return nullptr; }
  void timer_start() override { start_ = Clock::now(); }
  double timer_stop_ms() override { return ms_since(start_); }

 private:
  core::ThreadPool pool_;  // as many threads as ferry converts with
  std::function<void(const std::uint8_t*)> convert_one_;
  Clock::time_point start_;
};

}  // namespace

std::unique_ptr<Baselines> make_cpu_baselines(int threads, std::function<void(const std::uint8_t*)> convert_one) {
  return std::make_unique<CpuBaselines>(threads, std::move(convert_one));
}

}  // namespace ferry::bench
