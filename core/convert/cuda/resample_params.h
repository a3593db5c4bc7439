// What one launch of the resample kernel gets (convert_resample_kernel.cu):
// the kernel that converts a batch whose samples are resized
// (transform.resize_w/h) or of different sizes (source.sample_descs). Each
// sample has its own pointer, strides, size and geometry, so one table row
// per sample carries all of it. Plain C++, included by the .cu file and by
// the host code that fills it (cuda_converter.cpp).
#pragma once

#include <cstdint>

#include "core/convert/augment_color.h"
#include "core/convert/descriptors.h"
#include "core/convert/frame_format.h"
#include "core/convert/resize_geometry.h"

namespace ferry::core::cuda_convert {

// One sample of the call (local index i: global sample first + i).
struct ResampleSample {
  const std::uint8_t* data = nullptr;           // the sample's first byte
  std::int64_t extent = 0;                      // the bytes it spans from there (reads stay inside)
  std::int64_t stride_c = 0, stride_h = 0, stride_w = 0;  // its byte strides
  ResizeAxes axes;                              // resized: where output pixels read
  std::int32_t x = 0, y = 0;                    // not resized: the window's origin
  std::int32_t h = 0, w = 0;                    // the sample's size (pixels outside are fill)
  float alpha[4] = {1, 1, 1, 1}, beta[4] = {0, 0, 0, 0};
  std::int32_t mirror = 0;                      // kMirrorX | kMirrorY
  std::int32_t unused = 0;
  // A frame the kernel decodes (ResampleParams.frame set): its planes from `data`, the frame's start.
  std::int64_t plane_offset[3] = {0, 0, 0}, plane_pitch[3] = {0, 0, 0};
  // Augmentation (ResampleParams.augment): the sample's colour and erase parameters.
  augment::SampleColor color;
};

// Up to this many samples ride in the kernel parameter itself: a frame or an
// image costs no table copy (the parameter stays well under CUDA's 4 KiB).
constexpr int kInlineSamples = 4;

// How an output pixel finds its source value.
enum class Sampler : int {
  Copy = 0,  // not resized: the window's pixel itself (outside the image: fill)
  Nearest = 1, Linear = 2, Cubic = 3, Area = 4, LinearAntialias = 5  // as Interpolation
};

struct ResampleParams {
  const ResampleSample* table = nullptr;  // local sample i at table[i], or NULL: inline[i]
  ResampleSample inline_samples[kInlineSamples];
  // Not 0 (table NULL): samples of one size that all do the same (one
  // geometry, the data form), each local sample i inline_samples[0] with its
  // data `one_geometry_stride` * i bytes further: any count with no table.
  std::int64_t one_geometry_stride = 0;
  std::uint8_t* out = nullptr;             // the whole output (global sample 0)
  std::int64_t first = 0, count = 0;       // global index of local sample 0; samples
  std::int64_t out_n = 0, out_c = 0, out_h = 0, out_w = 0;  // the output's byte strides
  std::int32_t oh = 0, ow = 0;             // output rows and columns
  std::int32_t oc = 0, oct = 0;            // mapped and total output channels
  std::int32_t channel_map[4] = {0, 1, 2, 3};
  DType dtype = DType::Float32;
  std::uint32_t pad_bits = 0;              // channels oc .. oct-1
  std::uint32_t fill_bits = 0;             // Copy: pixels outside the sample
  std::uint32_t letterbox_bits[4] = {0, 0, 0, 0};  // resized: pixels outside the resized image
  // Frames decoded tap by tap (format other than Channels): 4:2:0 with nearest
  // chroma, linear, 3 output channels; each tap's R, G, B those of frame_color.h.
  FrameDecode frame;
  // Augmentation (include/ferry/augment.h): 0, or kAugment* bits. The mean
  // pass stores nothing: it adds each sample's gray sum before contrast into
  // gray_out[i]; the conversion then reads the sums from gray_sums (or NULL).
  std::int32_t augment = 0;
  std::int32_t mean_pass = 0;
  // The pipelined kernels (kPipelined in resample_kernel.cuh): the bytes of
  // each of their two source tiles in dynamic shared memory (a multiple of
  // 16; 0: every tile reads global memory).
  std::int32_t tile_capacity = 0;
  // 1: a pipelined kernel may start early behind the launch before it on
  // the stream (resample_kernel.cuh): its rows are in the parameter (no
  // table) and no mean pass precedes it.
  std::int32_t early_start = 0;
  unsigned long long* gray_out = nullptr;
  const unsigned long long* gray_sums = nullptr;
};

constexpr std::int32_t kAugmentZeroOutside = 1;  // fill and letterbox pixels read 0 and are coloured
constexpr std::int32_t kAugmentColor = 2;        // samples' colour operations and erasing

// Launches the resample kernel for `sampler` and params.oc channels on
// `stream`. Throws ferry::Error for a launch failure.
void launch_resample(const ResampleParams& params, Sampler sampler, void* stream);

}  // namespace ferry::core::cuda_convert
