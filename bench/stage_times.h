// ferry's own timing events between two ferry_stats readings: the GPU time of
// its copies and kernels (and the host's staging) per completed batch, summed
// over each batch's chunks. ferry times a batch on the GPU as its context's
// device_timing says: with the default (AUTO) a batch of one sample, a camera
// frame, is not timed (the events would cost its latency), and `timed` is
// false.
#pragma once

#include <cstdio>
#include <string>

#include "ferry/stats.h"

namespace ferry::bench {

struct StageTimes {
  double h2d_us = 0, convert_us = 0, staging_us = 0;
  bool timed = false;

  // "H2D 157.3 us, kernel 18.3 us" or why there is none.
  std::string gpu_text() const {
    if (!timed) return "not timed on the GPU (device_timing AUTO leaves out batches of one sample)";
    char text[96];
    std::snprintf(text, sizeof text, "H2D %.1f us, kernel %.1f us", h2d_us, convert_us);
    return text;
  }
};

inline StageTimes per_batch(const ferry_stats& before, const ferry_stats& after) {
  StageTimes t;
  const double batches = static_cast<double>(after.batches_completed - before.batches_completed);
  if (batches <= 0) return t;
  t.timed = after.timed_chunks > before.timed_chunks;
  t.h2d_us = static_cast<double>(after.h2d_ns - before.h2d_ns) / batches / 1e3;
  t.convert_us = static_cast<double>(after.convert_ns - before.convert_ns) / batches / 1e3;
  t.staging_us = static_cast<double>(after.staging_ns - before.staging_ns) / batches / 1e3;
  return t;
}

}  // namespace ferry::bench
