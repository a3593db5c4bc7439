// Contexts in the C ABI (ferry/context.h).
#include <cstdint>

#include "c_api/api_guard.h"
#include "c_api/handle_table.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/context_options.h"
#include "core/stage/stager.h"
#include "ferry/context.h"

using namespace ferry;

extern "C" {

FERRY_API ferry_status ferry_context_options_init(ferry_context_options* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_context_options>(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_context_create(ferry_context_t* out, const ferry_context_options* options) {
  FERRY_API_BEGIN
  api::require(out, "out");
  const core::ContextOptions opts =
      api::to_core(api::read_optional_struct(options, "options", api::c_defaults<ferry_context_options>()));
  auto context = std::make_shared<core::Context>(opts);
  *out = api::handle_of<ferry_context_t>(api::context_table().insert(std::move(context)));
  FERRY_API_END
}

FERRY_API ferry_status ferry_context_destroy(ferry_context_t ctx) {
  FERRY_API_BEGIN
  if (ctx == nullptr) return FERRY_OK;
  // The completion thread would wait for itself (std::terminate): refuse, and
  // leave the context as it is.
  FERRY_EXPECT(!core::Stager::on_completion_thread(), Status::InvalidArgument,
               "ctx: ferry_context_destroy was called from a batch completion callback, on ferry's completion "
               "thread, which the destroy would wait for; destroy the context from another thread");
  std::shared_ptr<core::Context> context = api::context_table().take(api::handle_id(ctx), "ctx").object;
  api::on_context_destroyed(api::handle_id(ctx));
  context.reset();  // the destructor waits for batches in flight, then frees everything
  FERRY_API_END
}

FERRY_API ferry_status ferry_context_get_device(ferry_device_kind* out_kind, int* out_index,
                                                ferry_context_t ctx) {
  FERRY_API_BEGIN
  api::require(out_kind, "out_kind");
  api::require(out_index, "out_index");
  auto context = api::get_context(ctx);
  *out_kind = static_cast<ferry_device_kind>(context->kind());
  *out_index = context->device_index();
  FERRY_API_END
}

}  // extern "C"
