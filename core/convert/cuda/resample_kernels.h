// The resample kernels as the launcher (convert_resample_kernel.cu) sees
// them: their block's shape, and the kernel for a sampler, a channel count
// and an output dtype. The kernels themselves are in resample_kernel.cuh,
// compiled in one file per sampler (convert_resample_<sampler>.cu).
#pragma once

#include <cstdint>

#include "core/convert/cuda/resample_params.h"

namespace ferry::core::cuda_convert {

// A block covers kTileW columns and TH * R rows of one sample's output: a
// thread one column, every TH-th row of the tile; TH (the block's warps) is
// tile_h of the launch, at most kMaxTileH; R is rows_per_thread.
constexpr int kTileW = 32, kRowsPerThread = 8, kMaxTileH = 8;
constexpr int kFewFrameRows = 2;

// The bytes of a block's source tile, for blocks of `warps` warps: 640 an
// output row holds the footprint of a RandomResizedCrop downscale by up to
// 2.2 (a 500-px window to 224); eight blocks of 32 rows (20 KiB) or four of
// 64 (40 KiB) a SM still fit an H100's or H200's shared memory.
constexpr int tile_bytes_of(int warps) { return warps * kRowsPerThread * 640; }

// Whether a launch of `channels` mapped channels with augmentation takes an
// augmented (A) kernel: three channels only (the colour operations); the
// others and Copy (augmentation always resizes) take the plain ones.
constexpr bool takes_augmented_kernel(Sampler s, int channels, bool augmented) {
  return augmented && channels == 3 && s != Sampler::Copy;
}

// The warps of a launch's blocks: four for batches on the plain linear
// kernels, so that a block waiting for its tile's source (its copy, its
// barriers) idles four of an SM's warps, not eight (H200, 256 images:
// bilinear 400 -> 224 0.59 -> 0.63-0.64 of a D2D copy, upscale 0.35 -> 0.37);
// eight for a few samples (a 1080p frame read in place over the bus to a 640
// letterbox: -11 us against a pinned memcpy with eight, +10 us with four),
// for the augmented kernels and area and antialiased linear (3-10 % slower
// with four), and for nearest and cubic, whose gains with four (none; cubic
// 0.23 -> 0.24) did not pay for compiling their kernels twice.
constexpr int tile_h(Sampler s, bool augmented_kernel, bool frames, std::int64_t samples) {
  return s == Sampler::Linear && !augmented_kernel && !frames && samples >= 8 ? 4 : kMaxTileH;
}

// Whether the kernel of a launch pipelines its tiles (resample_kernel.cuh):
// the four-warp ones, whose source tiles are staged (linear). They take two
// tiles of ResampleParams::tile_capacity bytes of dynamic shared memory.
constexpr bool pipelined(Sampler s, bool augmented_kernel, bool frames, int warps) {
  return s == Sampler::Linear && !augmented_kernel && !frames && warps == 4;
}

// The output rows of a pipelined kernel's tile: four warps of kRowsPerThread
// rows (one warp works out their taps, a row a lane).
constexpr int kPipelinedTileRows = 4 * kRowsPerThread;
static_assert(kPipelinedTileRows == 32, "one warp works out a pipelined tile's rows, a row a lane");

// The shared-memory bytes of a staged footprint row whose taps span
// `span_bytes` source bytes: from the 16-byte chunk of its first byte (up to
// 15 bytes before it) to the chunk of its last, in whole chunks. The kernel
// lays its tiles out by it (plan_tile), the host sizes the pipelined
// kernel's buffers by it (tile_capacity): one rule, so that a footprint the
// host counted on always fits. The kernel's spans are unsigned (a shift,
// not a signed division), the host's 64-bit.
template <typename Bytes>
constexpr Bytes staged_row_pitch(Bytes span_bytes) {
  return (span_bytes + 15 + 15) / 16 * 16;
}

// The rows a thread: kFewFrameRows for one or two 4:2:0 frames decoded at
// each tap (plain), whose launch is too small to fill the GPU: a thread's
// rows run one after another, each waiting for its taps' loads (H200, a
// 1080p NV12 frame to a 640 letterbox, ncu: 8 rows a thread, 200 blocks at
// 14 % occupancy, 13.0 us; 2 rows, 800 blocks at 40 %, 8.5 us; 1 row was no
// better end to end); kRowsPerThread otherwise, so that a thread's column
// taps serve more rows. The augmented frame kernels keep 8 (no second set).
constexpr int rows_per_thread(bool frames, bool augmented_kernel, std::int64_t samples) {
  return frames && !augmented_kernel && samples <= 2 ? kFewFrameRows : kRowsPerThread;
}

// The kernel a launch takes, from its parameters: the launcher picks the
// kernel and its grid by it, and the host sizes the pipelined kernel's
// source buffers (tile_capacity) only for the launches that take them.
struct LaunchShape {
  bool augmented = false;  // takes_augmented_kernel
  bool frames = false;     // 4:2:0 frames decoded at each tap
  int warps = kMaxTileH;   // tile_h
  int rows = kRowsPerThread;  // rows_per_thread
  bool pipelined = false;
};

inline LaunchShape launch_shape(const ResampleParams& p, Sampler s) {
  LaunchShape l;
  l.augmented = takes_augmented_kernel(s, p.oc, p.augment != 0);
  l.frames = p.frame.format != PixelFormat::Channels;
  l.warps = tile_h(s, l.augmented, l.frames, p.count);
  l.rows = rows_per_thread(l.frames, l.augmented, p.count);
  l.pipelined = pipelined(s, l.augmented, l.frames, l.warps);
  return l;
}

// The kernel (as cudaLaunchKernel takes it) that resamples `channels` mapped
// channels (1..4) into `dtype` with sampler S; `augmented`: with the colour
// operations inlined (three channels); `warps`: tile_h. Null for a channel
// count out of range.
template <Sampler S>
const void* resample_kernel_for(int channels, DType dtype, bool augmented, int warps);

// The same for 4:2:0 frames decoded at each tap: linear, three channels only
// (null otherwise); `rows`: rows_per_thread.
const void* resample_frame_kernel_for(Sampler sampler, int channels, DType dtype, bool augmented, int rows);

}  // namespace ferry::core::cuda_convert
