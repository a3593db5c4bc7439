// Handles owned by a context. The staging pipeline keeps its batch table here.
#include "c_api/handles.h"

namespace ferry::api {

void on_context_destroyed(core::Context& /*context*/) noexcept {
  // No context-owned handles yet: the staging pipeline's batch table is added with issue 5.
}

}  // namespace ferry::api
