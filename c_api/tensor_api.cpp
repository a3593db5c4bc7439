// Tensor references in the C ABI (ferry/tensor.h): ids in a process-wide
// table (tag 0x7E), independent of any context, so a reference stays usable
// after its batch is released and its context destroyed.
#include <cstdint>
#include <memory>

#include "c_api/api_guard.h"
#include "c_api/handle_table.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/convert/convert_plan.h"
#include "core/stage/batch.h"
#include "ferry/tensor.h"

using namespace ferry;

namespace {

// One reference: what the output looked like, and the block that keeps it
// (null for a caller's own output).
struct TensorReference {
  core::TensorDesc info;
  std::shared_ptr<core::OutputBlock> block;
};

api::HandleTable<TensorReference>& tensor_table() {
  // Leaked on purpose, like the other tables: a binding may release a
  // reference from a static destructor after ours would have run.
  static auto* table = new api::HandleTable<TensorReference>(0x7E, "ferry_tensor_t", api::OnTake::kNeverWait);
  return *table;
}

}  // namespace

extern "C" {

FERRY_API ferry_status ferry_tensor_retain(ferry_tensor_t* out, ferry_batch_t batch) {
  FERRY_API_BEGIN
  api::require(out, "out");
  api::BatchCall call = api::call_batch(batch);
  core::Batch* b = call.batch.get();
  auto reference = std::make_shared<TensorReference>();
  {
    std::lock_guard<std::mutex> lock(b->mutex);
    // A release racing this one may have given the block back: InvalidHandle.
    reference->block = b->output_block_locked();
    reference->info = b->submitted.info;
    if (reference->block != nullptr) reference->block->share();
  }
  *out = api::handle_of<ferry_tensor_t>(tensor_table().insert(std::move(reference)));
  FERRY_API_END
}

FERRY_API ferry_status ferry_tensor_describe(ferry_tensor_info* out, ferry_tensor_t tensor) {
  FERRY_API_BEGIN
  api::read_struct(out, "out", api::c_defaults<ferry_tensor_info>());  // checks out->struct_size
  auto reference = tensor_table().get(api::handle_id(tensor), "tensor");
  api::write_struct(out, api::to_c(reference->info), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_tensor_release(ferry_tensor_t tensor) {
  FERRY_API_BEGIN
  if (tensor == nullptr) return FERRY_OK;
  // Let go of here: the block goes home if this was its last owner (and no call still holds it).
  tensor_table().take(api::handle_id(tensor), "tensor");
  FERRY_API_END
}

}  // extern "C"
