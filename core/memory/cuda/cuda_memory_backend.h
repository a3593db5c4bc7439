// The CUDA memory backend (compiled only in CUDA builds). This header has no
// CUDA include: MemorySystem builds the backend through the factory.
//
// Pinned memory, two methods behind one switch (environment variable
// FERRY_PINNED_METHOD, read when a context is created):
//   alloc     cudaHostAlloc (the default until measurements say otherwise)
//   register  posix_memalign (2 MiB aligned, transparent huge pages advised),
//             pre-faulted by touching every page (threads for large blocks),
//             then cudaHostRegister. Often faster for large blocks: the
//             driver's own allocation zeroes and maps page by page.
#pragma once

#include <memory>

#include "core/memory/memory_backend.h"

namespace ferry::core {

enum class PinnedMethod { kHostAlloc, kRegister };

// FERRY_PINNED_METHOD: unset or "alloc" -> kHostAlloc, "register" -> kRegister;
// anything else throws FERRY_ERR_INVALID_ARGUMENT naming the variable and value.
PinnedMethod pinned_method_from_env();

// A backend for CUDA device `device` (already checked to exist by the context).
std::unique_ptr<MemoryBackend> make_cuda_memory_backend(int device, PinnedMethod method);

}  // namespace ferry::core
