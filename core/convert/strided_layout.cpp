#include "core/convert/strided_layout.h"

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
  StridedDim sorted[8];  // entries 0 .. used-1 only: not cleared (a rep stos was a third of this check's time)
  int used = 0;
  for (int i = 0; i < count; ++i) {
    FERRY_EXPECT(dims[i].stride >= 0, Status::InvalidArgument, dims[i].name, " is ", dims[i].stride,
                 ": strides must not be negative");
    FERRY_EXPECT(element_size == 1 || dims[i].stride % element_size == 0, Status::InvalidArgument, dims[i].name, " is ",
                 dims[i].stride, ": not a multiple of the element size ", element_size);
    if (dims[i].size > 1) sorted[used++] = dims[i];
  }
  // Stable insertion sort by stride: at most 8 entries, and std::stable_sort
  // allocated a buffer on every call (a plan checks each sample's layout:
  // 256 images of their own sizes spent half their plan's time here).
  for (int i = 1; i < used; ++i) {
    const StridedDim d = sorted[i];
    int j = i;
    for (; j > 0 && sorted[j - 1].stride > d.stride; --j)
      sorted[j] = sorted[j - 1];
    sorted[j] = d;
  }
  // Sufficient for no overlap: each stride steps past everything the smaller
  // strides reach (the usual rule for padded, sliced or permuted tensors).
  std::uint64_t span = static_cast<std::uint64_t>(element_size);
  for (int i = 0; i < used; ++i) {
    const StridedDim& d = sorted[i];
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
