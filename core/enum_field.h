// Validating an enum a caller filled in. Core's enums that come from callers
// have int as their fixed underlying type, so holding any int a C caller
// stored (a value from a newer header, garbage, a binding passing integers) is
// defined behaviour; it is checked here before anything switches on it.
#pragma once

#include <initializer_list>
#include <type_traits>

#include "core/error.h"

namespace ferry::core {

// `field` if it is one of `valid`; otherwise throws Status::Unsupported:
// "<name> is <value>: expected <expected>".
template <typename E>
E checked_enum_field(E field, std::initializer_list<E> valid, const char* name, const char* expected) {
  static_assert(std::is_same_v<std::underlying_type_t<E>, int>, "an enum a caller fills holds any int");
  for (E e : valid)
    if (field == e) return e;
  fail(Status::Unsupported, name, " is ", static_cast<int>(field), ": expected ", expected);
}

}  // namespace ferry::core
