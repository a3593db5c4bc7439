#include "core/stage/stream_inputs.h"

namespace ferry::core {

StreamInputs::StreamInputs(DeviceCache& cache, std::vector<StreamHandle> streams) : cache_(cache) {
  for (StreamHandle s : streams) {
    entries_.push_back(std::make_unique<Entry>());
    entries_.back()->stream = s;
  }
}

StreamInputs::~StreamInputs() {
  for (auto& e : entries_) {
    if (e->buffer == nullptr) continue;
    try {
      cache_.free(e->buffer, e->stream);
    } catch (...) {
      // The cache frees every segment when it is destroyed.
    }
  }
}

StreamInputs::Lease StreamInputs::lease(std::size_t index, std::size_t bytes) {
  Entry& e = *entries_.at(index);
  std::unique_lock<std::mutex> lock(e.mutex);
  if (e.bytes < bytes) {
    void* grown = cache_.allocate(bytes, e.stream);
    if (e.buffer != nullptr) cache_.free(e.buffer, e.stream);
    e.buffer = grown;
    e.bytes = bytes;
  }
  return Lease(std::move(lock), e.stream, e.buffer);
}

}  // namespace ferry::core
