// The resident gather kernel (window_gather.h): the window kernel's units
// (convert_window_kernel.cuh), each sample found by its index in the
// dataset and its window origin and mirror drawn here from (seed, step,
// index) by the functions the host draws with (augment_window_draw.h), so
// the GPU and the CPU backend take the same windows. A gather is then one
// launch: no table copied, no pointer kernel before it. Measured (H200): a
// batch of 256 CIFAR samples (RandomCrop(4) + flip to f16 NCHW) took 14.7 us
// through the table path (two copies, the pointer kernel and the window
// kernel), 5.3-5.7 us here with its samples' lines and pages cold (on one
// stream: Stager::plan_streams), where a bare gather of the same samples
// takes 4.2-4.5 (bench/bare_gather.cu); the steps between and where the rest
// goes: PERF_NOTES.md.
//
// Instantiated for NCHW output and NHWC output of as many channels as the
// source has (the usual recipes); other shapes take the table path.
#include <algorithm>

#include "core/convert/augment_window_draw.h"
#include "core/convert/cuda/convert_window_kernel.cuh"
#include "core/convert/cuda/window_gather.h"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

// What a window draw reads of GatherSpec, by value: a function given a
// reference to the kernel parameter would read each field through a generic
// address, one slow load after another in front of the sample's first load.
struct DrawSpec {
  std::uint64_t seed, step;
  std::int32_t crop, padding;
  float flip_x, flip_y;
};

// Sample `index`'s window origin and mirror, drawn over the uniform ones.
__device__ __forceinline__ WindowSample draw_window(const DrawSpec& d, std::uint64_t index, WindowSample s, int w,
                                                    int h, int ow, int oh) {
  const philox::Stream stream{d.seed, d.step, index, 0};
  if (d.crop == static_cast<int>(AugmentCrop::Random)) {
    std::int64_t x = 0, y = 0;
    augment::random_crop_origin(stream, d.padding, w, h, ow, oh, &x, &y);
    s.x0 = static_cast<int>(x), s.y0 = static_cast<int>(y);
  } else if (d.crop == static_cast<int>(AugmentCrop::Center)) {
    s.x0 = static_cast<int>(augment::center_origin(w, ow));
    s.y0 = static_cast<int>(augment::center_origin(h, oh));
  }
  s.mirror ^= augment::draw_flips(stream, d.flip_x, d.flip_y);
  return s;
}

// The same, not inlined: for a thread drawing inside the unit loop, whose
// registers it would otherwise take (inlined there, the NCHW kernels spilled
// 44 bytes at their 48-register cap).
__device__ __noinline__ WindowSample draw_window_apart(DrawSpec d, std::uint64_t index, WindowSample s, int w, int h,
                                                       int ow, int oh) {
  return draw_window(d, index, s, w, h, ow, oh);
}

// One gathered sample as the units read it.
struct GatherEntry {
  const std::uint8_t* sample;
  WindowSample window;
};

// The samples a block's share of units meets, found and drawn at its start
// (one thread each) into shared memory: a draw is two Philox blocks, about
// as much work as a unit, and a thread meets a new sample every step or two.
constexpr int kBlockEntries = 64;

// What the window kernel reads of a gathered sample: its entry in the
// block's table, or (a share meeting more samples than it holds) found and
// drawn by the thread itself. G: the launch's GatherParamsOf.
template <typename G>
struct GatheredSamples {
  static constexpr bool kPerBlock = true;
  static constexpr bool kPredicated = true;
  const KernelParams& p;
  const G& g;
  GatherEntry* entries;  // kBlockEntries in shared memory
  int unit_pixels;       // output pixels a unit (16 bytes of the output type)
  std::uint32_t first = 0, held = 0;
  const std::uint8_t* sample = nullptr;

