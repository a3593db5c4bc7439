// Which CUDA conversion kernel takes a call, and its launch geometry: host
// logic only (no CUDA headers), so every decision is unit-tested on every
// machine (tests/unit/convert/kernel_choice_test.cpp). In order of preference:
//   vector   aligned runs of whole 16-byte output units, window inside;
//            NCHW output of any dtype, mirrored or not (and, in calls of
//            four units a thread, runs at any byte of rows on 4-byte
//            words: per-sample crops at any origin); NHWC output of
//            floats, unmirrored, with the identity map
//   pixels   the same runs into NHWC output of 1, 3 or 4 channels with a
//            channel map, padding to 4 or uint8 (runs on 4-byte words)
//   window   any window (per sample, mirrored, reaching outside and padded),
//            any alignment, channel map, padding to 4, any dtype; needs
//            interleaved source pixels and contiguous output elements, and
//            NHWC output of 1, 3 or 4 channels
//   runs     the shared-memory tile kernel (NHWC output of 2 channels)
//   generic  a thread per output pixel: planar or scattered layouts
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"
#include "core/convert/cuda/convert_kernel_params.h"

namespace ferry::core {

enum class KernelPath { vector, pixels, window, runs, generic };

const char* kernel_path_name(KernelPath path) noexcept;

struct KernelChoice {
  KernelPath path = KernelPath::generic;
  int window_shape = 0;  // the window kernel's output shape: 0 NCHW, else the NHWC channels
  int vector_step = 1;   // the vector kernel's units loaded at a time per thread (1 or 4)
  cuda_convert::KernelParams params;
};

// The parameters of a call converting samples first .. first+count-1 of
// `plan` from `source` (local samples 0 .. count-1) into output_base, and the
// kernel that takes them. The per-sample tables (params.params,
// params.sources) are left NULL: the caller uploads and sets them.
KernelChoice choose_kernel(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                           std::int64_t count, void* output_base);

// Whether a vector-kernel call (choice from choose_kernel) can carry its
// per-sample windows in the launch's parameter instead of a table copied
// before the kernel: the rows variants, at most kInlineWindows samples, no
// per-sample values but crops and mirrors, origins within 15 bits. Fills
// `windows` (local samples 0 .. count-1) and sets params.inline_windows.
bool choose_inline_windows(const ConvertPlan& plan, std::int64_t first, std::int64_t count, KernelChoice& choice,
                           cuda_convert::InlineWindows& windows);

// The window kernel's parameters and geometry for the same call, or false
// where the window kernel cannot take it (the resident gather kernel is the
// window kernel's units: window_gather.h).
bool choose_window_kernel(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                          void* output_base, KernelChoice& choice);

}  // namespace ferry::core
