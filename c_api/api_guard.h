// The boundary between the C ABI and the C++ core. Every exported function's
// body runs inside FERRY_API_BEGIN / FERRY_API_END: an exception becomes its
// status (error_of_current_exception, core/error.h) with the thread-local
// last-error message set. On success the last error is cleared. No exception
// crosses the ABI.
#pragma once

#include <new>
#include <string>

#include "c_api/status_map.h"
#include "core/error.h"
#include "ferry/common.h"

namespace ferry::api {

// Sets the calling thread's last-error message and returns the status.
ferry_status set_last_error(ferry_status status, const char* function, const char* message) noexcept;
void clear_last_error() noexcept;
// Inside a catch block: the exception's status, with the last error set (core/error.h
// says how an exception becomes a status).
inline ferry_status fail_with_current_exception(const char* function) noexcept {
  const Error e = error_of_current_exception();
  return set_last_error(to_c(e.status()), function, e.what());
}
const char* last_error_text() noexcept;

// Pointer arguments: NULL is FERRY_ERR_INVALID_ARGUMENT naming the argument.
template <typename P>
P* require(P* pointer, const char* argument) {
  FERRY_EXPECT(pointer != nullptr, Status::InvalidArgument, argument, " is NULL");
  return pointer;
}

}  // namespace ferry::api

#define FERRY_API_BEGIN try {
#define FERRY_API_END                 \
  ::ferry::api::clear_last_error();   \
  return FERRY_OK;                    \
  }                                   \
  catch (...) {                       \
    return ::ferry::api::fail_with_current_exception(__func__); \
  }

// For functions that return a status other than FERRY_OK without it being an
// error (ferry_batch_query's FERRY_ERR_NOT_READY): the body returns the status itself.
#define FERRY_API_END_WITH(expr)      \
  return (expr);                      \
  }                                   \
  catch (...) {                       \
    return ::ferry::api::fail_with_current_exception(__func__); \
  }
