#include "core/convert/cuda/cuda_converter.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/device/cuda/cuda_check.h"
#include "core/device/device_scope.h"

namespace ferry::core {
namespace {

using cuda_convert::DeviceSample;
using cuda_convert::KernelParams;

KernelParams params_of(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                       void* output_base) {
  KernelParams p;
  p.base = source.base;
  p.out = static_cast<std::uint8_t*>(output_base);
  p.first = first;
  p.count = count;
  p.src_n = source.strides.n, p.src_c = source.strides.c, p.src_h = source.strides.h, p.src_w = source.strides.w;
  p.out_n = plan.out_strides.n, p.out_c = plan.out_strides.c;
  p.out_h = plan.out_strides.h, p.out_w = plan.out_strides.w;
  p.h = static_cast<std::int32_t>(plan.h), p.w = static_cast<std::int32_t>(plan.w);
  p.c = static_cast<std::int32_t>(plan.c);
  p.oh = static_cast<std::int32_t>(plan.out_h), p.ow = static_cast<std::int32_t>(plan.out_w);
  p.oc = plan.out_channels, p.oct = plan.out_channels_total;
  for (int k = 0; k < 4; ++k) {
    p.channel_map[k] = plan.channel_map[k];
    p.alpha[k] = plan.alpha[k];
    p.beta[k] = plan.beta[k];
  }
  p.crop_x = static_cast<std::int32_t>(plan.crop.x), p.crop_y = static_cast<std::int32_t>(plan.crop.y);
  p.mirror = plan.mirror;
  p.pad_bits = plan.pad_bits, p.fill_bits = plan.fill_bits;
  p.out_nhwc = plan.out_layout == Layout::NHWC;
  return p;
}

// Decides the fast path: contiguous interleaved pixels in, contiguous rows or
// planes out, nothing mirrored or outside. Fills the run geometry.
bool choose_runs(const ConvertPlan& plan, KernelParams& p) {
  bool mirrored = plan.mirror != 0;
  for (std::uint8_t m : plan.sample_mirror) mirrored |= m != 0;
  if (mirrored || plan.any_outside) return false;
  const std::int64_t E = plan.element_size, C = plan.c, OCT = plan.out_channels_total;
  const bool pixels_in = (C == 1 || p.src_c == 1) && p.src_w == C;
  const bool pixels_out = p.out_nhwc ? (OCT == 1 || p.out_c == E) && p.out_w == OCT * E : p.out_w == E;
  if (!pixels_in || !pixels_out) return false;
  const bool whole = plan.full_width_unmirrored() && (plan.out_h == 1 || (p.src_h == plan.w * C && p.out_h == plan.out_w * p.out_w));
  if (whole) {
    p.run_len = plan.out_h * plan.out_w;
    p.runs_per_sample = 1;
  } else {
    if (plan.out_w < 64) return false;  // short rows leave most of a 512-pixel tile idle
    p.run_len = plan.out_w;
    p.runs_per_sample = plan.out_h;
  }
  p.tiles_per_run = (p.run_len + 511) / 512;
  return true;
}

std::vector<DeviceSample> table_of(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                                   std::int64_t count) {
  std::vector<DeviceSample> table(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t g = first + i;
    DeviceSample& d = table[static_cast<std::size_t>(i)];
    d.src = source.samples ? source.samples[i] : source.base + i * source.strides.n;
    FERRY_EXPECT(d.src != nullptr, Status::InvalidArgument, "source.samples[", i, "] is NULL");
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

void CudaConverter::convert(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                            std::int64_t count, void* output_base, void* stream) {
  DeviceScope scope(runtime_);
  KernelParams p = params_of(plan, source, first, count, output_base);
  const bool runs = choose_runs(plan, p);
  const bool needs_table = source.samples != nullptr || plan.has_per_sample();
  std::vector<DeviceSample> table;
  std::vector<std::uintptr_t> run_starts;
  if (needs_table) {
    table = table_of(plan, source, first, count);
    if (runs) {
      run_starts.resize(table.size());
      for (std::size_t i = 0; i < table.size(); ++i)
        run_starts[i] = reinterpret_cast<std::uintptr_t>(table[i].src) +
                        static_cast<std::uintptr_t>(std::int64_t{table[i].y} * p.src_h + std::int64_t{table[i].x} * p.c);
    }
  }
  const bool vector = runs && cuda_convert::choose_vector(p, plan.dtype, needs_table ? run_starts.data() : nullptr);
  auto launch = [&] {
    if (vector)
      cuda_convert::launch_convert_vector(p, plan.dtype, max_vector_blocks(plan.dtype, p.c, p.out_nhwc != 0), stream);
    else
      cuda_convert::launch_convert(p, plan.dtype, runs, max_blocks_[runs ? 1 : 0][static_cast<int>(plan.dtype)], stream);
  };
  if (!needs_table) {
    launch();  // everything rides in the kernel parameters: no copy, no event
    return;
  }
  void* on_device = upload(table.data(), table.size() * sizeof(DeviceSample), stream);
  p.samples = static_cast<const DeviceSample*>(on_device);
  try {
    launch();
  } catch (...) {
    memory_.device_cache().free(on_device, stream);
    throw;
  }
  // Only now: a block freed on a stream is at once reusable by the next
  // allocation on it, whose copy must queue behind this kernel, not before it.
  memory_.device_cache().free(on_device, stream);
}

int CudaConverter::max_vector_blocks(DType dtype, int c, bool out_nhwc) {
  int& cached = max_vector_blocks_[static_cast<int>(dtype)][c][out_nhwc ? 1 : 0];
  int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (value == 0) {
    value = sm_count_ * cuda_convert::convert_vector_blocks_per_sm(dtype, c, out_nhwc);
    __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
  }
  return value;
}

}  // namespace ferry::core
