// The unit kernels on batches large enough that every thread takes many
// steps (issue 12, kernel performance work): the fast-path test's batches of
// 4 small images give each thread at most one unit, so it never reaches
// - the vector kernel's paired step (two units loaded, then both converted)
//   and the grid's last units taken one at a time after it;
// - the window kernel's block shares: a thread's next unit in the same or the
//   next sample, the per-sample entry reloaded when the sample changes, the
//   coefficients from the table only with per-sample mean/std;
// - the warp-staged NHWC stores across row ends (partial last units, rows
//   whose output is not contiguous with the next).
// 1024 images a case, compared with the CPU backend byte for byte between
// canaries (window_case_check.h).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/support/convert_many_steps_cases.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/gpu/window_case_check.h"

using namespace ferry::test;

TEST(ConvertManyStepsGpu, LargeBatchesMatchTheCpuElementByElement) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig(std::size_t{64} << 20, std::size_t{112} << 20);
  ASSERT_EQ(rig.problem, "");
  std::uint32_t seed = 7;
  for (const ManyStepsSpec& spec : many_steps_specs) {
    const std::unique_ptr<WindowCase> c = make_many_steps_case(spec, seed++);
    ASSERT_NE(c, nullptr) << spec.name << ": " << ferry_last_error();
    const ferry::core::KernelPath path = many_steps_path(*c);
    EXPECT_EQ(path, spec.path) << spec.name << " takes the " << ferry::core::kernel_path_name(path) << " kernel";
    EXPECT_EQ(rig.check(*c), "") << spec.name;
  }
}

#else
TEST(ConvertManyStepsGpu, LargeBatchesMatchTheCpuElementByElement) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
