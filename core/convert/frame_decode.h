// Camera and video frames in a conversion: a chunk's frames are decoded to
// packed R, G, B images (the CPU here, the GPU in cuda/frame_decode_kernel.cu,
// each pixel by frame_color.h), which the converter then converts as a batch
// of 3-channel samples of different sizes: every transform option applies to
// frames unchanged. The RGB images live in scratch memory from the context's
// pools for the call, or in the output where it is those images
// (ConvertPlan::decodes_into_output: no second pass). On the GPU the resample
// kernel decodes the common case itself, tap by tap, with no scratch
// (cuda_converter_resample.cpp, ConvertPlan::decodes_at_taps).
#pragma once

#include <cstdint>
#include <vector>

#include "core/convert/convert_plan.h"
#include "core/convert/frame_color.h"
#include "core/thread_pool.h"

namespace ferry::core {

// Where local frame i of `frames` (global first + i) is: its start and planes.
frame::FrameRef frame_ref_of(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t i);

// The RGB images of frames first .. first+count-1, packed one after another
// in one scratch block, and the view the converter reads them through.
// Where the output is those images (ConvertPlan::decodes_into_output), the
// frames are decoded straight into it instead: no scratch, no second pass.
class DecodedFrames {
 public:
  // stride 0: packed in a scratch block; else local frame i at i * stride
  // bytes (the output's sample stride, where plan.decodes_into_output()).
  DecodedFrames(const ConvertPlan& plan, std::int64_t first, std::int64_t count, std::uint64_t stride = 0);

  std::uint64_t bytes() const noexcept { return offsets_.back(); }
  // Local frame i's image starts offset(i) bytes into the block.
  std::uint64_t offset(std::int64_t i) const noexcept { return offsets_[static_cast<std::size_t>(i)]; }
  // The view of the images at `rgb` (valid while this object lives).
  SourceView view_of(const std::uint8_t* rgb);

 private:
  std::vector<std::uint64_t> offsets_;
  std::vector<SampleSource> geometry_;
  std::vector<const std::uint8_t*> pointers_;
};

// Decodes the frames of `frames` into `rgb` at decoded.offset(i), on the pool.
void decode_frames_on_cpu(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t count,
                          const DecodedFrames& decoded, std::uint8_t* rgb, ThreadPool& pool);

}  // namespace ferry::core
