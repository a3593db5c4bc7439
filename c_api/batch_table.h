// The batch handles of the C ABI: ferry_batch_t values are ids in this table
// (tag 0xBA), so a released batch, or one whose context was destroyed,
// answers FERRY_ERR_INVALID_HANDLE instead of touching freed memory.
#pragma once

#include <cstdint>
#include <memory>

#include "c_api/handle_table.h"
#include "core/stage/batch.h"
#include "ferry/batch.h"

namespace ferry::api {

HandleTable<core::Batch>& batch_table();

inline std::uint64_t handle_id(ferry_batch_t batch) { return reinterpret_cast<std::uintptr_t>(batch); }
inline ferry_batch_t batch_handle(std::uint64_t id) {
  return reinterpret_cast<ferry_batch_t>(static_cast<std::uintptr_t>(id));
}

// The live batch behind `batch`, or FERRY_ERR_INVALID_HANDLE.
inline std::shared_ptr<core::Batch> get_batch(ferry_batch_t batch, const char* argument = "batch") {
  return batch_table().get(handle_id(batch), argument);
}

}  // namespace ferry::api
