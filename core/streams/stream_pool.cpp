#include "core/streams/stream_pool.h"

#include "core/error.h"

namespace ferry::core {

StreamPool::StreamPool(MemoryBackend& backend, int count, bool high_priority)
    : backend_(backend), high_priority_(high_priority) {
  FERRY_EXPECT(count >= 1 && count <= 64, Status::InvalidArgument, "stream_count is ", count,
               ": expected 1..64");
  streams_.reserve(static_cast<std::size_t>(count));
  try {
    for (int i = 0; i < count; ++i) streams_.push_back(backend_.stream_create(high_priority));
  } catch (...) {
    for (StreamHandle s : streams_) backend_.stream_destroy(s);
    throw;
  }
}

StreamPool::~StreamPool() {
  for (StreamHandle s : streams_) backend_.stream_destroy(s);
}

}  // namespace ferry::core
