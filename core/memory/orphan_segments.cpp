#include "core/memory/orphan_segments.h"

namespace ferry::core {

OrphanSegments::~OrphanSegments() {
  for (const auto& [base, segment] : segments_) backend_->device_free(reinterpret_cast<void*>(base));
}

void OrphanSegments::hold(const void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_.insert(reinterpret_cast<std::uintptr_t>(ptr));
}

void OrphanSegments::release(const void* ptr) noexcept {
  const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
  std::uintptr_t to_free = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (held_.erase(addr) == 0) return;
    auto owner = owner_.find(addr);
    if (owner == owner_.end()) return;  // not adopted yet: the cache will free its segment
    const std::uintptr_t base = owner->second;
    owner_.erase(owner);
    auto segment = segments_.find(base);
    if (--segment->second.held == 0) {
      segments_.erase(segment);
      to_free = base;
    }
  }
  // Outside the lock: cudaFree waits for the device's work on the segment.
  if (to_free != 0) backend_->device_free(reinterpret_cast<void*>(to_free));
}

bool OrphanSegments::adopt(std::uintptr_t base, std::size_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  Segment segment{size, 0};
  for (auto it = held_.lower_bound(base); it != held_.end() && *it < base + size; ++it) {
    owner_[*it] = base;
    ++segment.held;
  }
  if (segment.held == 0) return false;
  segments_.emplace(base, segment);
  return true;
}

std::size_t OrphanSegments::held_blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_.size();
}

std::size_t OrphanSegments::adopted_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t bytes = 0;
  for (const auto& [base, segment] : segments_) bytes += segment.size;
  return bytes;
}

}  // namespace ferry::core
