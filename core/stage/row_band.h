// Row bands: one frame sent straight to the device, cut into bands of its
// window's rows (plan_row_bands, chunk_planner.h), each copied and converted
// as a chunk of its own on the pool's streams, so the kernels of earlier
// bands run while later bands are on the bus. A band is converted as a plain
// sub-window of the frame: the batch's window narrowed to the band's rows,
// written where those rows lie in the whole output (mirrored: from the
// bottom). Pure C++.
#pragma once

#include <vector>

#include "core/convert/convert_plan.h"
#include "core/stage/chunk_planner.h"
#include "core/stage/sample_layout.h"

namespace ferry::core {

// The bands of a batch copied straight from the caller's memory, or none
// where a band would not be a plain sub-window: more than one sample, a
// planar source, a window reaching outside the image, per-sample windows or
// mirrors, or caller rows that are not one image row each.
std::vector<Chunk> row_bands_of(const ConvertPlan& plan, const SampleLayout& layout);

// The plan that converts `band` alone, and where its output starts
// (band_output) inside the whole output at `output`.
ConvertPlan band_plan(const ConvertPlan& plan, const Chunk& band, void* output, void*& band_output);

}  // namespace ferry::core
