// Handles owned by a context: the staging pipeline's batch table.
#include "c_api/batch_table.h"
#include "c_api/handles.h"

namespace ferry::api {

HandleTable<core::Batch>& batch_table() {
  // Leaked on purpose, like the context table: handles may be released from
  // static destructors of other libraries after ours would have run.
  static auto* table = new HandleTable<core::Batch>(0xBA, "ferry_batch_t");
  return *table;
}

void on_context_destroyed(core::Context& context) noexcept {
  try {
    // The batches leave the table here; their references are dropped at the
    // end of this scope, while the context still exists, so a finished batch
    // gives its memory back to the context's caches. Batches still in flight
    // are held by the pipeline until they finish (the context's destructor waits).
    const core::Stager& stager = context.stager();
    auto taken = batch_table().take_if([&stager](const core::Batch& b) { return stager.owns(b); });
    taken.clear();
  } catch (...) {
    // take_if allocates; without memory the handles stay and answer
    // FERRY_ERR_INVALID_HANDLE through their detached batch instead.
  }
}

}  // namespace ferry::api
