// The staging pipeline in the C ABI: ferry_batch_submit and every
// ferry_batch_* function. The work is core::Stager's (core/stage/stager.h);
// this layer reads the structs, maps handles, and turns errors into statuses.
#include <cstdint>

#include "c_api/api_guard.h"
#include "c_api/batch_table.h"
#include "c_api/handles.h"
#include "c_api/struct_io.h"
#include "core/context.h"
#include "core/convert/convert_plan.h"
#include "core/stage/stager.h"
#include "ferry/batch.h"

using namespace ferry;

namespace {

ferry_submit_options default_submit_options() {
  ferry_submit_options o{};
  o.struct_size = sizeof o;
  o.handoff_stream = nullptr;
  o.has_handoff_stream = 0;
  o.priority = 0;
  o.source_policy = FERRY_SOURCE_AUTO;
  o.chunk_bytes = 0;
  o.callback = nullptr;
  o.user_data = nullptr;
  return o;
}


}  // namespace

extern "C" {

FERRY_API ferry_status ferry_submit_options_init(ferry_submit_options* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, default_submit_options(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_submit(ferry_batch_t* out, ferry_context_t ctx, const ferry_source* source,
                                          const ferry_transform* transform, const ferry_output* output,
                                          const ferry_submit_options* options) {
  FERRY_API_BEGIN
  api::require(out, "out");
  auto context = api::get_context(ctx);
  const ferry_source src = api::read_struct(source, "source", core::default_source());
  const ferry_transform tr = api::read_optional_struct(transform, "transform", core::default_transform());
  ferry_output dst{};
  if (output != nullptr) dst = api::read_struct(output, "output", core::default_output());
  const ferry_submit_options opts = api::read_optional_struct(options, "options", default_submit_options());

  core::Stager& stager = context->stager();
  std::shared_ptr<core::Batch> batch =
      stager.prepare(context.get(), src, tr, output != nullptr ? &dst : nullptr, opts);
  std::uint64_t id = 0;
  try {
    id = api::batch_table().insert(batch);
  } catch (...) {
    stager.abandon(batch);
    throw;
  }
  batch->handle = id;
  stager.launch(batch);
  *out = api::batch_handle(id);
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_wait(ferry_batch_t batch) {
  FERRY_API_BEGIN
  auto b = api::get_batch(batch);
  core::StagerUse stager(*b);
  stager->wait(*b);
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_query(ferry_batch_t batch) {
  FERRY_API_BEGIN
  auto b = api::get_batch(batch);
  core::StagerUse stager(*b);
  const bool done = stager->query(*b);
  api::clear_last_error();  // FERRY_ERR_NOT_READY is not a failure
  FERRY_API_END_WITH(done ? FERRY_OK : FERRY_ERR_NOT_READY)
}

FERRY_API ferry_status ferry_batch_stream_wait(ferry_batch_t batch, void* stream) {
  FERRY_API_BEGIN
  auto b = api::get_batch(batch);
  core::StagerUse stager(*b);
  stager->stream_wait(*b, stream);
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_source_reusable(int* out, ferry_batch_t batch) {
  FERRY_API_BEGIN
  api::require(out, "out");
  auto b = api::get_batch(batch);
  core::StagerUse stager(*b);
  *out = stager->source_reusable(*b) ? 1 : 0;
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_wait_source(ferry_batch_t batch) {
  FERRY_API_BEGIN
  auto b = api::get_batch(batch);
  core::StagerUse stager(*b);
  stager->wait_source(*b);
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_output(ferry_tensor_info* out, ferry_batch_t batch) {
  FERRY_API_BEGIN
  ferry_tensor_info info = api::read_struct(out, "out", core::default_tensor_info());  // checks out->struct_size
  auto b = api::get_batch(batch);
  info = b->info;
  api::write_struct(out, info, "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_release(ferry_batch_t batch) {
  FERRY_API_BEGIN
  if (batch == nullptr) return FERRY_OK;
  std::shared_ptr<core::Batch> b = api::batch_table().take(api::handle_id(batch), "batch");
  try {
    core::StagerUse stager(*b);
    stager->release(*b);
  } catch (const Error& e) {
    // The context is gone: it gave the batch's memory back when it was destroyed.
    if (e.status() != FERRY_ERR_INVALID_HANDLE) throw;
  }
  FERRY_API_END
}

}  // extern "C"
