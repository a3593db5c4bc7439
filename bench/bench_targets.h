// ferry-bench's targets per backend, and where each figure comes from.
//   GPU: issue 5 (on an H100 or H200, ratios from one run; bench/RESULTS.md has what was reached).
//   CPU backend: the conversion against a threaded host memcpy moving the same bytes; bench/RESULTS.md
//   found 0.46-0.61 with 16 threads, so a row is met from 0.45; the one-image row keeps issue 5's
//   +20 us pipeline budget, over the conversion alone.
#pragma once

#include <string>

#include "bench/bench_report.h"

namespace ferry::bench {

inline constexpr double kLatencyBudgetUs = 20;  // issue 5: one image, over the bare data movement

// The target of the row `id` ("limit", "naive", "pinned", "pageable", "registered"); the
// latency row's is latency_target().
inline Target row_target(const std::string& id, bool gpu) {
  if (id == "limit") return {0, "", "the reference: 1.0 by definition"};
  if (id == "naive") return {0, "", "the baseline: report only"};
  if (!gpu) return {0.45, ">= 0.45", "CPU backend: conversion / threaded memcpy measured 0.46-0.61, 16 threads"};
  if (id == "pageable") return {0.60, ">= 0.60", "issue 5 (pageable, fresh buffers)"};
  return {0.95, ">= 0.95", id == "pinned" ? "issue 5 (pinned source)" : "issue 5 (registration cache)"};
}

// One image: at most `base_us` + 20 us, i.e. a ratio base/ferry of at least base / (base + 20).
inline Target latency_target(double base_us, bool gpu) {
  return {base_us / (base_us + kLatencyBudgetUs), "<= +20us",
          gpu ? "issue 5 (one image: the pinned cudaMemcpy latency + 20 us)"
              : "issue 5's +20 us pipeline budget, over the conversion alone"};
}

}  // namespace ferry::bench
