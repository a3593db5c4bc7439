// The C ABI of ferry/memory.h (allocation, registration, trim): argument
// checks here, the work in core/memory (MemorySystem).
#include "c_api/api_guard.h"
#include "c_api/handle_table.h"
#include "core/memory/memory_system.h"
#include "ferry/memory.h"

using namespace ferry;

FERRY_API ferry_status ferry_memory_alloc_host(void** out, ferry_context_t ctx, size_t bytes) {
  FERRY_API_BEGIN
  api::require(out, "out");
  auto context = api::get_context(ctx);
  *out = context->memory().pinned_pool().allocate(bytes);
  FERRY_API_END
}

FERRY_API ferry_status ferry_memory_free_host(ferry_context_t ctx, void* ptr) {
  FERRY_API_BEGIN
  auto context = api::get_context(ctx);
  if (ptr != nullptr) context->memory().pinned_pool().free(ptr);
  FERRY_API_END
}

FERRY_API ferry_status ferry_memory_free_host_on_stream(ferry_context_t ctx, void* ptr, ferry_cuda_stream stream) {
  FERRY_API_BEGIN
  auto context = api::get_context(ctx);
  if (ptr != nullptr) context->memory().pinned_pool().free_on_stream(ptr, stream);
  FERRY_API_END
}

FERRY_API ferry_status ferry_memory_register_host(ferry_context_t ctx, const void* ptr, size_t bytes) {
  FERRY_API_BEGIN
  auto context = api::get_context(ctx);
  context->memory().registry().register_explicit(ptr, bytes);
  FERRY_API_END
}

FERRY_API ferry_status ferry_memory_unregister_host(ferry_context_t ctx, const void* ptr) {
  FERRY_API_BEGIN
  auto context = api::get_context(ctx);
  api::require(ptr, "ptr");
  context->memory().registry().unregister(ptr);
  FERRY_API_END
}

FERRY_API ferry_status ferry_memory_alloc_device(void** out, ferry_context_t ctx, size_t bytes,
                                                 ferry_cuda_stream stream) {
  FERRY_API_BEGIN
  api::require(out, "out");
  auto context = api::get_context(ctx);
  *out = context->memory().device_cache().allocate(bytes, stream);
  FERRY_API_END
}

FERRY_API ferry_status ferry_memory_free_device(ferry_context_t ctx, void* ptr, ferry_cuda_stream stream) {
  FERRY_API_BEGIN
  auto context = api::get_context(ctx);
  if (ptr != nullptr) context->memory().device_cache().free(ptr, stream);
  FERRY_API_END
}

FERRY_API ferry_status ferry_memory_trim(ferry_context_t ctx, unsigned kinds) {
  FERRY_API_BEGIN
  auto context = api::get_context(ctx);
  // The staging ring's idle buffers first: they are pinned-pool blocks, which the pool's trim then frees.
  if (kinds & core::kMemoryPinned) context->stager().trim_staging();
  context->memory().trim(kinds);
  FERRY_API_END
}
