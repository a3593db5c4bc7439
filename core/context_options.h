// The defaults and the validation of ferry_context_options.
#pragma once

#include "ferry/context.h"

namespace ferry::core {

ferry_context_options default_context_options() noexcept;

// Throws ferry::Error naming the first bad field and its value.
void validate_context_options(const ferry_context_options& options);

}  // namespace ferry::core
