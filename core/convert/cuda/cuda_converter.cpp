#include "core/convert/cuda/cuda_converter.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <vector>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/cuda/gather_pointers.h"
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

// The unit kernels' grid: 16 times the blocks an SM holds at once, each
// thread grid-striding over fewer chunks, rather than one resident wave
// striding over all of them. H200, ferry_bench_convert (1024 x 224 x 224;
// PERF_NOTES.md, 12), ratio to a D2D copy at 1 / 8 / 16 / 32 waves: f32
// NCHW normalize 0.883 / 0.917 / 0.929 / 0.932, gray->RGB f32 NCHW 0.855 /
// 0.893 / 0.907 / 0.895, padded window 0.801 / 0.855 / 0.887 / 0.896, crop +
// flip f16 0.836 / 0.890 / 0.892 / 0.865; one chunk a warp (no striding)
// 0.71-0.93. Calls smaller than a wave (a frame, an image) are unchanged.
constexpr int kUnitGridWaves = 16;
using cuda_convert::SampleParams;

// The per-sample parameters of global samples first .. first+count-1, written to `out`.
void write_sample_params(const ConvertPlan& plan, std::int64_t first, std::int64_t count, SampleParams* out) {
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t g = first + i;
    SampleParams& d = *new (out + i) SampleParams;
    std::memcpy(d.alpha, plan.alpha_of(g), sizeof d.alpha);
    std::memcpy(d.beta, plan.beta_of(g), sizeof d.beta);
    const Rect w = plan.window_of(g);
    d.x = static_cast<std::int32_t>(w.x);
    d.y = static_cast<std::int32_t>(w.y);
    d.mirror = plan.mirror_of(g);
    d.unused = 0;
  }
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

CudaConverter::~CudaConverter() {
  if (upload_stream_ != nullptr) runtime_.stream_destroy(upload_stream_);  // its copies still complete
}

StreamHandle CudaConverter::upload_stream() {
  std::call_once(upload_stream_once_, [this] { upload_stream_ = runtime_.stream_create(false); });
  return upload_stream_;
}

void* CudaConverter::upload(const void* table, std::size_t bytes, StreamHandle stream, TableStream how) {
  return upload_written(bytes, stream, how, [&](void* host) { std::memcpy(host, table, bytes); });
}

void* CudaConverter::upload_written(std::size_t bytes, StreamHandle stream, TableStream how,
                                    const std::function<void(void* host)>& write) {
  PinnedPool& pinned = memory_.pinned_pool();
  DeviceCache& device = memory_.device_cache();
  const StreamHandle copies = how == TableStream::Upload ? upload_stream() : stream;
  // Allocated for the stream of the copy: a block the kernel's stream freed is
  // handed to the upload stream only once the kernels that read it have run (its event).
  void* on_device = device.allocate(bytes, copies);
  void* host = nullptr;
  try {
    host = pinned.allocate(bytes);
    write(host);
    runtime_.copy(on_device, host, bytes, copies);
    // The host block is reused only once the copy queued before this free has run.
    pinned.free_on_stream(host, copies);
    host = nullptr;
    if (copies != stream) {
      EventLease copied(memory_.event_pool());
      runtime_.event_record(copied.get(), copies);
      runtime_.stream_wait(stream, copied.get());
    }
  } catch (...) {
    if (host != nullptr) pinned.free_on_stream(host, copies);
    device.free(on_device, copies);
    throw;
  }
  return on_device;
}

void* CudaConverter::upload_batch_table(const ConvertPlan& plan, void* stream) {
  if (plan.resize || plan.variable_sizes()) return nullptr;  // convert_resampled builds its rows per call
  DeviceScope scope(runtime_);
  return upload_written(static_cast<std::size_t>(plan.n) * sizeof(SampleParams), stream, TableStream::Kernel,
                        [&](void* host) { write_sample_params(plan, 0, plan.n, static_cast<SampleParams*>(host)); });
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
  if (sources_bytes != 0)
    for (std::int64_t i = 0; i < count; ++i)
      FERRY_EXPECT(source.samples[i] != nullptr, Status::InvalidArgument, "source.samples[", i, "] is NULL");
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
  if (params_bytes + sources_bytes == 0) {
    launch();  // everything rides in the kernel parameters: no copy, no event
    return;
  }
  auto* on_device = static_cast<std::uint8_t*>(
      upload_written(params_bytes + sources_bytes, stream, plan.table_stream, [&](void* host) {
        auto* bytes = static_cast<std::uint8_t*>(host);
        if (params_bytes != 0) write_sample_params(plan, first, count, reinterpret_cast<SampleParams*>(bytes));
        if (sources_bytes != 0) std::memcpy(bytes + params_bytes, source.samples, sources_bytes);
      }));
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
  // Only now, on the kernel's stream: the next allocation there (its copy
  // queued behind this kernel) or the upload stream (once this kernel has run:
  // the free's event) may reuse the block, not before.
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
  cuda_convert::GatherSpec g;
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
    cuda_convert::launch_window_gather(whole.params, g, nullptr, plan.dtype, shape, max_blocks, stream);
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
    cuda_convert::launch_window_gather(whole.params, g, indices.data(), plan.dtype, shape, max_blocks, stream);
    return true;
  }
  // More than the parameter holds: one copy of the indices, still one launch
  // (a launch per 1024 samples cost about 6 us each on an H200).
  void* table = upload(indices.data(), indices.size() * sizeof(std::int64_t), stream, plan.table_stream);
  g.device_indices = static_cast<const std::int64_t*>(table);
  try {
    cuda_convert::launch_window_gather(whole.params, g, nullptr, plan.dtype, shape, max_blocks, stream);
  } catch (...) {
    memory_.device_cache().free(table, stream);
    throw;
  }
  memory_.device_cache().free(table, stream);  // after the launch: see convert()
  return true;
}

int CudaConverter::max_vector_blocks(const cuda_convert::KernelParams& p, DType dtype, int step) {
  const bool nhwc = p.out_nhwc != 0;
  const int variant = cuda_convert::vector_variant(p, step);
  return cached_blocks(max_vector_blocks_[static_cast<int>(dtype)][p.c][nhwc ? 1 : 0][variant], [&] {
    return kUnitGridWaves * sm_count_ * cuda_convert::convert_vector_blocks_per_sm(dtype, p.c, nhwc, variant);
  });
}

int CudaConverter::max_pixels_blocks(DType dtype, int c, int oct) {
  return cached_blocks(max_pixels_blocks_[static_cast<int>(dtype)][c][oct], [&] {
    return kUnitGridWaves * sm_count_ * cuda_convert::convert_pixels_blocks_per_sm(dtype, c, oct);
  });
}

int CudaConverter::max_gather_blocks(DType dtype, int c, int shape) {
  return cached_blocks(max_gather_blocks_[static_cast<int>(dtype)][c][shape],
                       [&] { return sm_count_ * cuda_convert::window_gather_blocks_per_sm(dtype, c, shape); });
}

int CudaConverter::max_window_blocks(DType dtype, int c, int shape) {
  return cached_blocks(max_window_blocks_[static_cast<int>(dtype)][c][shape], [&] {
    return kUnitGridWaves * sm_count_ * cuda_convert::convert_window_blocks_per_sm(dtype, c, shape);
  });
}

}  // namespace ferry::core
