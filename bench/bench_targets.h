// ferry-bench's targets per backend, and where each figure comes from.
//   GPU: issue 5 (on an H100 or H200, ratios from one run; bench/RESULTS.md has what was reached), with
//   issue 12's one-image latency budget (+12 us over a pinned cudaMemcpy).
//   CPU backend: the conversion against a threaded host memcpy moving the same bytes; bench/RESULTS.md
//   found 0.46-0.61 with 16 threads, so a row is met from 0.45; the one-image row keeps issue 5's
//   +20 us pipeline budget, over the conversion alone.
#pragma once

#include <string>

#include "bench/bench_report.h"

namespace ferry::bench {

// One image, over the bare data movement: issue 12's +12 us over a pinned cudaMemcpy on a GPU;
// issue 5's +20 us pipeline budget over the conversion alone on the CPU backend.
inline double latency_budget_us(bool gpu) { return gpu ? 12 : 20; }

// The target of the row `id` ("limit", "naive", "pinned", "pageable", "registered"); the
// latency row's is latency_target().
inline Target row_target(const std::string& id, bool gpu) {
  if (id == "limit") return {0, "", "the reference: 1.0 by definition"};
  if (id == "naive") return {0, "", "the baseline: report only"};
  if (!gpu) return {0.45, ">= 0.45", "CPU backend: conversion / threaded memcpy measured 0.46-0.61, 16 threads"};
  if (id == "pageable") return {0.60, ">= 0.60", "issue 5 (pageable, fresh buffers)"};
  return {0.95, ">= 0.95", id == "pinned" ? "issue 5 (pinned source)" : "issue 5 (registration cache)"};
}

// One image: at most `base_us` + the budget, i.e. a ratio base/ferry of at least base / (base + budget).
inline Target latency_target(double base_us, bool gpu) {
  const double budget = latency_budget_us(gpu);
  return {base_us / (base_us + budget), gpu ? "<= +12us" : "<= +20us",
          gpu ? "issue 12 (one image: the pinned cudaMemcpy latency + 12 us)"
              : "issue 5's +20 us pipeline budget, over the conversion alone"};
}

}  // namespace ferry::bench
