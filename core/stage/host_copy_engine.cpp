// The host CopyEngine: copies at once with memcpy; events are tokens that are
// always complete. Used by the CPU backend's tests of the staged pipeline.
#include <cstring>

#include "core/stage/copy_engine.h"

namespace ferry::core {
namespace {

class HostCopyEngine final : public CopyEngine {
 public:
  bool asynchronous() const noexcept override { return false; }
  int enter_device() override { return 0; }
  void restore_device(int) noexcept override {}
  HostMemoryKind pointer_kind(const void*) override { return HostMemoryKind::kPageable; }

  void copy(void* dst, const void* src, std::size_t bytes, StreamHandle) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows, StreamHandle) override {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(d + r * dpitch, s + r * spitch, width);
  }
  void stream_wait(StreamHandle, EventHandle) override {}

  // A token distinct from nullptr; never dereferenced.
  EventHandle timing_event_acquire() override { return this; }
  void timing_event_release(EventHandle) noexcept override {}
  void record(EventHandle, StreamHandle) override {}
  float elapsed_ms(EventHandle, EventHandle) override { return 0.0f; }
};

}  // namespace

std::unique_ptr<CopyEngine> make_host_copy_engine() { return std::make_unique<HostCopyEngine>(); }

}  // namespace ferry::core
