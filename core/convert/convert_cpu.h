// The conversion on the CPU: the CPU backend's implementation of
// Converter::convert, and the reference the GPU tests compare against.
// Threaded over output rows; each row is done in short blocks whose loops
// (gather, multiply-add and round, scatter) the compiler vectorizes.
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"
#include "core/thread_pool.h"

namespace ferry::core {

// Converts samples first .. first+count-1 of `plan` from `source` (local index
// 0 .. count-1) into output_base, the plan's whole output (global sample g at
// output_base + g * plan.out_strides.n). Synchronous. Thread-safe: concurrent
// calls may share a plan and a pool.
void convert_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                    void* output_base, ThreadPool& pool);

}  // namespace ferry::core
