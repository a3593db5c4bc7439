// Byte-strided 4-D layouts given by callers: 0 strides resolved to "packed",
// then checked: no negative stride, no two elements at the same address, no
// size computation overflowing. Pure C++.
#pragma once

#include <cstdint>

namespace ferry::core {

struct StridedDim {
  const char* name;     // the argument, for messages: "source.stride_h"
  std::int64_t size;    // elements along this dimension (> 0)
  std::int64_t stride;  // bytes; 0 = packed (on input to resolve_packed)
};

// dims innermost first. A 0 stride becomes the byte span of the dimensions
// inside it (so a caller may give only a row pitch and leave the rest 0).
void resolve_packed_strides(StridedDim* dims, int count, std::int64_t element_size);

// Checks the resolved layout and returns its extent in bytes (the offset of
// the last element plus its size). Throws Status::InvalidArgument for a
// negative stride or overlapping elements, Status::Overflow for sizes that
// do not fit 63 bits. element_size: strides must be multiples of it.
std::uint64_t checked_layout_extent(const StridedDim* dims, int count, std::int64_t element_size);

}  // namespace ferry::core