  __device__ __forceinline__ const std::uint8_t* sample_at(std::uint32_t i) const {
    std::int64_t k = g.device_indices != nullptr ? g.device_indices[i] : std::int64_t{g.indices[i]};
    k = k < 0 ? 0 : k >= g.count ? g.count - 1 : k;
    return g.base + static_cast<std::uint64_t>(k) * g.sample_bytes;
  }
  // Sample i found and drawn; APART: the draw not inlined (see draw_window_apart).
  template <bool APART>
  __device__ __forceinline__ GatherEntry find(std::uint32_t i) const {
    GatherEntry e{sample_at(i), WindowSample{p.crop_x, p.crop_y, p.mirror}};
    if (g.draws == 0) return e;
    const DrawSpec d{g.seed, g.step, g.crop, g.padding, g.flip_x, g.flip_y};
    const auto index = static_cast<std::uint64_t>(g.first_index + i);
    e.window = APART ? draw_window_apart(d, index, e.window, p.w, p.h, p.ow, p.oh)
                     : draw_window(d, index, e.window, p.w, p.h, p.ow, p.oh);
    return e;
  }
  // Worked out by the launch (GatherSpec::block_units).
  __device__ __forceinline__ std::uint32_t block_units() const { return g.block_units; }
  __device__ __forceinline__ std::uint32_t sample_of_unit(std::uint32_t unit) const {
    return p.runs_per_sample_div.divide(p.units_per_run.divide(unit));
  }
  // The span of the thread's first unit, asked into the L2 before the draws:
  // its sample's address needs no draw, only the window's origin does, so the
  // DRAM reads (and the page walks of a random gather) run while the draws
  // are made instead of after them. The unit's row and column unshifted by
  // the window (those are drawn), clamped into the sample: a block's threads
  // cover its samples' rows between them. H200s, CIFAR's recipe at batch
  // 256: 7.0-7.1 -> 6.7 us on one host, 6.6 -> 6.0 on another (a plain load
  // in its place: no better); the 64x64 rows lose 0.01-0.03 of a D2D copy.
  __device__ __forceinline__ void prefetch_first_span(std::uint32_t unit) const {
    const std::uint32_t run = p.units_per_run.divide(unit);
    const std::uint32_t i = p.runs_per_sample_div.divide(run);
    const int row = min(static_cast<int>(run - i * p.runs_per_sample_div.d), p.h - 1);
    const int x = min(static_cast<int>(unit - run * p.units_per_run.d) * unit_pixels, p.w - 1);
    const std::uint8_t* at = sample_at(i) + static_cast<std::int64_t>(row) * p.src_h + x * p.c;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
  }
  // The block's last warp draws its samples while the other warps ask the
  // first spans of every unit of the block's first step into the L2 (theirs
  // and the drawing warp's): the draws and the prefetches' address work run
  // side by side, not one after the other in the first warp. H200, CIFAR's
  // recipe at batch 256: host medians 0.657 -> 0.686 of a D2D copy, without
  // augmentation 0.68 -> 0.74; the 64x64 rows within 0.01.
  __device__ __forceinline__ void prepare(std::uint32_t begin, std::uint32_t end) {
    constexpr std::uint32_t kDrawWarp = kWindowThreads / 32 - 1, kPrefetchers = kDrawWarp * 32;
    const std::uint32_t lane = threadIdx.x % 32;
    if (begin < end) {
      first = sample_of_unit(begin);
      held = min(sample_of_unit(end - 1) - first + 1, static_cast<std::uint32_t>(kBlockEntries));
    }
    if (threadIdx.x / 32 == kDrawWarp) {
      for (std::uint32_t t = lane; t < held; t += 32) entries[t] = find<false>(first + t);
    } else {
      for (std::uint32_t u = begin + threadIdx.x; u < end && u < begin + kWindowThreads; u += kPrefetchers)
        prefetch_first_span(u);
    }
    __syncthreads();
  }
  __device__ __forceinline__ void enter(std::uint32_t i, WindowSample& s) {
    const GatherEntry e = i - first < held ? entries[i - first] : find<true>(i);
    sample = e.sample;
    s = e.window;
  }
  __device__ __forceinline__ const std::uint8_t* source(std::uint32_t) const { return sample; }
  __device__ __forceinline__ WindowCoefficients coefficients(std::uint32_t) const { return coefficients_of(p, nullptr); }
};

