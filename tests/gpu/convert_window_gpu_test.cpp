// Windows outside the image, padded (issue 18, finding 1), on the GPU: the
// kernels write exactly the output's elements, equal to the CPU backend's, for
// every case of convert_window_cases.h, checked by window_case_check.h.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/support/convert_window_cases.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/gpu/window_case_check.h"

using namespace ferry::test;

TEST(ConvertWindowGpu, EveryWindowPositionMatchesTheCpuAndStaysInside) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig;
  ASSERT_EQ(rig.problem, "");
  int cases = 0, failures = 0;
  for_each_window_case([&](WindowCase* c) {
    ASSERT_NE(c, nullptr) << ferry_last_error();
    ++cases;
    const std::string problem = rig.check(*c);
    if (!problem.empty() && ++failures <= 10) ADD_FAILURE() << c->name << ": " << problem;
  });
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_GT(cases, 10000);
}

#else
TEST(ConvertWindowGpu, EveryWindowPositionMatchesTheCpuAndStaysInside) {
  GTEST_SKIP() << "built without the CUDA backend";
}
#endif
