// The CPUID detection that picks the CPU conversion's AVX2 + F16C kernels
// (issue 18, finding 6: it replaced __builtin_cpu_supports("f16c"), which
// clang 14 rejects) agrees with what the kernel reports in /proc/cpuinfo.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/convert/convert_cpu_kernels.h"
#include "core/convert/cpu_features.h"

TEST(CpuFeatures, Avx2F16cAgreesWithProcCpuinfo) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool found = false, avx2 = false, f16c = false;
  while (!found && std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    found = true;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;) avx2 |= w == "avx2", f16c |= w == "f16c";
  }
  if (!found) GTEST_SKIP() << "no flags line in /proc/cpuinfo";
  EXPECT_EQ(ferry::core::cpu_has_avx2_f16c(), avx2 && f16c) << "cpuinfo: avx2 " << avx2 << ", f16c " << f16c;
  EXPECT_EQ(ferry::core::cpu_has_vector_kernels(), avx2 && f16c);
#else
  EXPECT_FALSE(ferry::core::cpu_has_avx2_f16c());
#endif
}
