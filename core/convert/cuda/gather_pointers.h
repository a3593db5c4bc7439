// A resident dataset's gather by indices in device memory (SourceView::
// Resident's device_indices) on the kernels that read a pointer table: one small kernel writes each sample's pointer into the
// per-sample table the conversion kernel then reads, on the same stream.
// Plain C++, included by cuda_converter.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/convert/convert_plan.h"

namespace ferry::core::cuda_convert {

// For i < count: the pointer at table + i * stride becomes base + clamp(
// indices[i], 0, dataset - 1) * sample_bytes (a bad index reads the nearest
// sample, never outside the dataset). Throws ferry::Error for a launch failure.
void launch_gather_pointers(void* table, std::size_t stride, const SourceView::Resident& gather,
                            std::int64_t count, void* stream);

}  // namespace ferry::core::cuda_convert
