#include "core/device/stream_pool.h"

#include "core/error.h"

namespace ferry::core {

StreamPool::StreamPool(DeviceRuntime& backend, int count, bool high_priority, int high_priority_extra)
    : backend_(backend), high_priority_(high_priority) {
  FERRY_EXPECT(count >= 1 && count <= 64, Status::InvalidArgument, "stream_count is ", count,
               ": expected 1..64");
  streams_.reserve(static_cast<std::size_t>(count));
  try {
    for (int i = 0; i < count; ++i) streams_.push_back(backend_.stream_create(high_priority));
    normal_ = streams_.size();
    if (!high_priority && backend_.has_streams())
      for (int i = 0; i < high_priority_extra; ++i) streams_.push_back(backend_.stream_create(true));
    extra_ = streams_.size() - normal_;
  } catch (...) {
    for (StreamHandle s : streams_) backend_.stream_destroy(s);
    throw;
  }
}

StreamPool::~StreamPool() {
  for (StreamHandle s : streams_) backend_.stream_destroy(s);
}

}  // namespace ferry::core
