// The staging pipeline's counters, kept per context and read by
// ferry_stats_get. Atomics: many staging threads and stream callbacks add
// to them at once, and a snapshot never blocks the pipeline.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>

namespace ferry::core {

struct PipelineCounters {
  std::atomic<std::uint64_t> batches_submitted{0};
  std::atomic<std::uint64_t> batches_completed{0};
  std::atomic<std::uint64_t> batches_failed{0};
  std::atomic<std::uint64_t> input_bytes{0};
  std::atomic<std::uint64_t> output_bytes{0};
  std::atomic<std::uint64_t> staging_ns{0};
  std::atomic<std::uint64_t> h2d_ns{0};
  std::atomic<std::uint64_t> convert_ns{0};
  std::atomic<std::uint64_t> busy_ns{0};
  std::atomic<std::uint64_t> timed_chunks{0};  // the chunks h2d_ns and convert_ns cover

  void reset() noexcept {
    for (auto* c : {&batches_submitted, &batches_completed, &batches_failed, &input_bytes,
                    &output_bytes, &staging_ns, &h2d_ns, &convert_ns, &busy_ns, &timed_chunks})
      c->store(0, std::memory_order_relaxed);
  }
};

}  // namespace ferry::core
