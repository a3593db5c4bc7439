// The resized conversion on the CPU (transform.resize_w/h; issue 14): each
// output pixel resampled from its sample's window with the taps of
// resize_taps.h, in the order include/ferry/transform.h defines, then
// rounded to uint8 or scaled by the sample's alpha/beta and stored in the
// output dtype as the unresized path stores it. Built with -ffp-contract=off
// so every product and sum rounds on its own, as on the GPU.
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"
#include "core/thread_pool.h"

namespace ferry::core {

// Converts samples first .. first+count-1 of a resized plan (plan.resize)
// from `source` (local index 0 .. count-1) into output_base, the plan's whole
// output (global sample g at output_base + g * plan.out_strides.n), as
// convert_on_cpu does (which calls it for such plans). Synchronous, threaded
// over output rows on `pool`; thread-safe.
void convert_resized_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                            std::int64_t count, void* output_base, ThreadPool& pool);

}  // namespace ferry::core
