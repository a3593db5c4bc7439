// Submitting a batch and giving it a handle: one path for ferry_batch_submit
// and a resident dataset's gather (ferry_dataset_gather).
#pragma once

#include <cstdint>

#include "core/context.h"
#include "core/stage/submit_options.h"
#include "ferry/batch.h"

namespace ferry::api {

// Prepares the batch on `context` (whose handle is context_id), registers its
// handle as the context's child, wires the C callback of c_options, starts
// the work. Throws ferry::Error; nothing is left held.
ferry_batch_t launch_batch(core::Context& context, std::uint64_t context_id, const core::SourceDesc& source,
                           const core::Transform& transform, const core::OutputDesc* output,
                           const ferry_submit_options& c_options, const core::SubmitOptions& options);

}  // namespace ferry::api
