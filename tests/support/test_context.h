// A context for a test: the device kind, the CPU backend's threads and the
// device timing set, the rest default; or a GPU test's. Each returns NULL (and
// records a test failure) if creation fails.
#pragma once

#include <gtest/gtest.h>

#include "ferry/ferry.h"

namespace ferry::test {

// Creates the context `o` describes.
inline ferry_context_t create_test_context(const ferry_context_options& o) {
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  return ctx;
}

inline ferry_context_t make_test_context(ferry_device_kind kind, int cpu_threads,
                                         ferry_device_timing timing = FERRY_DEVICE_TIMING_AUTO) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = kind;
  o.cpu_threads = cpu_threads;
  o.device_timing = timing;
  return create_test_context(o);
}

// A CUDA context on `device` with `max_in_flight` places in flight (4 is
// ferry's default); nonblocking: a submit finding them all taken answers
// FERRY_BUSY instead of waiting.
inline ferry_context_t gpu_context(int device = 0, int max_in_flight = 4, int nonblocking = 0) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CUDA;
  o.device_index = device;
  o.max_batches_in_flight = max_in_flight;
  o.submit_nonblocking = nonblocking;
  return create_test_context(o);
}

}  // namespace ferry::test
