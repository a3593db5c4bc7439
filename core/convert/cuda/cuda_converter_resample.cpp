// The CUDA converter's resample path (CudaConverter::convert_resampled): a
// resized plan, or samples of different sizes, on the resample kernel, with
// the per-sample rows inline in the parameter or uploaded for the call; and
// camera frames (CudaConverter::convert_frames), decoded by the resample
// kernel at each tap where it can (ConvertPlan::decodes_at_taps), else by the decode
// kernel into RGB scratch first, or into the output where that is the RGB
// images (ConvertPlan::decodes_into_output). The rest of the converter: cuda_converter.cpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <new>
#include <vector>

#include "core/convert/cuda/cuda_converter.h"
#include "core/convert/cuda/frame_decode_kernel.h"
#include "core/convert/cuda/gather_pointers.h"
#include "core/convert/cuda/resample_kernels.h"
#include "core/convert/cuda/resample_params.h"
#include "core/device/cuda/cuda_check.h"
#include "core/device/device_scope.h"

namespace ferry::core {
namespace {

using cuda_convert::ResampleParams;
using cuda_convert::ResampleSample;

// What global sample g of the plan does, whatever its source: its axes or
// window, size, channel coefficients and mirror.
ResampleSample resample_geometry_of(const ConvertPlan& plan, std::int64_t g) {
  ResampleSample s;
  if (plan.resize) s.axes = plan.resize_of(g);
  const Rect window = plan.window_of(g);
  s.x = static_cast<std::int32_t>(window.x);
  s.y = static_cast<std::int32_t>(window.y);
  s.h = static_cast<std::int32_t>(plan.h_of(g));
  s.w = static_cast<std::int32_t>(plan.w_of(g));
  std::memcpy(s.alpha, plan.alpha_of(g), sizeof s.alpha);
  std::memcpy(s.beta, plan.beta_of(g), sizeof s.beta);
  s.mirror = plan.mirror_of(g);
  if (!plan.sample_color.empty()) s.color = plan.sample_color[static_cast<std::size_t>(g)];
  return s;
}

// Local sample i's row of the resample kernel's table: where the sample is in
// `source`, and what global sample first + i of the plan does with it.
ResampleSample resample_sample_of(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                                  std::int64_t i) {
  const std::int64_t g = first + i;
  ResampleSample s = resample_geometry_of(plan, g);
  s.data = source.samples != nullptr ? source.samples[i] : source.base + i * source.strides.n;
  FERRY_EXPECT(s.data != nullptr, Status::InvalidArgument, "source.samples[", i, "] is NULL");
  const Strides4 strides = source.strides_of(i);
  s.stride_c = strides.c, s.stride_h = strides.h, s.stride_w = strides.w;
  s.extent = (plan.h_of(g) - 1) * strides.h + (plan.w_of(g) - 1) * strides.w + (plan.c - 1) * strides.c + 1;
  return s;
}

// Local frame i, decoded by the resample kernel at each tap: its planes.
ResampleSample resample_frame_of(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t i) {
  ResampleSample s = resample_geometry_of(plan, first + i);
  const frame::FrameRef f = frame_ref_of(plan, frames, first, i);
  s.data = f.base;
  for (int k = 0; k < 3; ++k) s.plane_offset[k] = f.offset[k], s.plane_pitch[k] = f.pitch[k];
  return s;
}

// The bytes of the largest source footprint a pipelined tile of sample s
// (kTileW columns, kPipelinedTileRows rows) reads through linear taps: n
// output pixels at `scale` source pixels each reach at most floor((n - 1) *
// scale) + 3 source pixels, laid out as the kernel's plan_tile lays them
// (staged_row_pitch). A tile whose footprint is larger after all reads
// global memory instead.
std::int64_t linear_footprint_bytes(const ResampleSample& s) {
  if (s.stride_c != 1) return 0;  // planar: never staged
  const auto reach = [](int n, float scale) {
    return static_cast<std::int64_t>(std::floor((n - 1) * double{scale})) + 3;
  };
  const std::int64_t pitch = cuda_convert::staged_row_pitch(reach(cuda_convert::kTileW, s.axes.x.scale) * s.stride_w);
  return reach(cuda_convert::kPipelinedTileRows, s.axes.y.scale) * pitch;
}

// The pipelined kernel's source tiles (ResampleParams::tile_capacity), from
// the batch's largest footprint: none where that is larger than the tile of
// the other kernels (tile_bytes_of), whose tiles of it would all read global
// memory too: two such buffers would only leave an SM fewer blocks (H200, 16
// frames 1080p letterboxed to 640: 0.80 -> 0.57 of a D2D copy). Buffers of
// the largest footprint even where that leaves an SM fewer blocks: capped
// at eight blocks' worth, RandomResizedCrop's larger footprints read global
// memory and its batch ran slower (0.55 -> 0.52; H200, bench/RESULTS.md).
std::int32_t pipelined_tile_capacity(std::int64_t largest_footprint) {
  if (largest_footprint > cuda_convert::tile_bytes_of(4)) return 0;
  return static_cast<std::int32_t>(largest_footprint);
}

bool same_axis(const ResizeAxis& a, const ResizeAxis& b) {
  return a.origin == b.origin && a.scale == b.scale && a.offset == b.offset && a.length == b.length && a.lo == b.lo &&
         a.hi == b.hi;
}

// A resized call's samples first .. first+count-1 all of one size, in the
// data form, with the same window, resize, coefficients and mirror (a uniform
// resize of images of one size): one row in the parameter serves them all
// (one_geometry_stride). A table's upload and its event cost a call
// microseconds of host and GPU time; the row's pointer is the sample's only difference.
bool one_geometry(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count) {
  if (!plan.resize || source.samples != nullptr || source.strides.n == 0 || plan.variable_sizes() ||
      !plan.sample_crop.empty() || !plan.sample_mirror.empty() || !plan.sample_alpha.empty() ||
      !plan.sample_color.empty())
    return false;
  const ResizeAxes& a = plan.resize_of(first);
  for (std::int64_t g = first + 1; g < first + count; ++g) {
    const ResizeAxes& b = plan.resize_of(g);
    if (!same_axis(a.x, b.x) || !same_axis(a.y, b.y)) return false;
  }
  return true;
}

}  // namespace

void CudaConverter::convert_frames(const ConvertPlan& plan, const SourceView& frames, std::int64_t first,
                                   std::int64_t count, DecodedFrames& decoded, void* output_base, void* stream) {
  DeviceScope scope(runtime_);
  if (plan.decodes_at_taps()) {
    convert_resampled(plan, frames, first, count, output_base, stream, true);
    return;
  }
  DeviceCache& cache = memory_.device_cache();
  auto* rgb = static_cast<std::uint8_t*>(cache.allocate(static_cast<std::size_t>(decoded.bytes()), stream));
  try {
    decode_to_rgb(plan, frames, first, count, decoded, rgb, stream);
    convert(plan, decoded.view_of(rgb), first, count, output_base, stream, nullptr);
  } catch (...) {
    cache.free(rgb, stream);
    throw;
  }
  cache.free(rgb, stream);  // behind the kernels that read it (see convert())
}

void CudaConverter::decode_to_rgb(const ConvertPlan& plan, const SourceView& frames, std::int64_t first,
                                  std::int64_t count, const DecodedFrames& decoded, std::uint8_t* rgb, void* stream) {
  DeviceScope scope(runtime_);
  std::vector<cuda_convert::DecodeFrameRow> rows(static_cast<std::size_t>(count));
  std::int64_t max_h = 1, max_w = 1;
  for (std::int64_t i = 0; i < count; ++i) {
    cuda_convert::DecodeFrameRow& row = rows[static_cast<std::size_t>(i)];
    row.frame = frame_ref_of(plan, frames, first, i);
    row.rgb = rgb + decoded.offset(i);
    max_h = std::max<std::int64_t>(max_h, row.frame.h);
    max_w = std::max<std::int64_t>(max_w, row.frame.w);
  }
  cuda_convert::DecodeFrames launch;
  launch.count = count;
  launch.aligned = std::all_of(rows.begin(), rows.end(), [&](const cuda_convert::DecodeFrameRow& row) {
    return cuda_convert::decodes_in_words(row, plan.frame.format);
  });
  void* table = nullptr;
  if (count <= cuda_convert::kInlineFrames) {
    std::copy(rows.begin(), rows.end(), launch.inline_rows);  // no table to copy
  } else {
    table = upload(rows.data(), rows.size() * sizeof(cuda_convert::DecodeFrameRow), stream, plan.table_stream);
    launch.table = static_cast<const cuda_convert::DecodeFrameRow*>(table);
  }
  try {
    cuda_convert::launch_decode_frames(launch, plan.frame, max_h, max_w, stream);
  } catch (...) {
    if (table != nullptr) memory_.device_cache().free(table, stream);
    throw;
  }
  if (table != nullptr) memory_.device_cache().free(table, stream);  // behind the kernel that reads it
}

void CudaConverter::convert_resampled(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                                      std::int64_t count, void* output_base, void* stream, bool decode_frames) {
  ResampleParams p;
  p.out = static_cast<std::uint8_t*>(output_base);
  p.first = first;
  p.count = count;
  p.out_n = plan.out_strides.n, p.out_c = plan.out_strides.c, p.out_h = plan.out_strides.h;
  p.out_w = plan.out_strides.w;
  p.oh = static_cast<std::int32_t>(plan.out_h);
  p.ow = static_cast<std::int32_t>(plan.out_w);
  p.oc = plan.out_channels;
  p.oct = plan.out_channels_total;
  std::memcpy(p.channel_map, plan.channel_map, sizeof p.channel_map);
  p.dtype = plan.dtype;
  p.pad_bits = plan.pad_bits;
  p.fill_bits = plan.fill_bits;
  std::memcpy(p.letterbox_bits, plan.letterbox_bits, sizeof p.letterbox_bits);
  const auto sampler = plan.resize ? static_cast<cuda_convert::Sampler>(static_cast<int>(plan.interpolation))
                                   : cuda_convert::Sampler::Copy;
  if (decode_frames) p.frame = plan.frame;
  p.augment = (plan.zero_outside ? cuda_convert::kAugmentZeroOutside : 0) |
              (plan.sample_color.empty() ? 0 : cuda_convert::kAugmentColor);
  // The pipelined kernel's tiles (pipelined_tile_capacity): the largest
  // footprint of the samples, taken as each is built for the launch.
  const bool pipelined_launch = cuda_convert::launch_shape(p, sampler).pipelined;
  std::int64_t largest_footprint = 0;
  auto sample = [&](std::int64_t i) {
    ResampleSample row =
        decode_frames ? resample_frame_of(plan, source, first, i) : resample_sample_of(plan, source, first, i);
    if (pipelined_launch) largest_footprint = std::max(largest_footprint, linear_footprint_bytes(row));
    return row;
  };
  DeviceCache& cache = memory_.device_cache();
  void* table = nullptr;
  // Pointers the device writes (SourceView::Resident's device_indices) need a table in device memory.
  const bool gathered_on_device = source.resident.device_indices != nullptr;
  if (count <= cuda_convert::kInlineSamples && !gathered_on_device) {
    for (std::int64_t i = 0; i < count; ++i) p.inline_samples[i] = sample(i);  // no table to copy
  } else if (!gathered_on_device && !decode_frames && one_geometry(plan, source, first, count)) {
    p.inline_samples[0] = sample(0);
    p.one_geometry_stride = source.strides.n;
  } else {
    table = upload_written(static_cast<std::size_t>(count) * sizeof(ResampleSample), stream, plan.table_stream,
                           [&](void* host) {
                             auto* rows = static_cast<ResampleSample*>(host);
                             for (std::int64_t i = 0; i < count; ++i) new (rows + i) ResampleSample(sample(i));
                           });
    p.table = static_cast<const ResampleSample*>(table);
    static_assert(offsetof(ResampleSample, data) == 0, "launch_gather_pointers writes a row's first field");
    if (gathered_on_device) {
      try {
        cuda_convert::launch_gather_pointers(table, sizeof(ResampleSample), source.resident, count, stream);
      } catch (...) {
        memory_.device_cache().free(table, stream);
        throw;
      }
    }
  }
  p.tile_capacity = pipelined_tile_capacity(largest_footprint);
  // Early start (ResampleParams::early_start): rows in the parameter only. A
  // table's launch follows its copy (or a wait on its event), so it would
  // not start early, and a table that a kernel writes must not be read early.
  p.early_start = table == nullptr && !plan.contrast_mean ? 1 : 0;
  void* gray = nullptr;
  try {
    if (plan.contrast_mean) {
      // The contrast means: a pass that sums each sample's gray values (integers, so
      // the order of the atomics does not show), then the conversion reads them.
      const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(unsigned long long);
      gray = cache.allocate(bytes, stream);
      FERRY_CUDA_TRY(cudaMemsetAsync(gray, 0, bytes, static_cast<cudaStream_t>(stream)));
      ResampleParams sums = p;
      sums.mean_pass = 1;
      sums.gray_out = static_cast<unsigned long long*>(gray);
      cuda_convert::launch_resample(sums, sampler, stream);
      p.gray_sums = static_cast<const unsigned long long*>(gray);
    }
    cuda_convert::launch_resample(p, sampler, stream);
  } catch (...) {
    if (gray != nullptr) cache.free(gray, stream);
    if (table != nullptr) cache.free(table, stream);
    throw;
  }
  // After the launches: see convert().
  if (gray != nullptr) cache.free(gray, stream);
  if (table != nullptr) cache.free(table, stream);
}

}  // namespace ferry::core
