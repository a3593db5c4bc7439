// core's Status and the C ABI's ferry_status: the same numbers, checked here
// one by one, so the boundary converts with a cast.
#pragma once

#include "core/status.h"
#include "ferry/common.h"

namespace ferry::api {

#define FERRY_SAME_STATUS(c_value, core_value) \
  static_assert(static_cast<int>(c_value) == static_cast<int>(Status::core_value), #c_value)
FERRY_SAME_STATUS(FERRY_OK, Ok);
FERRY_SAME_STATUS(FERRY_ERR_INVALID_ARGUMENT, InvalidArgument);
FERRY_SAME_STATUS(FERRY_ERR_INVALID_HANDLE, InvalidHandle);
FERRY_SAME_STATUS(FERRY_ERR_STRUCT_SIZE, StructSize);
FERRY_SAME_STATUS(FERRY_ERR_UNSUPPORTED, Unsupported);
FERRY_SAME_STATUS(FERRY_ERR_OVERFLOW, Overflow);
FERRY_SAME_STATUS(FERRY_ERR_OUT_OF_RANGE, OutOfRange);
FERRY_SAME_STATUS(FERRY_ERR_OUT_OF_MEMORY, OutOfMemory);
FERRY_SAME_STATUS(FERRY_ERR_NO_DEVICE, NoDevice);
FERRY_SAME_STATUS(FERRY_ERR_CUDA, Cuda);
FERRY_SAME_STATUS(FERRY_ERR_NOT_FOUND, NotFound);
FERRY_SAME_STATUS(FERRY_ERR_ALREADY_EXISTS, AlreadyExists);
FERRY_SAME_STATUS(FERRY_ERR_NOT_READY, NotReady);
FERRY_SAME_STATUS(FERRY_ERR_BUSY, Busy);
FERRY_SAME_STATUS(FERRY_ERR_SOURCE_TOO_SMALL, SourceTooSmall);
FERRY_SAME_STATUS(FERRY_ERR_INTERNAL, Internal);
FERRY_SAME_STATUS(FERRY_ERR_OUTPUT_TOO_SMALL, OutputTooSmall);
#undef FERRY_SAME_STATUS

inline ferry_status to_c(Status status) noexcept { return static_cast<ferry_status>(status); }

}  // namespace ferry::api
