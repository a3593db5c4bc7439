// A context for a test: the device kind, the CPU backend's threads and the
// device timing set, the rest default. Returns NULL (and records a test failure) if creation fails.
#pragma once

#include <gtest/gtest.h>

#include "ferry/ferry.h"

namespace ferry::test {

inline ferry_context_t make_test_context(ferry_device_kind kind, int cpu_threads,
                                         ferry_device_timing timing = FERRY_DEVICE_TIMING_AUTO) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = kind;
  o.cpu_threads = cpu_threads;
  o.device_timing = timing;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  return ctx;
}

}  // namespace ferry::test
