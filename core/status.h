// What went wrong, as one value. The C ABI's status enum has the same
// numbers (c_api/status_map.h checks each one), so the boundary converts
// without a table.
#pragma once

namespace ferry {

enum class Status : int {
  Ok = 0,
  InvalidArgument = 1,
  InvalidHandle = 2,
  StructSize = 3,
  Unsupported = 4,
  Overflow = 5,
  OutOfRange = 6,
  OutOfMemory = 7,
  NoDevice = 8,
  Cuda = 9,
  NotFound = 10,
  AlreadyExists = 11,
  NotReady = 12,
  Busy = 13,
  SourceTooSmall = 14,
  Internal = 15,
  OutputTooSmall = 16,
};

}  // namespace ferry
