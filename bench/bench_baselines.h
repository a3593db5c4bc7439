// What ferry-bench measures besides ferry, in the same run: the limit (on a GPU
// cudaMemcpy of the same uint8 bytes from pinned memory; on the CPU backend a
// host memcpy by ferry's conversion threads moving as many bytes as the
// conversion reads and writes), the naive path (float32 conversion on one CPU
// thread; on a GPU then the copy of the floats), the base of the one-image
// latency, and the timer for ferry's rows (CUDA events on a GPU, the host clock
// on the CPU).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
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
  // What the limit row measures, in words.
  virtual std::string limit_description() const = 0;
  // Per-batch milliseconds, the median of `repeats` runs of `iterations` batches. The limit of a
  // batch of `in_bytes` uint8 converted to `out_bytes` (the GPU copies in_bytes; the CPU moves
  // in_bytes + out_bytes, i.e. copies half of that).
  virtual double limit_ms(const std::uint8_t* pinned, std::size_t in_bytes, std::size_t out_bytes, int iterations,
                          int repeats) = 0;
  virtual double naive_ms(const std::uint8_t* pageable, const Shape& shape, int iterations, int repeats) = 0;
  // Microseconds, median, of what one image needs without ferry's pipeline around it: on a GPU
  // from the call to its pinned copy being usable; on the CPU backend its conversion alone.
  virtual double latency_base_us(const std::uint8_t* pinned, std::size_t bytes, int iterations) = 0;
  virtual std::string latency_base_description() const = 0;
  // The timer of ferry's rows: the stream batches are made to wait on (NULL on the CPU).
  virtual void* timing_stream() = 0;
  virtual void timer_start() = 0;
  virtual double timer_stop_ms() = 0;  // after every batch timed was made to wait on timing_stream
};

// threads: ferry's conversion threads, which the limit's memcpy uses too. convert_one: converts
// one image from the given source with ferry_transform_apply (the latency row's base), synchronously.
std::unique_ptr<Baselines> make_cpu_baselines(int threads, std::function<void(const std::uint8_t*)> convert_one);
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
