// The boundary between the C ABI and the C++ core. Every exported function's
// body runs inside FERRY_API_BEGIN / FERRY_API_END: a ferry::Error becomes its
// status, std::bad_alloc FERRY_ERR_OUT_OF_MEMORY, anything else
// FERRY_ERR_INTERNAL, each with the thread-local last-error message set. On
// success the last error is cleared. No exception crosses the ABI.
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
const char* last_error_text() noexcept;

}  // namespace ferry::api

#define FERRY_API_BEGIN try {
#define FERRY_API_END                                                                     \
  ::ferry::api::clear_last_error();                                                       \
  return FERRY_OK;                                                                        \
  }                                                                                       \
  catch (const ::ferry::Error& e) {                                                       \
    return ::ferry::api::set_last_error(::ferry::api::to_c(e.status()), __func__, e.what());                  \
  }                                                                                       \
  catch (const std::bad_alloc&) {                                                         \
    return ::ferry::api::set_last_error(FERRY_ERR_OUT_OF_MEMORY, __func__,                \
                                        "host memory exhausted (std::bad_alloc)");        \
  }                                                                                       \
  catch (const std::exception& e) {                                                       \
    return ::ferry::api::set_last_error(FERRY_ERR_INTERNAL, __func__, e.what());          \
  }                                                                                       \
  catch (...) {                                                                           \
    return ::ferry::api::set_last_error(FERRY_ERR_INTERNAL, __func__, "unknown exception"); \
  }

// For functions that return a status other than FERRY_OK without it being an
// error (ferry_batch_query's FERRY_ERR_NOT_READY): the body returns the status itself.
#define FERRY_API_END_WITH(expr)                                                          \
  return (expr);                                                                          \
  }                                                                                       \
  catch (const ::ferry::Error& e) {                                                       \
    return ::ferry::api::set_last_error(::ferry::api::to_c(e.status()), __func__, e.what());                  \
  }                                                                                       \
  catch (const std::bad_alloc&) {                                                         \
    return ::ferry::api::set_last_error(FERRY_ERR_OUT_OF_MEMORY, __func__,                \
                                        "host memory exhausted (std::bad_alloc)");        \
  }                                                                                       \
  catch (const std::exception& e) {                                                       \
    return ::ferry::api::set_last_error(FERRY_ERR_INTERNAL, __func__, e.what());          \
  }                                                                                       \
  catch (...) {                                                                           \
    return ::ferry::api::set_last_error(FERRY_ERR_INTERNAL, __func__, "unknown exception"); \
  }
