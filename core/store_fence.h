// The one fence for non-temporal (streaming) stores. The CPU converter writes
// large outputs with them (convert_cpu.cpp) and the staging threads their
// copies into pinned memory (core/stage/staging_copy.h); such stores are not
// ordered with a thread's later ones, so each thread calls store_fence()
// after its last one, before it hands the bytes on (the thread pool's join).
// A no-op where ferry writes no streaming stores.
#pragma once

#if ((defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)) || defined(_M_X64)
#include <xmmintrin.h>
#define FERRY_STORE_FENCE 1
#endif

namespace ferry::core {

inline void store_fence() noexcept {
#if defined(FERRY_STORE_FENCE)
  _mm_sfence();
#endif
}

}  // namespace ferry::core
