// The unit kernels' fast path (issue 12) against the CPU backend, element by
// element: every case of convert_fast_path_cases.h (mirror, per-sample flips
// and crops, padded windows partly and wholly outside, channel maps in both
// layouts, padding to 4, uint8 output, odd widths, single rows and columns),
// poisoned outputs between canaries (window_case_check.h). A failure names
// the case and the kernel that took it.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/support/convert_fast_path_cases.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "c_api/struct_convert.h"
#include "core/convert/kernel_choice.h"
#include "tests/gpu/window_case_check.h"

using namespace ferry::test;

namespace {

// The kernel a case takes, decided from its host addresses (the check keeps
// their alignment on the device).
const char* path_of(const WindowCase& c) {
  const ferry::core::SourceDesc source = ferry::api::to_core(c.source);
  const ferry::core::ConvertPlan plan =
      ferry::core::make_convert_plan(source, ferry::api::to_core(c.transform), nullptr);
  const ferry::core::KernelChoice choice = ferry::core::choose_kernel(
      plan, ferry::core::source_view_of(plan, source), 0, plan.n, reinterpret_cast<void*>(std::uintptr_t{4096}));
  return ferry::core::kernel_path_name(choice.path);
}

}  // namespace

TEST(ConvertFastPathGpu, EveryCaseMatchesTheCpuElementByElement) {
  FERRY_REQUIRE_GPU();
  WindowCaseRig rig;
  ASSERT_EQ(rig.problem, "");
  int cases = 0, failures = 0;
  std::map<std::string, int> paths;
  for_each_fast_case([&](WindowCase* c) {
    ASSERT_NE(c, nullptr) << ferry_last_error();
    ++cases;
    const std::string path = path_of(*c);
    ++paths[path];
    const std::string problem = rig.check(*c);
    if (!problem.empty() && ++failures <= 20) ADD_FAILURE() << "[" << path << " kernel] " << c->name << ": " << problem;
  });
  std::string summary;
  for (const auto& [path, count] : paths) summary += " " + path + " " + std::to_string(count);
  std::printf("[          ] %d cases by kernel:%s\n", cases, summary.c_str());
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_GT(cases, 7000);
  EXPECT_GT(paths["window"], 6000) << "the window kernel must take the mirrored, cropped and padded cases";
}

#else
TEST(ConvertFastPathGpu, EveryCaseMatchesTheCpuElementByElement) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
