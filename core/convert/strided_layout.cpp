#include "core/convert/strided_layout.h"

#include <algorithm>
#include <array>
#include <limits>

#include "core/checked_math.h"
#include "core/error.h"

namespace ferry::core {
namespace {
constexpr std::uint64_t max_offset = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

void resolve_packed_strides(StridedDim* dims, int count, std::int64_t element_size) {
  std::uint64_t running = static_cast<std::uint64_t>(element_size);
  for (int i = 0; i < count; ++i) {
    FERRY_EXPECT(dims[i].stride >= 0, Status::InvalidArgument, dims[i].name, " is ", dims[i].stride,
                 ": strides must not be negative");
    if (dims[i].stride == 0) {
      FERRY_EXPECT(running <= max_offset, Status::Overflow, dims[i].name,
                   ": the packed stride overflows 63 bits");
      dims[i].stride = static_cast<std::int64_t>(running);
    }
    running = checked_mul(static_cast<std::uint64_t>(dims[i].stride), static_cast<std::uint64_t>(dims[i].size),
                          dims[i].name);
  }
}

std::uint64_t checked_layout_extent(const StridedDim* dims, int count, std::int64_t element_size) {
  std::array<StridedDim, 8> sorted{};
  int used = 0;
  for (int i = 0; i < count; ++i) {
    FERRY_EXPECT(dims[i].stride >= 0, Status::InvalidArgument, dims[i].name, " is ", dims[i].stride,
                 ": strides must not be negative");
    FERRY_EXPECT(dims[i].stride % element_size == 0, Status::InvalidArgument, dims[i].name, " is ",
                 dims[i].stride, ": not a multiple of the element size ", element_size);
    if (dims[i].size > 1) sorted[static_cast<std::size_t>(used++)] = dims[i];
  }
  std::stable_sort(sorted.begin(), sorted.begin() + used,
                   [](const StridedDim& a, const StridedDim& b) { return a.stride < b.stride; });
  // Sufficient for no overlap: each stride steps past everything the smaller
  // strides reach (the usual rule for padded, sliced or permuted tensors).
  std::uint64_t span = static_cast<std::uint64_t>(element_size);
  for (int i = 0; i < used; ++i) {
    const StridedDim& d = sorted[static_cast<std::size_t>(i)];
    FERRY_EXPECT(static_cast<std::uint64_t>(d.stride) >= span, Status::InvalidArgument, d.name, " is ",
                 d.stride, ": elements overlap (the dimensions inside it span ", span, " bytes)");
    span = checked_add(checked_mul(static_cast<std::uint64_t>(d.stride), static_cast<std::uint64_t>(d.size - 1),
                                   d.name),
                       span, d.name);
  }
  FERRY_EXPECT(span <= max_offset, Status::Overflow, dims[count - 1].name, ": the layout spans ", span,
               " bytes, more than 63 bits");
  return span;
}

}  // namespace ferry::core
