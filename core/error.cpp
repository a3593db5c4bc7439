#include "core/error.h"

#include <new>

namespace ferry {
namespace {

// Made when the library loads: reporting that memory ran out must not need memory.
const Error kHostMemoryExhausted(Status::OutOfMemory, "host memory exhausted (std::bad_alloc)");
const Error kUnknownException(Status::Internal, "unknown exception");

}  // namespace

Error error_of_current_exception() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return e;  // copying an exception's message shares it: no allocation
  } catch (const std::bad_alloc&) {
    return kHostMemoryExhausted;
  } catch (const std::exception& e) {
    try {
      return Error(Status::Internal, e.what());
    } catch (...) {
      return kHostMemoryExhausted;
    }
  } catch (...) {
    return kUnknownException;
  }
}

}  // namespace ferry
