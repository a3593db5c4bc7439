// Version, status names and the thread-local last error.
#include <cstring>
#include <string>

#include "c_api/api_guard.h"
#include "c_api/struct_convert.h"
#include "ferry/common.h"

namespace ferry::api {
namespace {
thread_local std::string last_error;
}

ferry_status set_last_error(ferry_status status, const char* function, const char* message) noexcept {
  try {
    last_error.assign(function);
    last_error.append(": ");
    last_error.append(message);
  } catch (...) {
    // Out of memory while reporting: keep whatever fits; the status still says what happened.
  }
  return status;
}

void clear_last_error() noexcept { last_error.clear(); }

const char* last_error_text() noexcept { return last_error.c_str(); }

}  // namespace ferry::api

extern "C" {

FERRY_API int ferry_version(void) { return FERRY_VERSION_NUMBER; }

FERRY_API const char* ferry_version_string(void) {
#define FERRY_STR2(x) #x
#define FERRY_STR(x) FERRY_STR2(x)
#if FERRY_HAVE_CUDA
  return FERRY_STR(FERRY_VERSION_MAJOR) "." FERRY_STR(FERRY_VERSION_MINOR) "." FERRY_STR(
      FERRY_VERSION_PATCH) " (CUDA and CPU backends)";
#else
  return FERRY_STR(FERRY_VERSION_MAJOR) "." FERRY_STR(FERRY_VERSION_MINOR) "." FERRY_STR(
      FERRY_VERSION_PATCH) " (CPU backend only)";
#endif
}

FERRY_API const char* ferry_status_string(ferry_status status) {
  // A C caller may pass any int: switch on the int, never on an enum value
  // outside the enumeration (undefined behaviour in C++).
  switch (ferry::api::enum_field_value(status)) {
#define FERRY_CASE(name) \
  case name:             \
    return #name;
    FERRY_CASE(FERRY_OK)
    FERRY_CASE(FERRY_ERR_INVALID_ARGUMENT)
    FERRY_CASE(FERRY_ERR_INVALID_HANDLE)
    FERRY_CASE(FERRY_ERR_STRUCT_SIZE)
    FERRY_CASE(FERRY_ERR_UNSUPPORTED)
    FERRY_CASE(FERRY_ERR_OVERFLOW)
    FERRY_CASE(FERRY_ERR_OUT_OF_RANGE)
    FERRY_CASE(FERRY_ERR_OUT_OF_MEMORY)
    FERRY_CASE(FERRY_ERR_NO_DEVICE)
    FERRY_CASE(FERRY_ERR_CUDA)
    FERRY_CASE(FERRY_ERR_NOT_FOUND)
    FERRY_CASE(FERRY_ERR_ALREADY_EXISTS)
    FERRY_CASE(FERRY_ERR_NOT_READY)
    FERRY_CASE(FERRY_ERR_BUSY)
    FERRY_CASE(FERRY_ERR_SOURCE_TOO_SMALL)
    FERRY_CASE(FERRY_ERR_INTERNAL)
    FERRY_CASE(FERRY_ERR_OUTPUT_TOO_SMALL)
#undef FERRY_CASE
  }
  return "FERRY_STATUS_UNKNOWN";
}

FERRY_API const char* ferry_last_error(void) { return ferry::api::last_error_text(); }

}  // extern "C"
