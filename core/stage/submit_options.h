// How one batch is submitted: hand-off, priority, how its source is moved, and
// what runs when it completes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "core/convert/convert_plan.h"
#include "core/device/device_runtime.h"
#include "core/status.h"

namespace ferry::core {

// Auto: pinned or registered memory is copied directly, pageable memory is
// staged. Stage: always through the pinned staging ring. Register: pageable
// buffers go through the registration cache (staged where it declines).
enum class SourcePolicy : int { Auto = 0, Stage = 1, Register = 2 };

struct SubmitOptions {
  bool has_handoff = false;               // the one switch: handoff_stream must be null without it
  StreamHandle handoff_stream = nullptr;  // with has_handoff: nullptr is the legacy stream
  int priority = 0;
  SourcePolicy source_policy = SourcePolicy::Auto;
  std::uint64_t chunk_bytes = 0;  // 0: the context's
  // Runs once on the completion thread with the batch's outcome, after the
  // output is ready (not for a batch that never started). Must not block on ferry.
  std::function<void(Status)> on_complete;
  // Set for a source already in the context's memory (a resident dataset's
  // gather, core/dataset/): nothing is copied, the batch is one conversion,
  // and this owner of the source's memory is held until the batch's
  // resources are given back. source_policy and chunk_bytes do not apply.
  std::shared_ptr<const void> resident_source;
  // With resident_source, samples of one size: where they lie
  // (SourceView::Resident). With its device_indices, the samples are taken
  // by indices in device memory (the source's `samples` are stand-ins), and
  // the conversion follows the work queued on the hand-off stream before
  // submit, which may have written the indices.
  SourceView::Resident resident;
};

}  // namespace ferry::core
