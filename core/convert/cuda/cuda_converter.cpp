#include "core/convert/cuda/cuda_converter.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/cuda/frame_decode_kernel.h"
#include "core/convert/cuda/gather_pointers.h"
#include "core/convert/cuda/resample_params.h"
#include "core/convert/cuda/window_gather.h"
#include "core/convert/kernel_choice.h"
#include "core/device/cuda/cuda_check.h"
#include "core/device/device_scope.h"

namespace ferry::core {
namespace {

using cuda_convert::KernelParams;

// A grid cap cached in `slot`, computed on first use (racing writers store the same value).
template <typename Compute>
int cached_blocks(int& slot, Compute&& compute) {
  int value = __atomic_load_n(&slot, __ATOMIC_RELAXED);
  if (value == 0) {
    value = compute();
    __atomic_store_n(&slot, value, __ATOMIC_RELAXED);
  }
  return value;
}
using cuda_convert::SampleParams;

// The per-sample parameters of global samples first .. first+count-1.
std::vector<SampleParams> sample_params_of(const ConvertPlan& plan, std::int64_t first, std::int64_t count) {
  std::vector<SampleParams> table(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t g = first + i;
    SampleParams& d = table[static_cast<std::size_t>(i)];
    std::memcpy(d.alpha, plan.alpha_of(g), sizeof d.alpha);
    std::memcpy(d.beta, plan.beta_of(g), sizeof d.beta);
    const Rect w = plan.window_of(g);
    d.x = static_cast<std::int32_t>(w.x);
    d.y = static_cast<std::int32_t>(w.y);
    d.mirror = plan.mirror_of(g);
    d.unused = 0;
  }
  return table;
}

using cuda_convert::ResampleParams;
using cuda_convert::ResampleSample;

// Local sample i's row of the resample kernel's table: where the sample is in
// `source`, and what global sample first + i of the plan does with it.
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

// Whether the resample kernel decodes these frames itself (no RGB scratch, no
// decode kernel): 4:2:0 with nearest chroma, linear, 3 output channels.
bool decode_in_resample(const ConvertPlan& plan) {
  const PixelFormat f = plan.frame.format;
  const bool yuv420 = f == PixelFormat::NV12 || f == PixelFormat::NV21 || f == PixelFormat::I420 || f == PixelFormat::YV12;
  return yuv420 && plan.frame.chroma == ChromaFilter::Nearest && plan.resize &&
         plan.interpolation == Interpolation::Linear && plan.out_channels == 3;
}

}  // namespace

CudaConverter::CudaConverter(DeviceRuntime& runtime, MemorySystem& memory) : runtime_(runtime), memory_(memory) {
  DeviceScope scope(runtime_);
  FERRY_CUDA_TRY(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, runtime_.device()));
  const DType dtypes[] = {DType::UInt8, DType::Float32, DType::Float16, DType::BFloat16};
  for (int runs = 0; runs < 2; ++runs)
    for (DType d : dtypes)
      max_blocks_[runs][static_cast<int>(d)] = sm_count_ * cuda_convert::convert_blocks_per_sm(d, runs != 0);
}

void* CudaConverter::upload(const void* table, std::size_t bytes, StreamHandle stream) {
  PinnedPool& pinned = memory_.pinned_pool();
  DeviceCache& device = memory_.device_cache();
  void* on_device = device.allocate(bytes, stream);
  void* host = nullptr;
  try {
    host = pinned.allocate(bytes);
    std::memcpy(host, table, bytes);
    runtime_.copy(on_device, host, bytes, stream);
  } catch (...) {
    if (host != nullptr) pinned.free_on_stream(host, stream);
    device.free(on_device, stream);
    throw;
  }
  // The host block is reused only once the copy queued before this free has run.
  pinned.free_on_stream(host, stream);
  return on_device;
}

