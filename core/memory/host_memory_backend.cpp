#include "core/memory/host_memory_backend.h"

#include <cstdlib>

namespace ferry::core {

void* HostMemoryBackend::aligned(std::size_t bytes) noexcept {
  void* p = nullptr;
  return posix_memalign(&p, kAlignment, bytes) == 0 ? p : nullptr;
}

void HostMemoryBackend::device_free(void* ptr) noexcept { std::free(ptr); }
void HostMemoryBackend::pinned_free(void* ptr, std::size_t) noexcept { std::free(ptr); }

}  // namespace ferry::core
