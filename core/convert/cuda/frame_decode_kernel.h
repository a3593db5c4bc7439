// The CUDA frame decoder (frame_decode_kernel.cu): one launch decodes a
// chunk's camera or video frames to packed R, G, B images, each pixel by
// frame_color.h, so the GPU gives the CPU decoder's bytes. Plain C++, included
// by the host code that fills the table (cuda_converter.cpp).
#pragma once

#include <cstdint>

#include "core/convert/frame_color.h"

namespace ferry::core::cuda_convert {

// One frame of the launch: where it is, and where its w x h x 3 image goes.
struct DecodeFrameRow {
  frame::FrameRef frame;
  std::uint8_t* rgb = nullptr;
};

// The frames of a launch: up to kInlineFrames ride in the kernel parameter
// (a frame engine's call copies no table), more in a device table.
constexpr int kInlineFrames = 4;
struct DecodeFrames {
  DecodeFrameRow inline_rows[kInlineFrames];
  const DecodeFrameRow* table = nullptr;  // device memory, when count > kInlineFrames
  std::int64_t count = 0;
  bool aligned = false;  // decodes_in_words holds for every frame: the kernel checks nothing per thread
};

// Whether a frame's planes and RGB rows allow the kernel's whole words: a
// width that is a multiple of 16 (whole 8-pixel groups, RGB rows of whole
// 16-byte words), luma (and NV12/NV21 chroma) rows and Bayer rows on 8-byte
// boundaries, I420/YV12 chroma rows on 4-byte ones, YUYV/UYVY rows on
// 16-byte ones, the RGB image on a 16-byte one.
bool decodes_in_words(const DecodeFrameRow& row, PixelFormat format);

// max_h, max_w: the largest frame's.
void launch_decode_frames(const DecodeFrames& frames, const FrameDecode& decode, std::int64_t max_h, std::int64_t max_w,
                          void* stream);

}  // namespace ferry::core::cuda_convert