// 4 resident blocks (64 registers): the sample pointer kept across a
// thread's units made the NCHW kernels from 3 channels spill 36 bytes at the
// window kernel's 48 (5 blocks).
// N: the host indices the parameter holds (GatherParamsOf).
template <DType D, int C, int SHAPE, int N>
__global__ void __launch_bounds__(kWindowThreads, resident_blocks(4, kWindowThreads))
    window_gather_kernel(const KernelParams p, const __grid_constant__ GatherParamsOf<N> g) {
  __shared__ GatherEntry entries[kBlockEntries];
  GatheredSamples<GatherParamsOf<N>> samples{p, g, entries, 16 / elem_size<D>()};
  convert_window_units<D, C, SHAPE>(p, samples);
}

template <DType D, int C, int N>
const void* for_shape(int shape) {
  if (shape == 0) return reinterpret_cast<const void*>(&window_gather_kernel<D, C, 0, N>);
  if (shape == C) return reinterpret_cast<const void*>(&window_gather_kernel<D, C, C, N>);
  return nullptr;
}

template <DType D, int N>
const void* for_channels(int c, int shape) {
  switch (c) {
    case 1: return for_shape<D, 1, N>(shape);
    case 3: return for_shape<D, 3, N>(shape);
    case 4: return for_shape<D, 4, N>(shape);
  }
  return nullptr;
}

template <int N>
const void* gather_kernel(DType dtype, int c, int shape) {
  switch (dtype) {
    case DType::UInt8: return for_channels<DType::UInt8, N>(c, shape);
    case DType::Float32: return for_channels<DType::Float32, N>(c, shape);
    case DType::Float16: return for_channels<DType::Float16, N>(c, shape);
    case DType::BFloat16: return for_channels<DType::BFloat16, N>(c, shape);
  }
  return nullptr;
}

template <int N = kGatherInlineIndices>
const void* pick(DType dtype, int c, int shape) {
  const void* kernel = gather_kernel<N>(dtype, c, shape);
  if (kernel == nullptr)
    fail(Status::Internal, "gather kernel for dtype ", static_cast<int>(dtype), ", ", c, " channels, output shape ",
         shape, " does not exist");
  return kernel;
}

template <int N>
void launch(const KernelParams& params, const GatherSpec& spec, const std::int64_t* host_indices, DType dtype,
            int shape, int max_blocks, void* stream) {
  GatherParamsOf<N> gather;
  static_cast<GatherSpec&>(gather) = spec;
  if (host_indices != nullptr)
    std::transform(host_indices, host_indices + params.count, gather.indices,
                   [](std::int64_t k) { return static_cast<std::int32_t>(k); });
  const std::int64_t work = (std::int64_t{params.units} + kWindowThreads - 1) / kWindowThreads;
  const int blocks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(work, max_blocks)));
  gather.block_units = window_block_units(params.units, static_cast<std::uint32_t>(blocks));
  void* args[] = {const_cast<KernelParams*>(&params), &gather};
  FERRY_CUDA_TRY(cudaLaunchKernel(pick<N>(dtype, params.c, shape), dim3(static_cast<unsigned>(blocks)),
                                  dim3(kWindowThreads), args, 0, static_cast<cudaStream_t>(stream)));
}

}  // namespace

bool gather_kernel_exists(DType dtype, int c, int shape) {
  return gather_kernel<kGatherInlineIndices>(dtype, c, shape) != nullptr;
}

int window_gather_blocks_per_sm(DType dtype, int c, int shape) {
  int blocks = 0;
  FERRY_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pick(dtype, c, shape), kWindowThreads, 0));
  return blocks > 0 ? blocks : 1;
}

void launch_window_gather(const KernelParams& params, const GatherSpec& spec, const std::int64_t* host_indices,
                          DType dtype, int shape, int max_blocks, void* stream) {
  if (host_indices == nullptr || params.count <= kGatherSmallIndices) {
    launch<kGatherSmallIndices>(params, spec, host_indices, dtype, shape, max_blocks, stream);
  } else {
    if (params.count > kGatherInlineIndices)
      fail(Status::Internal, params.count, " host indices for a gather launch, more than its ", kGatherInlineIndices);
    launch<kGatherInlineIndices>(params, spec, host_indices, dtype, shape, max_blocks, stream);
  }
}

}  // namespace ferry::core::cuda_convert
