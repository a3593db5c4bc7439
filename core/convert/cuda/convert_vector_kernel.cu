// The vector conversion kernel: the fast path for float32/float16/bfloat16
// output (and uint8 NCHW) when the window is made of runs of contiguous interleaved pixels
// (packed images, or rows) and every run is a whole number of 16-byte output
// units, aligned. With NCHW output the rows may be mirrored, in X or Y, per
// batch or per sample, and (four units a thread, Reach::sample_unaligned)
// start on any byte. Per-sample windows come from the table (KernelParams::
// params) or, for crops and flips alone, inline in the launch (InlineWindows).
//
// One thread converts four units a step (units l, l + 32, l + 64, l + 96 of
// its warp's chunk, all loaded first), straight from registers: no shared
// memory, no block per row. A unit is
//  - NCHW output: G = 16 / element-size pixels (G * C input bytes, loaded with
//    the widest aligned vector loads), written as one 16-byte store per output
//    channel plane; lanes of a warp write consecutive units, so each store
//    instruction of a warp covers 512 contiguous bytes. Any channel map
//    (the input byte is picked with a run-time PRMT selector) and padding.
//  - NHWC output with the identity channel map and no padding: the output
//    is the input stream, element for element: 16 / element-size input bytes
//    per unit, one 16-byte store; the channel of element j is (offset + j) % C.
// The grid is sized to the resident blocks and strides over all units of
// the call (every sample, every run): no tail of idle blocks per row.
// NHWC output that is not the input stream: convert_pixels_kernel.cu.
// Resource use and the measured causes: PERF_NOTES.md.
//
// A unit's loads, arithmetic and stores: convert_vector_unit.cuh.
#include <algorithm>

#include "core/convert/cuda/convert_kernel_params.h"
#include "core/convert/cuda/convert_unit_math.cuh"
#include "core/convert/cuda/convert_vector_unit.cuh"
#include "core/convert/cuda/resident_blocks.cuh"
#include "core/device/cuda/cuda_check.h"
#include "core/error.h"

