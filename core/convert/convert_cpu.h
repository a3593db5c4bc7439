// The conversion on the CPU: the CPU backend's implementation of
// Converter::convert, and the reference the GPU tests compare against.
// Threaded over output rows; each row is done in blocks that stay in L1, the
// arithmetic by AVX2 + F16C kernels where the CPU has them (portable loops
// otherwise, with bit-identical results): see convert_cpu_kernels.h.
#pragma once

#include <cstdint>

#include "core/convert/convert_cpu_kernels.h"
#include "core/convert/convert_plan.h"
#include "core/thread_pool.h"

namespace ferry::core {

// Converts samples first .. first+count-1 of `plan` from `source` (local index
// 0 .. count-1) into output_base, the plan's whole output (global sample g at
// output_base + g * plan.out_strides.n). Synchronous. Thread-safe: concurrent
// calls may share a plan and a pool. `isa` picks the kernels (tests force
// the portable ones to compare both paths).
void convert_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                    void* output_base, ThreadPool& pool, CpuConvertIsa isa = CpuConvertIsa::best);

}  // namespace ferry::core
