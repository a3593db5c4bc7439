/* ferry bindings: C++ helpers shared by the SWIG wrappers of every language.
 *
 * The %extend methods of ferry.i call the C API and turn a non-OK status into
 * a ferry_binding::Error; the %exception block of ferry.i catches it and raises
 * the language's exception for that status (FERRY_BINDING_RAISE, defined by each
 * language's .i). Nothing here touches the C++ core: only the public C ABI. */
#ifndef FERRY_BINDINGS_SUPPORT_H
#define FERRY_BINDINGS_SUPPORT_H

#include "ferry/ferry.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <string>

static_assert(sizeof(ferry_rect) == 4 * sizeof(long long), "ferry_rect is four int64 values");
static_assert(sizeof(ferry_rectf) == 4 * sizeof(float), "ferry_rectf is four floats");

namespace ferry_binding {

struct Error {
  ferry_status status;
  std::string message;
};

/* The status of a C call, with ferry's own message for the calling thread. */
inline void check(ferry_status status) {
  if (status != FERRY_OK) throw Error{status, ferry_last_error()};
}

/* An error the binding finds itself (a null array, too many values), in
 * ferry's style: the argument, its value, why. */
template <class... Parts>
[[noreturn]] void fail(ferry_status status, const Parts&... parts) {
  std::ostringstream text;
  (text << ... << parts);
  throw Error{status, text.str()};
}

/* A heap copy of `count` values that a binding-owned struct points to (the
 * per-sample arrays of ferry_transform, the samples of ferry_source). The
 * struct's %extend destructor frees it with free(). */
template <class T>
T* copy_array(const T* values, size_t count, const char* name) {
  if (values == nullptr) fail(FERRY_ERR_INVALID_ARGUMENT, name, " is null: an array is required");
  if (count == 0) fail(FERRY_ERR_INVALID_ARGUMENT, name, " has 0 entries: at least one is required");
  T* copy = static_cast<T*>(std::malloc(count * sizeof(T)));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, values, count * sizeof(T));
  return copy;
}

/* Copies at most `capacity` values into a fixed array field (mean[4], ...). */
template <class T>
void set_fixed(T* field, size_t capacity, const T* values, size_t count, const char* name) {
  if (values == nullptr) fail(FERRY_ERR_INVALID_ARGUMENT, name, " is null: an array is required");
  if (count == 0 || count > capacity)
    fail(FERRY_ERR_INVALID_ARGUMENT, name, " has ", count, " entries: 1 to ", capacity, " are allowed");
  for (size_t i = 0; i < count; ++i) field[i] = values[i];
}

/* Bounds-checked read of a fixed array field. */
template <class T>
T get_fixed(const T* field, int capacity, int index, const char* name) {
  if (index < 0 || index >= capacity)
    fail(FERRY_ERR_OUT_OF_RANGE, name, " index is ", index, ": 0 to ", capacity - 1, " are allowed");
  return field[index];
}

/* A struct allocated by a binding constructor and filled by its _init. */
template <class T>
T* new_struct(ferry_status (*init)(T*, size_t)) {
  T* value = static_cast<T*>(std::calloc(1, sizeof(T)));
  if (value == nullptr) throw std::bad_alloc();
  ferry_status status = init(value, sizeof(T));
  if (status != FERRY_OK) {
    std::free(value);
    check(status);
  }
  return value;
}

}  // namespace ferry_binding

#endif /* FERRY_BINDINGS_SUPPORT_H */
