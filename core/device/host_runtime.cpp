#include "core/device/host_runtime.h"

#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace ferry::core {

void* HostRuntime::aligned(std::size_t bytes) noexcept {
  void* p = nullptr;
  return posix_memalign(&p, kAlignment, bytes) == 0 ? p : nullptr;
}

void HostRuntime::device_free(void* ptr) noexcept { std::free(ptr); }

bool HostRuntime::memory_info(std::size_t* free_bytes, std::size_t* total_bytes) noexcept {
  const long page = sysconf(_SC_PAGESIZE), available = sysconf(_SC_AVPHYS_PAGES), pages = sysconf(_SC_PHYS_PAGES);
  if (page <= 0 || available < 0 || pages <= 0) return false;
  *free_bytes = static_cast<std::size_t>(available) * static_cast<std::size_t>(page);
  *total_bytes = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
  return true;
}
void HostRuntime::pinned_free(void* ptr, std::size_t) noexcept { std::free(ptr); }

void HostRuntime::copy(void* dst, const void* src, std::size_t bytes, StreamHandle) { std::memcpy(dst, src, bytes); }

void HostRuntime::copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                          std::size_t rows, StreamHandle) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(d + r * dpitch, s + r * spitch, width);
}

}  // namespace ferry::core
