// ferry's handle tables and what ties a batch's handle to its context's.
#include "c_api/handle_table.h"

namespace ferry::api {

ContextTable& context_table() {
  static auto* table = new ContextTable(0xC7, "ferry_context_t", OnTake::kWaitForCalls);
  return *table;
}

BatchTable& batch_table() {
  static auto* table = new BatchTable(0xBA, "ferry_batch_t", OnTake::kNeverWait);
  return *table;
}

DatasetTable& dataset_table() {
  static auto* table = new DatasetTable(0xDA, "ferry_dataset_t", OnTake::kNeverWait);
  return *table;
}

BatchCall call_batch(ferry_batch_t batch, const char* argument) {
  BatchTable::Ref b = batch_table().get(handle_id(batch), argument);
  std::optional<ContextTable::Ref> context = context_table().find(b.parent());
  FERRY_EXPECT(context.has_value(), Status::InvalidHandle, argument,
               " belongs to a context that was destroyed: its batches went with it");
  return BatchCall{std::move(b), std::move(*context)};
}

DatasetCall call_dataset(ferry_dataset_t dataset, const char* argument) {
  DatasetTable::Ref d = dataset_table().get(handle_id(dataset), argument);
  std::optional<ContextTable::Ref> context = context_table().find(d.parent());
  FERRY_EXPECT(context.has_value(), Status::InvalidHandle, argument,
               " belongs to a context that was destroyed: its datasets went with it");
  return DatasetCall{std::move(d), std::move(*context)};
}

void on_context_destroyed(std::uint64_t context_id) noexcept {
  try {
    // The references are dropped at the end of this scope, while the context
    // still exists, so a finished batch gives its memory back to the context's
    // caches. Batches in flight are held by the pipeline until they finish
    // (the context's destructor waits for them); one still held by a call that
    // raced this finds its context gone and touches nothing.
    batch_table().take_children(context_id).clear();
    // A dataset's memory goes back with the last gather that reads it.
    dataset_table().take_children(context_id).clear();
  } catch (...) {
    // take_children allocates; without memory the handles stay, and answer
    // FERRY_ERR_INVALID_HANDLE because their context is gone.
  }
}

}  // namespace ferry::api
