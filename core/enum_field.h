// Reading an enum field of a caller's C struct. C stores any int in an enum
// object, and a C caller may (a value from a newer header, garbage, a binding
// that passes integers). In C++, loading a value outside the enumeration's
// range is undefined behaviour (UBSan: "load of value ..., which is not a
// valid value for type"). So such a field is read as the int it holds and
// validated; only a valid value becomes the enum.
#pragma once

#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "core/error.h"

namespace ferry::core {

// The int stored in a C enum field, without loading it as the enum.
template <typename E>
int enum_field_value(const E& field) noexcept {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int), "a C enum field is stored as an int");
  int value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

// The field's value as E if it is one of `valid`; otherwise throws
// FERRY_ERR_UNSUPPORTED: "<name> is <value>: expected <expected>".
template <typename E>
E checked_enum_field(const E& field, std::initializer_list<E> valid, const char* name, const char* expected) {
  const int value = enum_field_value(field);
  for (E e : valid)
    if (value == static_cast<int>(e)) return e;
  fail(FERRY_ERR_UNSUPPORTED, name, " is ", value, ": expected ", expected);
}

}  // namespace ferry::core
