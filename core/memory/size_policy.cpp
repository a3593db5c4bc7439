#include "core/memory/size_policy.h"

#include "core/checked_math.h"
#include "core/error.h"

namespace ferry::core {

std::size_t SizePolicy::round_request(std::size_t bytes, const char* what) const {
  FERRY_EXPECT(bytes > 0, Status::InvalidArgument, what, " is 0: an allocation needs at least one byte");
  const std::uint64_t q = bytes > medium_limit ? large_quantum : quantum;
  const std::uint64_t rounded = checked_align_up(bytes, q, what);
  FERRY_EXPECT(rounded <= SIZE_MAX, Status::Overflow, what, " is ", bytes, ": rounded up it overflows size_t");
  return static_cast<std::size_t>(rounded);
}

std::size_t SizePolicy::segment_size(std::size_t rounded) const {
  if (rounded <= small_limit) return small_segment;
  if (rounded <= medium_limit) return medium_segment;
  return rounded;  // already a multiple of large_quantum
}

bool SizePolicy::can_serve(std::size_t block_size, std::size_t rounded) const {
  if (block_size < rounded) return false;
  if (is_huge(block_size) || is_huge(rounded)) return block_size - rounded <= rounded / 8;
  return true;
}

bool SizePolicy::should_split(std::size_t block_size, std::size_t rounded) const {
  if (is_huge(block_size) || is_huge(rounded)) return false;
  const std::size_t remainder = block_size - rounded;
  if (is_small(rounded)) return remainder >= quantum;
  return separate_small_pool ? remainder > large_split_min : remainder >= quantum;
}

}  // namespace ferry::core
