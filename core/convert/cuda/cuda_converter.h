// The CUDA half of ferry::core::Converter: builds the kernel parameters for
// a call, uploads a per-sample table when the call needs one, and launches
// ONE kernel on the caller's stream.
//
// Per-sample tables (sample pointers, folded mean/std, windows, mirror) reach
// the device through ferry's own pools: a block of the pinned pool is filled
// on the host and copied into a block of the device cache, on the kernel's
// stream or (plan.table_stream: ferry_transform_apply) on the converter's
// upload stream, the kernel's stream waiting for that copy's event. A call's
// copy then does not queue behind the kernels already on the caller's stream
// (H200, 256 images resized back to back: the copy between two kernels had
// cost 10-16 us a call). The staging pipeline keeps its tables on the
// chunk's stream, behind the chunk's own copy: on the upload stream its
// pinned batches fell from 0.95 to 0.61-0.82 of the bus limit (RandomResized-
// Crop + ColorJitter). Both blocks are given back in stream order: the device
// block behind the kernel. The converter holds no memory of its own: what it
// uses shows in the stats and goes with a trim. No device-wide sync and no
// cudaMalloc per call.
//
// Thread-safe: calls on any streams run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

#include "core/convert/convert_plan.h"
#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/frame_decode.h"
#include "core/device/device_runtime.h"
#include "core/memory/memory_system.h"

namespace ferry::core {

class CudaConverter {
 public:
  CudaConverter(DeviceRuntime& runtime, MemorySystem& memory);
  ~CudaConverter();
  CudaConverter(const CudaConverter&) = delete;
  CudaConverter& operator=(const CudaConverter&) = delete;

  // As Converter::convert (core/convert/converter.h), on the device.
  void convert(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
               void* output_base, void* stream, const void* batch_table);
  // Camera and video frames: `decoded`'s R, G, B images in a device-cache
  // block, decoded on `stream` and then converted as convert() does; the
  // block goes back in stream order behind the conversion.
  void convert_frames(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t count,
                      DecodedFrames& decoded, void* output_base, void* stream);
  // Decodes the frames into R, G, B images at rgb + decoded.offset(i), on
  // `stream` (the per-frame table, if any, goes back behind the kernel).
  void decode_to_rgb(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t count,
                     const DecodedFrames& decoded, std::uint8_t* rgb, void* stream);
  // As Converter::upload_batch_table.
  void* upload_batch_table(const ConvertPlan& plan, void* stream);

  int sm_count() const noexcept { return sm_count_; }

 private:
  // A device block holding `bytes` of `table`, copied on `stream` or (how:
  // Upload) on the upload stream, `stream` waiting for the copy. The caller
  // frees the block on `stream` after queueing the kernel that reads it.
  void* upload(const void* table, std::size_t bytes, StreamHandle stream, TableStream how);
  // The same, the table written by write(host) straight into the pinned
  // block: no host vector and no second pass over the bytes (H200, a stretch
  // of 256 images: the host's time a call 40-51 -> 23-31 us with it).
  void* upload_written(std::size_t bytes, StreamHandle stream, TableStream how,
                       const std::function<void(void* host)>& write);
  // The upload stream, created on first use (thread-safe).
  StreamHandle upload_stream();
  // A resized plan, or samples of different sizes: the resample kernel, its
  // per-sample rows inline in the parameter or uploaded for the call.
  // decode_frames: the source's frames are decoded by the kernel at each tap
  // (4:2:0, nearest chroma, linear, 3 channels: ConvertPlan::decodes_at_taps).
  void convert_resampled(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                         void* output_base, void* stream, bool decode_frames = false);

  // A resident dataset's gather (SourceView::Resident) on the gather kernel,
  // its windows drawn there or uniform: one launch, no table (beyond
  // kGatherInlineIndices host indices, one copy of them). False where the
  // plan or the output needs the table path (nothing was queued then).
  bool convert_gather(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                      void* output_base, void* stream);

  DeviceRuntime& runtime_;
  MemorySystem& memory_;
  int sm_count_ = 1;
  std::once_flag upload_stream_once_;
  StreamHandle upload_stream_ = nullptr;
  // The kernels' grid caps, filled on first use (racing writers store the same value): for the
  // unit kernels (vector, pixels, window) 16 waves of the blocks an SM holds (kUnitGridWaves).
  int max_vector_blocks(const cuda_convert::KernelParams& p, DType dtype, int step);
  int max_pixels_blocks(DType dtype, int c, int oct);
  int max_window_blocks(DType dtype, int c, int shape);
  int max_gather_blocks(DType dtype, int c, int shape);

  int max_blocks_[2][5] = {};  // [runs][dtype]
  int max_vector_blocks_[5][5][2][4] = {};  // [dtype][c][out_nhwc][cuda_convert::vector_variant]
  int max_pixels_blocks_[5][5][5] = {};  // [dtype][c][oct]
  int max_window_blocks_[5][5][5] = {};  // [dtype][c][shape]
  int max_gather_blocks_[5][5][5] = {};  // [dtype][c][shape]
};

}  // namespace ferry::core
