// What ferry-bench measures besides ferry, in the same run: the limit (a copy
// of the same uint8 bytes: cudaMemcpy from pinned memory on a GPU, a threaded
// memcpy on the CPU backend), the naive path (float32 conversion on the CPU,
// then the copy of the floats), the latency of copying one image, and the
// timer for ferry's rows (CUDA events on a GPU, the host clock on the CPU).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ferry::bench {

struct Shape {
  std::int64_t n = 256, h = 224, w = 224, c = 3;
  std::size_t bytes() const { return static_cast<std::size_t>(n * h * w * c); }
};

class Baselines {
 public:
  virtual ~Baselines() = default;
  virtual std::string device_name() = 0;
  virtual bool is_gpu() const = 0;
  // Per-batch milliseconds, the median of `repeats` runs of `iterations` batches.
  virtual double limit_ms(const std::uint8_t* pinned, std::size_t bytes, int iterations, int repeats) = 0;
  virtual double naive_ms(const std::uint8_t* pageable, const Shape& shape, int iterations, int repeats) = 0;
  // Microseconds from the call to the copied data being usable, one image, median.
  virtual double copy_latency_us(const std::uint8_t* pinned, std::size_t bytes, int iterations) = 0;
  // The timer of ferry's rows: the stream batches are made to wait on (NULL on the CPU).
  virtual void* timing_stream() = 0;
  virtual void timer_start() = 0;
  virtual double timer_stop_ms() = 0;  // after every batch timed was made to wait on timing_stream
};

std::unique_ptr<Baselines> make_cpu_baselines();
#if FERRY_HAVE_CUDA
std::unique_ptr<Baselines> make_cuda_baselines(int device);
#endif

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// The naive CPU conversion every tutorial writes: one thread, uint8 NHWC to
// float32 NCHW, (x/255 - mean)/std per element.
inline void naive_normalize(const std::uint8_t* src, float* dst, const Shape& s) {
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  const std::int64_t plane = s.h * s.w;
  for (std::int64_t i = 0; i < s.n; ++i)
    for (std::int64_t p = 0; p < plane; ++p)
      for (std::int64_t k = 0; k < s.c; ++k)
        dst[(i * s.c + k) * plane + p] = (src[(i * plane + p) * s.c + k] / 255.0f - mean[k % 3]) / stdev[k % 3];
}

}  // namespace ferry::bench
