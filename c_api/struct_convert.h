// The C ABI's structs and core's value types, converted in one place. Every
// struct's defaults come from core's value types (a default-constructed core
// value, converted), so each default is written once. Enum fields are read
// as the int the caller stored and carried into core's int-based enums,
// where they are validated.
#pragma once

#include <cstring>
#include <type_traits>

#include "core/context_options.h"
#include "core/convert/descriptors.h"
#include "core/device/device_query.h"
#include "core/stage/submit_options.h"
#include "core/stats.h"
#include "ferry/batch.h"
#include "ferry/context.h"
#include "ferry/device.h"
#include "ferry/stats.h"
#include "ferry/transform.h"

namespace ferry::api {

// The int stored in a C enum field, without loading it as the enum (a value
// outside the enumeration is undefined behaviour to load in C++).
template <typename E>
int enum_field_value(const E& field) noexcept {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int), "a C enum field is stored as an int");
  int value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

core::SourceDesc to_core(const ferry_source& s);
core::Transform to_core(const ferry_transform& t);
core::OutputDesc to_core(const ferry_output& o);
core::ContextOptions to_core(const ferry_context_options& o);
// Everything but the callback, which needs the batch's handle (batch_api.cpp).
core::SubmitOptions to_core(const ferry_submit_options& o);

ferry_source to_c(const core::SourceDesc& s);
ferry_transform to_c(const core::Transform& t);
ferry_output to_c(const core::OutputDesc& o);
ferry_context_options to_c(const core::ContextOptions& o);
ferry_tensor_info to_c(const core::TensorDesc& t);
ferry_stats to_c(const core::Stats& s);
ferry_device_properties to_c(const core::DeviceProperties& p);

// The defaults of each C struct, as its _init function gives them.
template <typename CStruct>
CStruct c_defaults();

}  // namespace ferry::api