namespace ferry::core::cuda_convert {
namespace {

constexpr int kThreads = 256;

// How far a lane's four units may reach, and from which source bytes:
// within one run (whole-sample runs); across the runs of one sample (rows of
// a mirrored or cropped window); the same with every run starting on any
// byte (per-sample crops at any origin, load_unit_unaligned). A template
// switch: the wider reaches' registers (up to 21 more) would cost the
// whole-sample calls resident blocks.
enum class Reach { run, sample, sample_unaligned };

// Resident blocks per SM asked of ptxas (its register cap) for four units a
// thread: 64 registers (4 blocks); uint8 units of 48 or 64 bytes (3 or 4
// source channels) 128 (2 blocks); 16-bit units from 4 channels off the load
// width (nine words each) 80 (3 blocks: at 64 they spilled 116 bytes).
template <DType D, int C, Reach R>
constexpr int step_min_blocks() {
  if (D == DType::UInt8 && C >= 3) return 2;
  return C == 4 && elem_size<D>() == 2 && R == Reach::sample_unaligned ? 3 : 4;
}

// Where a unit's run lies: its first source and output bytes, the unit's
// index in it and its sample's table entry.
struct VectorRun {
  const std::uint8_t* src;
  std::uint8_t* out;
  std::uint32_t u;
  const SampleParams* ds;
  int mirror;         // kMirrorX | kMirrorY of the run's sample (mirror Y already chose the source row)
  std::uint32_t row;  // the run's index in its sample
};

// `windows`: the launch's inline windows (NULL in the kernels without
// them), read where p.inline_windows says so.
template <int C>
__device__ __forceinline__ VectorRun locate_vector_unit(const KernelParams& p, std::uint32_t unit,
                                                        const InlineWindows* windows) {
  const std::uint32_t run = p.units_per_run.divide(unit);
  const std::uint32_t u = unit - run * p.units_per_run.d;
  const std::uint32_t i = p.runs_per_sample_div.divide(run);
  const std::uint32_t row = run - i * p.runs_per_sample_div.d;
  const SampleParams* ds = p.params ? p.params + i : nullptr;
  int x0, y0, mirror;
  if (windows != nullptr && p.inline_windows) {
    const std::uint32_t w = windows->packed[i];
    x0 = static_cast<int>(w & kInlineCoordinateMask);
    y0 = static_cast<int>((w >> kInlineCoordinateBits) & kInlineCoordinateMask);
    mirror = static_cast<int>(w >> (2 * kInlineCoordinateBits));
  } else {
    x0 = ds ? ds->x : p.crop_x, y0 = ds ? ds->y : p.crop_y, mirror = ds ? ds->mirror : p.mirror;
  }
  const int sy = y0 + ((mirror & kMirrorY) ? p.oh - 1 - static_cast<int>(row) : static_cast<int>(row));
  const std::uint8_t* src = sample_source(p, i) + static_cast<std::int64_t>(sy) * p.src_h +
                            static_cast<std::int64_t>(x0) * C;
  std::uint8_t* out = p.out + (p.first + i) * p.out_n + static_cast<std::int64_t>(row) * p.out_h;
  return {src, out, u, ds, mirror, row};
}

// The STEP units of lane l's run at `at` (units u, u + 32, ...): all loaded,
// then converted.
template <DType D, int C, bool NHWC, int STEP, bool MIRROR_X, bool UNALIGNED>
__device__ __forceinline__ void convert_run_units(const KernelParams& p, const VectorRun& at) {
  LoadedUnit<unit_in_bytes<D, C, NHWC>()> loaded[STEP];
#pragma unroll
  for (int k = 0; k < STEP; ++k)
    loaded[k] = load_vector_unit<D, C, NHWC, MIRROR_X, UNALIGNED>(p, at.src, at.out, at.u + 32u * k, at.ds);
#pragma unroll
  for (int k = 0; k < STEP; ++k) store_vector_unit<D, C, NHWC, MIRROR_X>(p, loaded[k]);
}

// The STEP units u, u + 32, ... of lane l's sample counted from its run at
// `at`, over the run's end into the sample's next runs (rows shorter than a
// warp's chunk: mirrored or cropped windows): each unit's run found from the
// lane's by one FastDiv, its row reached by strides (mirror Y walks the
// source upwards), all loaded before any is converted, as in
// convert_run_units.
template <DType D, int C, bool NHWC, int STEP, bool MIRROR_X, bool UNALIGNED>
__device__ __forceinline__ void convert_sample_units(const KernelParams& p, const VectorRun& at) {
  const std::int64_t src_row = (at.mirror & kMirrorY) ? -p.src_h : p.src_h;
  LoadedUnit<unit_in_bytes<D, C, NHWC>()> loaded[STEP];
#pragma unroll
  for (int k = 0; k < STEP; ++k) {
    const std::uint32_t v = at.u + 32u * k, runs = p.units_per_run.divide(v);
    loaded[k] = load_vector_unit<D, C, NHWC, MIRROR_X, UNALIGNED>(p, at.src + runs * src_row,
                                                                 at.out + runs * p.out_h,
                                                                 v - runs * p.units_per_run.d, at.ds);
  }
#pragma unroll
  for (int k = 0; k < STEP; ++k) store_vector_unit<D, C, NHWC, MIRROR_X>(p, loaded[k]);
}

// Units of one run (or, ACROSS, of one sample from the run on), mirrored in
// X or not as their sample is (NCHW output only: the host sends no mirror
// with NHWC output). The lanes of a warp mostly share a sample, so the
// branch rarely splits a warp.
template <DType D, int C, bool NHWC, int STEP, Reach R, bool ACROSS = false>
__device__ __forceinline__ void convert_run_units_mirrored(const KernelParams& p, const VectorRun& at) {
  constexpr bool U = R == Reach::sample_unaligned;
  if (!NHWC && (at.mirror & kMirrorX)) {
    if constexpr (ACROSS) convert_sample_units<D, C, NHWC, STEP, !NHWC, U>(p, at);
    else convert_run_units<D, C, NHWC, STEP, !NHWC, U>(p, at);
  } else {
    if constexpr (ACROSS) convert_sample_units<D, C, NHWC, STEP, false, U>(p, at);
    else convert_run_units<D, C, NHWC, STEP, false, U>(p, at);
  }
}

// STEP 1: the grid strides over the units one at a time per thread (the
// kernel of the first measured table).
// STEP 4: warps stride over chunks of 128 units and lane l takes units l,
// l + 32, l + 64, l + 96 of its warp's chunk (each store instruction of a
// warp still covers 512 contiguous bytes a plane). Where they all lie in the
// lane's first unit's run (all but the chunks across a run's end) the run is
// located once (the divisions, the table entry, the 64-bit addressing) and
// the four loads are in flight before any unit is converted. Each unit is
// converted and stored exactly as with STEP 1; only the order of loads and
// stores across units changes. H200, x D2D, against the former two units a
// grid stride apart each located on its own (and two of a warp's chunk):
// f32 NCHW 0.861 -> 0.882 (0.875), f16 NCHW 0.885 -> 0.905 (0.885), bf16
// NHWC 0.866 -> 0.885 (0.870), gray->RGB f32 NCHW 0.83 -> 0.855 (0.847).
// Reach::sample and sample_unaligned: a lane's four units that cross a
// run's end but not its sample's stay four in flight (convert_sample_units).
template <DType D, int C, bool NHWC, int STEP, Reach R>
__device__ __forceinline__ void convert_vector_units(const KernelParams& p, const InlineWindows* windows) {
  if constexpr (STEP == 1) {
    const std::uint32_t stride = gridDim.x * kThreads;  // units < 2^31 and stride < 2^31: no wrap below
    for (std::uint32_t unit = blockIdx.x * kThreads + threadIdx.x; unit < p.units; unit += stride)
      convert_run_units_mirrored<D, C, NHWC, 1, R>(p, locate_vector_unit<C>(p, unit, windows));
  } else {
    constexpr int kChunk = 32 * STEP;
    const std::uint32_t lane = threadIdx.x & 31u;
    const std::uint32_t warps = gridDim.x * (kThreads / 32);
    const std::uint32_t chunks = (p.units + kChunk - 1) / kChunk;  // units < 2^31: no wrap
    for (std::uint32_t chunk = (blockIdx.x * kThreads + threadIdx.x) / 32; chunk < chunks; chunk += warps) {
      const std::uint32_t unit = chunk * kChunk + lane;
      if (unit >= p.units) continue;
      const VectorRun at = locate_vector_unit<C>(p, unit, windows);
      const std::uint32_t last = at.u + 32u * (STEP - 1);
      if (last < p.units_per_run.d) {
        convert_run_units_mirrored<D, C, NHWC, STEP, R>(p, at);
      } else if (R != Reach::run && unit + 32u * (STEP - 1) < p.units &&
                 at.row + p.units_per_run.divide(last) < p.runs_per_sample_div.d) {
        // Across runs of one sample (rows of a mirrored or cropped window):
        // still all four in flight. H200, x D2D, old binary beside the new:
        // mirror X f32 NCHW 0.850 -> 0.869, per-sample flips 0.808 -> 0.828
        // (0.87 with the windows inline), center crop 0.846 -> 0.866, GL
        // readback 0.866 -> 0.89 (PERF_NOTES.md section 10).
        convert_run_units_mirrored<D, C, NHWC, STEP, R, true>(p, at);
      } else {
        // The units cross a sample's end (or a run's, with Reach::run):
        // each located and converted on its own. Loading them together, two
        // at a time, measured slower (bf16 NHWC 0.885 -> 0.80 of a D2D copy,
        // per-sample flips no better) and spilled.
        convert_run_units_mirrored<D, C, NHWC, 1, R>(p, at);
        for (int k = 1; k < STEP; ++k) {
          if (unit + 32u * k >= p.units) break;
          convert_run_units_mirrored<D, C, NHWC, 1, R>(p, locate_vector_unit<C>(p, unit + 32u * k, windows));
        }
      }
    }
  }
}

template <DType D, int C, bool NHWC, int STEP>
__global__ void __launch_bounds__(kThreads, STEP == 1 ? 1 : resident_blocks(step_min_blocks<D, C, Reach::run>(), kThreads))
    convert_vector_kernel(const KernelParams p) {
  convert_vector_units<D, C, NHWC, STEP, Reach::run>(p, nullptr);
}

// The calls of rows (Reach::sample, sample_unaligned), with the per-sample
// windows inline in the parameter where the host put them there.
template <DType D, int C, bool NHWC, Reach R>
__global__ void __launch_bounds__(kThreads, resident_blocks(step_min_blocks<D, C, R>(), kThreads))
    convert_vector_rows_kernel(const KernelParams p, const __grid_constant__ InlineWindows windows) {
  convert_vector_units<D, C, NHWC, 4, R>(p, &windows);
}

template <DType D, int C, bool NHWC>
const void* kernel_for_variant(int variant) {
  switch (variant) {
    case 0: return reinterpret_cast<const void*>(&convert_vector_kernel<D, C, NHWC, 1>);
    case 1: return reinterpret_cast<const void*>(&convert_vector_kernel<D, C, NHWC, 4>);
    case 2: return reinterpret_cast<const void*>(&convert_vector_rows_kernel<D, C, NHWC, Reach::sample>);
    case 3:
      if constexpr (!NHWC)
        return reinterpret_cast<const void*>(&convert_vector_rows_kernel<D, C, NHWC, Reach::sample_unaligned>);
      break;
  }
  fail(Status::Internal, "vector conversion kernel variant ", variant, (NHWC ? " for NHWC" : ""), " does not exist");
}

template <DType D, int C>
const void* kernel_for_layout(bool nhwc, int variant) {
  if constexpr (D == DType::UInt8) {  // uint8 NHWC is the pixel-stream kernel's
    if (nhwc) fail(Status::Internal, "vector conversion kernel for uint8 NHWC output does not exist");
    return kernel_for_variant<D, C, false>(variant);
  } else {
    return nhwc ? kernel_for_variant<D, C, true>(variant) : kernel_for_variant<D, C, false>(variant);
  }
}

template <DType D>
const void* kernel_for_channels(int c, bool nhwc, int variant) {
  switch (c) {
    case 1: return kernel_for_layout<D, 1>(nhwc, variant);
    case 3: return kernel_for_layout<D, 3>(nhwc, variant);
    case 4: return kernel_for_layout<D, 4>(nhwc, variant);
  }
  fail(Status::Internal, "vector conversion kernel for ", c, " channels does not exist");
}

const void* pick_vector_kernel(DType dtype, int c, bool nhwc, int variant) {
  switch (dtype) {
    case DType::Float32: return kernel_for_channels<DType::Float32>(c, nhwc, variant);
    case DType::Float16: return kernel_for_channels<DType::Float16>(c, nhwc, variant);
    case DType::BFloat16: return kernel_for_channels<DType::BFloat16>(c, nhwc, variant);
    case DType::UInt8: return kernel_for_channels<DType::UInt8>(c, nhwc, variant);
  }
  fail(Status::Internal, "vector conversion kernel for dtype ", static_cast<int>(dtype), " does not exist");
}

}  // namespace

int convert_vector_blocks_per_sm(DType dtype, int c, bool out_nhwc, int variant) {
  int blocks = 0;
  FERRY_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pick_vector_kernel(dtype, c, out_nhwc, variant),
                                                               kThreads, 0));
  return blocks > 0 ? blocks : 1;
}

void launch_convert_vector(const KernelParams& params, const InlineWindows* windows, DType dtype, int step,
                           int max_blocks, void* stream) {
  const std::int64_t work = (std::int64_t{params.units} + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(work, max_blocks)));
  const int variant = vector_variant(params, step);
  FERRY_EXPECT(!params.inline_windows || (windows != nullptr && variant >= 2), Status::Internal,
               "inline windows without their parameter or for vector kernel variant ", variant);
  static const InlineWindows kNone{};  // the rows kernels' parameter when the windows are the table's
  void* args[] = {const_cast<KernelParams*>(&params), const_cast<InlineWindows*>(windows ? windows : &kNone)};
  const void* kernel = pick_vector_kernel(dtype, params.c, params.out_nhwc != 0, variant);
  FERRY_CUDA_TRY(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), args, 0,
                                  static_cast<cudaStream_t>(stream)));
}

}  // namespace ferry::core::cuda_convert
