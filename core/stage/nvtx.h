// NVTX ranges around the pipeline's stages (staging, copy, convert), so a
// profile (nsys) shows them on each thread. Empty where NVTX is not linked.
#pragma once

#if defined(FERRY_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace ferry::core {

class NvtxRange {
 public:
#if defined(FERRY_HAVE_NVTX)
  explicit NvtxRange(const char* name) noexcept { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
#else
  explicit NvtxRange(const char*) noexcept {}
#endif
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace ferry::core
