// transform.augment read into core's Transform (c_api/augment_api.cpp).
#pragma once

#include "core/convert/descriptors.h"
#include "ferry/augment.h"

namespace ferry::api {

// Reads *in (NULL: nothing) into out.augment and sets out.has_augment; a
// non-NULL `drawn` gets the draws when the plan is built, through in itself
// (which must outlive the call that reads it).
void read_augment(const ferry_augment* in, core::Transform& out);

}  // namespace ferry::api
