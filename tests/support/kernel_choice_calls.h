// Calls for the kernel-choice tests (tests/unit/convert/kernel_choice*_test.cpp):
// a source and transform on stand-in device addresses, the kernel
// choose_kernel picks for them. No memory is touched: the addresses are only
// compared for alignment.
#pragma once

#include <cstdint>
#include <vector>

#include "core/convert/convert_plan.h"
#include "core/convert/kernel_choice.h"

namespace ferry::test {

using core::ConvertPlan;
using core::DType;
using core::KernelChoice;
using core::Layout;
using core::Rect;
using core::SourceDesc;
using core::Transform;

// Sixteen-byte-aligned stand-ins for device addresses (never dereferenced).
inline std::uint8_t* const kSource = reinterpret_cast<std::uint8_t*>(std::uintptr_t{1} << 32);
inline std::uint8_t* const kOutput = reinterpret_cast<std::uint8_t*>(std::uintptr_t{1} << 36);

struct Call {
  SourceDesc source;
  Transform transform;
  std::vector<Rect> crops;
  std::vector<std::uint8_t> mirrors;
  Call(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
    source.data = kSource;
    source.n = n, source.h = h, source.w = w, source.c = c;
    source.bytes = static_cast<std::size_t>(n * h * w * c);
  }
  KernelChoice choose(std::int64_t first = 0, std::int64_t count = -1) {
    if (!crops.empty()) transform.per_sample_crop = crops.data();
    if (!mirrors.empty()) transform.per_sample_mirror = mirrors.data();
    if (!crops.empty() || !mirrors.empty()) transform.per_sample_count = source.n;
    const ConvertPlan plan = core::make_convert_plan(source, transform, nullptr);
    return core::choose_kernel(plan, core::source_view_of(plan, source), first, count < 0 ? plan.n : count,
                               kOutput);
  }
};

inline Call imagenet(DType dtype, Layout layout) {
  Call c(8, 224, 224, 3);
  c.transform.out_dtype = dtype;
  c.transform.out_layout = layout;
  return c;
}

}  // namespace ferry::test
