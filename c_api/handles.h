// The handle tables of the C ABI: contexts (and, with the pipeline, batches).
#pragma once

#include <cstdint>
#include <memory>

#include "c_api/context_table.h"
#include "core/context.h"
#include "ferry/context.h"

namespace ferry::api {

ContextTable& context_table();

// Called by ferry_context_destroy after the context left the table and before
// it is destroyed: invalidates the handles of objects the context owns
// (batches), so they answer FERRY_ERR_INVALID_HANDLE from then on.
void on_context_destroyed(core::Context& context) noexcept;

inline std::uint64_t handle_id(ferry_context_t ctx) { return reinterpret_cast<std::uintptr_t>(ctx); }

// The live context behind `ctx` for the length of a call, or
// FERRY_ERR_INVALID_HANDLE naming `argument`.
inline ContextTable::Ref get_context(ferry_context_t ctx, const char* argument = "ctx") {
  return context_table().get(handle_id(ctx), argument);
}

// Pointer arguments: NULL is FERRY_ERR_INVALID_ARGUMENT naming the argument.
template <typename P>
P* require(P* pointer, const char* argument) {
  FERRY_EXPECT(pointer != nullptr, Status::InvalidArgument, argument, " is NULL");
  return pointer;
}

}  // namespace ferry::api