void* CudaConverter::upload_batch_table(const ConvertPlan& plan, void* stream) {
  if (plan.resize || plan.variable_sizes()) return nullptr;  // convert_resampled builds its rows per call
  DeviceScope scope(runtime_);
  const std::vector<SampleParams> params = sample_params_of(plan, 0, plan.n);
  return upload(params.data(), params.size() * sizeof(SampleParams), stream);
}

void CudaConverter::convert(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                            std::int64_t count, void* output_base, void* stream, const void* batch_table) {
  DeviceScope scope(runtime_);
  if (plan.resize || plan.variable_sizes()) {
    convert_resampled(plan, source, first, count, output_base, stream);
    return;
  }
  if (source.resident.base != nullptr && convert_gather(plan, source, first, count, output_base, stream)) return;
  KernelChoice choice = choose_kernel(plan, source, first, count, output_base);
  KernelParams& p = choice.params;
  if (batch_table != nullptr) p.params = static_cast<const SampleParams*>(batch_table) + first;
  // One upload for the call: the per-sample parameters (unless the batch's
  // table has them, or they ride in the launch), then the sample pointers.
  cuda_convert::InlineWindows windows;  // its first `count` entries, where p.inline_windows
  const bool inline_windows = batch_table == nullptr && choose_inline_windows(plan, first, count, choice, windows);
  const std::size_t params_bytes = plan.has_per_sample() && batch_table == nullptr && !inline_windows
                                       ? static_cast<std::size_t>(count) * sizeof(SampleParams)
                                       : 0;
  const std::size_t sources_bytes = source.samples ? static_cast<std::size_t>(count) * sizeof(void*) : 0;
  std::vector<std::uint8_t> table(params_bytes + sources_bytes);
  if (params_bytes != 0) {
    const std::vector<SampleParams> params = sample_params_of(plan, first, count);
    std::memcpy(table.data(), params.data(), params_bytes);
  }
  if (sources_bytes != 0) {
    for (std::int64_t i = 0; i < count; ++i)
      FERRY_EXPECT(source.samples[i] != nullptr, Status::InvalidArgument, "source.samples[", i, "] is NULL");
    std::memcpy(table.data() + params_bytes, source.samples, sources_bytes);
  }
  auto launch = [&] {
    switch (choice.path) {
      case KernelPath::vector:
        cuda_convert::launch_convert_vector(p, inline_windows ? &windows : nullptr, plan.dtype, choice.vector_step,
                                            max_vector_blocks(p, plan.dtype, choice.vector_step), stream);
        break;
      case KernelPath::pixels:
        cuda_convert::launch_convert_pixels(p, plan.dtype, max_pixels_blocks(plan.dtype, p.c, p.oct), stream);
        break;
      case KernelPath::window:
        cuda_convert::launch_convert_window(p, plan.dtype, choice.window_shape,
                                            max_window_blocks(plan.dtype, p.c, choice.window_shape), stream);
        break;
      case KernelPath::runs:
      case KernelPath::generic: {
        const bool runs = choice.path == KernelPath::runs;
        cuda_convert::launch_convert(p, plan.dtype, runs, max_blocks_[runs ? 1 : 0][static_cast<int>(plan.dtype)],
                                     stream);
        break;
      }
    }
  };
  if (table.empty()) {
    launch();  // everything rides in the kernel parameters: no copy, no event
    return;
  }
  auto* on_device = static_cast<std::uint8_t*>(upload(table.data(), table.size(), stream));
  if (params_bytes != 0) p.params = reinterpret_cast<const SampleParams*>(on_device);
  if (sources_bytes != 0) p.sources = reinterpret_cast<const std::uint8_t* const*>(on_device + params_bytes);
  try {
    if (source.resident.device_indices != nullptr)  // the stand-ins replaced by the gathered samples
      cuda_convert::launch_gather_pointers(on_device + params_bytes, sizeof(void*), source.resident, count,
                                           stream);
    launch();
  } catch (...) {
    memory_.device_cache().free(on_device, stream);
    throw;
  }
  // Only now: a block freed on a stream is at once reusable by the next
  // allocation on it, whose copy must queue behind this kernel, not before it.
  memory_.device_cache().free(on_device, stream);
}

