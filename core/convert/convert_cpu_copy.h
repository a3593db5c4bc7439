// The CPU backend's plain copy (convert_cpu.cpp's first choice for a plan
// that copies bytes).
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"
#include "core/thread_pool.h"

namespace ferry::core {

// uint8 in the source's layout, unchanged (ConvertPlan::copies_bytes: a
// resident dataset's upload, an identity transform): each sample's bytes as
// they lie, one copy a sample, or a row at a time where the rows are padded.
// The row path costs about 50 ns a row: a CIFAR-sized upload (50,000 images
// of 32 rows) ran at 0.14 of a threaded memcpy. False where a row's bytes are
// not contiguous in the source (strided pixels or channels): the row path.
bool copy_samples_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                         std::uint8_t* output, ThreadPool& pool);

}  // namespace ferry::core
