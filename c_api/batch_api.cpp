// The staging pipeline in the C ABI: ferry_batch_submit and every
// ferry_batch_* function. The work is core::Stager's (core/stage/stager.h);
// this layer reads the structs, maps handles, and turns errors into statuses.
#include <cstdint>

#include "c_api/api_guard.h"
#include "c_api/batch_launch.h"
#include "c_api/handle_table.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/context.h"
#include "core/convert/convert_plan.h"
#include "core/stage/stager.h"
#include "ferry/batch.h"

using namespace ferry;

namespace ferry::api {

ferry_batch_t launch_batch(core::Context& context, std::uint64_t context_id, const core::SourceDesc& source,
                           const core::Transform& transform, const core::OutputDesc* output,
                           const ferry_submit_options& c_options, const core::SubmitOptions& options) {
  core::Stager& stager = context.stager();
  std::shared_ptr<core::Batch> batch = stager.prepare(source, transform, output, options);
  std::uint64_t id = 0;
  try {
    id = batch_table().insert(batch, context_id);
  } catch (...) {
    stager.abandon(batch);
    throw;
  }
  if (c_options.callback != nullptr) {
    // The C callback gets the batch's handle, known only now, before the work starts.
    batch->submitted.on_complete = [callback = c_options.callback, user_data = c_options.user_data, id](Status status) {
      callback(handle_of<ferry_batch_t>(id), to_c(status), user_data);
    };
  }
  stager.launch(batch);
  return handle_of<ferry_batch_t>(id);
}

}  // namespace ferry::api

extern "C" {

FERRY_API ferry_status ferry_submit_options_init(ferry_submit_options* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_submit_options>(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_submit(ferry_batch_t* out, ferry_context_t ctx, const ferry_source* source,
                                          const ferry_transform* transform, const ferry_output* output,
                                          const ferry_submit_options* options) {
  FERRY_API_BEGIN
  api::require(out, "out");
  auto context = api::get_context(ctx);
  const core::SourceDesc src = api::to_core(api::read_struct(source, "source", api::c_defaults<ferry_source>()));
  const core::Transform tr =
      api::to_core(api::read_optional_struct(transform, "transform", api::c_defaults<ferry_transform>()));
  core::OutputDesc dst;
  if (output != nullptr) dst = api::to_core(api::read_struct(output, "output", api::c_defaults<ferry_output>()));
  const ferry_submit_options c_opts =
      api::read_optional_struct(options, "options", api::c_defaults<ferry_submit_options>());

  *out = api::launch_batch(*context, api::handle_id(ctx), src, tr, output != nullptr ? &dst : nullptr, c_opts,
                           api::to_core(c_opts));
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_wait(ferry_batch_t batch) {
  FERRY_API_BEGIN
  api::BatchCall call = api::call_batch(batch);
  call.stager().wait(*call.batch);
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_query(ferry_batch_t batch) {
  FERRY_API_BEGIN
  api::BatchCall call = api::call_batch(batch);
  const bool done = call.stager().query(*call.batch);
  api::clear_last_error();  // Status::NotReady is not a failure
  FERRY_API_END_WITH(done ? FERRY_OK : FERRY_ERR_NOT_READY)
}

FERRY_API ferry_status ferry_batch_handoff(ferry_batch_t batch, ferry_cuda_stream stream) {
  FERRY_API_BEGIN
  api::BatchCall call = api::call_batch(batch);
  call.stager().stream_wait(*call.batch, stream);
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_query_source(int* out, ferry_batch_t batch) {
  FERRY_API_BEGIN
  api::require(out, "out");
  api::BatchCall call = api::call_batch(batch);
  *out = call.stager().source_reusable(*call.batch) ? 1 : 0;
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_wait_source(ferry_batch_t batch) {
  FERRY_API_BEGIN
  api::BatchCall call = api::call_batch(batch);
  call.stager().wait_source(*call.batch);
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_describe_output(ferry_tensor_info* out, ferry_batch_t batch) {
  FERRY_API_BEGIN
  api::read_struct(out, "out", api::c_defaults<ferry_tensor_info>());  // checks out->struct_size
  auto b = api::batch_table().get(api::handle_id(batch), "batch");
  api::write_struct(out, api::to_c(b->submitted.info), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_batch_release(ferry_batch_t batch) {
  FERRY_API_BEGIN
  if (batch == nullptr) return FERRY_OK;
  api::BatchTable::Taken b = api::batch_table().take(api::handle_id(batch), "batch");
  // A context that is gone gave the batch's memory back when it was destroyed.
  if (std::optional<api::ContextTable::Ref> context = api::context_table().find(b.parent))
    (*context)->stager().release(*b.object);
  FERRY_API_END
}

}  // extern "C"