bool CudaConverter::convert_gather(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                                   std::int64_t count, void* output_base, void* stream) {
  const ConvertPlan::WindowDraws& draws = plan.window_draws;
  const SourceView::Resident& resident = source.resident;
  if ((!draws.on && plan.has_per_sample()) || plan.is_frame() || resident.sample_bytes == 0) return false;
  const bool on_device = resident.device_indices != nullptr;
  if (!on_device && (source.samples == nullptr || resident.count > INT32_MAX)) return false;  // int32 inline indices
  KernelChoice whole;
  if (!choose_window_kernel(plan, source, first, count, output_base, whole) ||
      !cuda_convert::gather_kernel_exists(plan.dtype, static_cast<int>(plan.c), whole.window_shape))
    return false;
  cuda_convert::GatherParams g;
  g.base = resident.base;
  g.sample_bytes = resident.sample_bytes;
  g.count = resident.count;
  g.device_indices = resident.device_indices;
  if (draws.on) {
    g.draws = 1;
    g.crop = static_cast<std::int32_t>(draws.crop);
    g.padding = static_cast<std::int32_t>(draws.padding);  // at most 2^20 (check_augment)
    g.flip_x = draws.flip_x, g.flip_y = draws.flip_y;
    g.seed = draws.seed, g.step = draws.step;
  }
  // Rows on words: the sample size, the row pitch and the row's bytes all multiples of 4 (the base is a block's).
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(plan.w * plan.c);
  whole.params.aligned_rows = resident.sample_bytes % 4 == 0 && whole.params.src_h % 4 == 0 && row_bytes % 4 == 0 &&
                              reinterpret_cast<std::uintptr_t>(resident.base) % 4 == 0;
  const int shape = whole.window_shape;
  const int max_blocks = max_gather_blocks(plan.dtype, static_cast<int>(plan.c), shape);
  g.first_index = draws.first_index + first;
  if (on_device) {
    cuda_convert::launch_window_gather(whole.params, g, plan.dtype, shape, max_blocks, stream);
    return true;
  }
  // The host indices, from the sample pointers (each base + index * sample_bytes).
  std::vector<std::int64_t> indices(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const auto at = reinterpret_cast<std::uintptr_t>(source.samples[i]);
    const auto base = reinterpret_cast<std::uintptr_t>(resident.base);
    const std::uint64_t offset = at - base;
    if (at < base || offset % resident.sample_bytes != 0 ||
        offset / resident.sample_bytes >= static_cast<std::uint64_t>(resident.count))
      return false;  // not a sample of the dataset: the table path reads it by pointer
    indices[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(offset / resident.sample_bytes);
  }
  if (count <= cuda_convert::kGatherInlineIndices) {
    std::copy(indices.begin(), indices.end(), g.indices);
    cuda_convert::launch_window_gather(whole.params, g, plan.dtype, shape, max_blocks, stream);
    return true;
  }
  // More than the parameter holds: one copy of the indices, still one launch
  // (a launch per 1024 samples cost about 6 us each on an H200).
  void* table = upload(indices.data(), indices.size() * sizeof(std::int64_t), stream);
  g.device_indices = static_cast<const std::int64_t*>(table);
  try {
    cuda_convert::launch_window_gather(whole.params, g, plan.dtype, shape, max_blocks, stream);
  } catch (...) {
    memory_.device_cache().free(table, stream);
    throw;
  }
  memory_.device_cache().free(table, stream);  // after the launch: see convert()
  return true;
}

void CudaConverter::convert_frames(const ConvertPlan& plan, const SourceView& frames, std::int64_t first,
                                   std::int64_t count, DecodedFrames& decoded, void* output_base, void* stream) {
  DeviceScope scope(runtime_);
  if (decode_in_resample(plan)) {
    convert_resampled(plan, frames, first, count, output_base, stream, true);
    return;
  }
  std::vector<cuda_convert::DecodeFrameRow> rows(static_cast<std::size_t>(count));
  std::int64_t max_h = 1, max_w = 1;
  for (std::int64_t i = 0; i < count; ++i) {
    rows[static_cast<std::size_t>(i)].frame = frame_ref_of(plan, frames, first, i);
    max_h = std::max<std::int64_t>(max_h, rows[static_cast<std::size_t>(i)].frame.h);
    max_w = std::max<std::int64_t>(max_w, rows[static_cast<std::size_t>(i)].frame.w);
  }
  DeviceCache& cache = memory_.device_cache();
  auto* rgb = static_cast<std::uint8_t*>(cache.allocate(static_cast<std::size_t>(decoded.bytes()), stream));
  void* table = nullptr;
  try {
    for (std::int64_t i = 0; i < count; ++i) rows[static_cast<std::size_t>(i)].rgb = rgb + decoded.offset(i);
    cuda_convert::DecodeFrames launch;
    launch.count = count;
    if (count <= cuda_convert::kInlineFrames) {
      std::copy(rows.begin(), rows.end(), launch.inline_rows);  // no table to copy
    } else {
      table = upload(rows.data(), rows.size() * sizeof(cuda_convert::DecodeFrameRow), stream);
      launch.table = static_cast<const cuda_convert::DecodeFrameRow*>(table);
    }
    cuda_convert::launch_decode_frames(launch, plan.frame, max_h, max_w, stream);
    convert(plan, decoded.view_of(rgb), first, count, output_base, stream, nullptr);
  } catch (...) {
    if (table != nullptr) cache.free(table, stream);
    cache.free(rgb, stream);
    throw;
  }
  // Behind the kernels that read them (see convert()).
  if (table != nullptr) cache.free(table, stream);
  cache.free(rgb, stream);
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
  auto sample = [&](std::int64_t i) {
    return decode_frames ? resample_frame_of(plan, source, first, i) : resample_sample_of(plan, source, first, i);
  };
  DeviceCache& cache = memory_.device_cache();
  void* table = nullptr;
  // Pointers the device writes (SourceView::Resident's device_indices) need a table in device memory.
  const bool gathered_on_device = source.resident.device_indices != nullptr;
  if (count <= cuda_convert::kInlineSamples && !gathered_on_device) {
    for (std::int64_t i = 0; i < count; ++i) p.inline_samples[i] = sample(i);  // no table to copy
  } else {
    std::vector<ResampleSample> rows(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) rows[static_cast<std::size_t>(i)] = sample(i);
    table = upload(rows.data(), rows.size() * sizeof(ResampleSample), stream);
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

int CudaConverter::max_vector_blocks(const cuda_convert::KernelParams& p, DType dtype, int step) {
  const bool nhwc = p.out_nhwc != 0;
  const int variant = cuda_convert::vector_variant(p, step);
  return cached_blocks(max_vector_blocks_[static_cast<int>(dtype)][p.c][nhwc ? 1 : 0][variant], [&] {
    return sm_count_ * cuda_convert::convert_vector_blocks_per_sm(dtype, p.c, nhwc, variant);
  });
}

int CudaConverter::max_pixels_blocks(DType dtype, int c, int oct) {
  return cached_blocks(max_pixels_blocks_[static_cast<int>(dtype)][c][oct],
                       [&] { return sm_count_ * cuda_convert::convert_pixels_blocks_per_sm(dtype, c, oct); });
}

int CudaConverter::max_gather_blocks(DType dtype, int c, int shape) {
  return cached_blocks(max_gather_blocks_[static_cast<int>(dtype)][c][shape],
                       [&] { return sm_count_ * cuda_convert::window_gather_blocks_per_sm(dtype, c, shape); });
}

int CudaConverter::max_window_blocks(DType dtype, int c, int shape) {
  return cached_blocks(max_window_blocks_[static_cast<int>(dtype)][c][shape],
                       [&] { return sm_count_ * cuda_convert::convert_window_blocks_per_sm(dtype, c, shape); });
}

}  // namespace ferry::core
