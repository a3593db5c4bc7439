// GPU tests skip visibly where there is no usable CUDA device (CTest reports
// them as skipped through SKIP_REGULAR_EXPRESSION), and run on the GPU machine.
#pragma once

#include <gtest/gtest.h>

#include "ferry/ferry.h"

namespace ferry::test {
inline int gpu_count() {
  int n = 0;
  return ferry_device_count(&n) == FERRY_OK ? n : 0;
}
}  // namespace ferry::test

#define FERRY_REQUIRE_GPU()                                                          \
  do {                                                                               \
    if (::ferry::test::gpu_count() == 0) GTEST_SKIP() << "no CUDA device or driver"; \
  } while (0)
