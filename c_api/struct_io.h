// Reading and writing the C ABI's size-prefixed structs.
//
// A caller compiled against an older header passes a smaller struct: the
// fields it lacks take their defaults. Only the sizes of released layouts are
// accepted (struct_versions.h), never one that ends inside a field. A caller
// compiled against a newer header passes a larger one: accepted only if every
// byte this library does not know is zero (an unknown option that is set must
// not be ignored).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "c_api/struct_versions.h"
#include "core/error.h"

namespace ferry::api {

// Anything larger than this is taken for garbage, not for a newer header.
constexpr std::size_t max_struct_size = 1 << 16;

// A C struct of this library's size, every byte zero (padding included:
// write_struct copies bytes), to fill field by field.
template <typename CStruct>
CStruct sized() {
  CStruct c;
  std::memset(static_cast<void*>(&c), 0, sizeof c);
  c.struct_size = sizeof c;
  return c;
}

// A released layout's size, or a larger one (a newer header; its tail is checked by the caller).
// `name` names the struct, e.g. "options" for options->struct_size.
template <typename T>
void check_struct_size(std::size_t given, const char* name, const char* field = "->struct_size") {
  const bool known = given < sizeof(T) ? is_released_size<T>(given) : given <= max_struct_size;
  if (known) return;
  std::string sizes;
  for (std::size_t size : ReleasedSizes<T>::values) sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
  fail(Status::StructSize, name, field, " is ", given, ": expected the size of a released layout (",
       sizes, " bytes, this library's sizeof is ", sizeof(T),
       ") or a newer, larger one (set it with the struct's _init function)");
}

// Returns a full-size copy of *in; fields beyond in->struct_size keep `defaults`.
template <typename T>
T read_struct(const T* in, const char* name, const T& defaults) {
  FERRY_EXPECT(in != nullptr, Status::InvalidArgument, name, " is NULL");
  std::size_t given = 0;
  std::memcpy(&given, in, sizeof given);
  check_struct_size<T>(given, name);
  T value = defaults;
  const std::size_t common = given < sizeof(T) ? given : sizeof(T);
  std::memcpy(static_cast<void*>(&value), static_cast<const void*>(in), common);
  if (given > sizeof(T)) {
    const auto* tail = reinterpret_cast<const unsigned char*>(in) + sizeof(T);
    for (std::size_t i = 0; i < given - sizeof(T); ++i)
      FERRY_EXPECT(tail[i] == 0, Status::StructSize, name, "->struct_size is ", given,
                   ": this library (", sizeof(T), " bytes) does not know the non-zero field at byte ",
                   sizeof(T) + i, "; update libferry");
  }
  value.struct_size = sizeof(T);
  return value;
}

// Like read_struct, but NULL means "all defaults".
template <typename T>
T read_optional_struct(const T* in, const char* name, const T& defaults) {
  return in == nullptr ? defaults : read_struct(in, name, defaults);
}

// Writes `value` into the caller's struct, as much as its struct_size holds;
// a larger caller struct gets its unknown tail zeroed.
template <typename T>
void write_struct(T* out, const T& value, const char* name) {
  FERRY_EXPECT(out != nullptr, Status::InvalidArgument, name, " is NULL");
  std::size_t given = 0;
  std::memcpy(&given, out, sizeof given);
  check_struct_size<T>(given, name);
  const std::size_t common = given < sizeof(T) ? given : sizeof(T);
  std::memcpy(static_cast<void*>(out), static_cast<const void*>(&value), common);
  if (given > sizeof(T)) std::memset(reinterpret_cast<unsigned char*>(out) + sizeof(T), 0, given - sizeof(T));
  std::memcpy(out, &given, sizeof given);
}

// An _init function: fills the caller's struct of struct_size bytes with defaults.
template <typename T>
void init_struct(T* out, std::size_t struct_size, const T& defaults, const char* name) {
  FERRY_EXPECT(out != nullptr, Status::InvalidArgument, name, " is NULL");
  check_struct_size<T>(struct_size, "struct_size", "");
  std::memset(static_cast<void*>(out), 0, struct_size);
  T value = defaults;
  value.struct_size = struct_size;
  const std::size_t common = struct_size < sizeof(T) ? struct_size : sizeof(T);
  std::memcpy(static_cast<void*>(out), static_cast<const void*>(&value), common);
}

}  // namespace ferry::api
