#include "core/convert/kernel_choice.h"

#include <vector>

namespace ferry::core {
namespace {

using cuda_convert::FastDiv;
using cuda_convert::KernelParams;
using cuda_convert::load_width;

constexpr std::int64_t kIndexLimit = std::int64_t{1} << 31;  // FastDiv's dividends and divisors

// The vector kernel's units per thread: 4 of a warp's chunk, located in
// their run once (core/convert/cuda/convert_vector_kernel.cu), for calls of
// at least kVectorStepMinUnits units; 1 for smaller calls, whose units do not
// fill the GPU's threads four times over. H200, one 1080p BGRA frame to f16
// NCHW (259,200 units) with four a thread: a quarter of the threads had
// work, and the frame took 1.5-3 us longer than through the window kernel.
constexpr int kVectorStep = 4;
constexpr std::int64_t kVectorStepMinUnits = std::int64_t{1} << 20;

bool aligned(std::uint64_t v, std::uint64_t a) { return v % a == 0; }

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
  p.zero_outside = plan.zero_outside ? 1 : 0;
  p.out_nhwc = plan.out_layout == Layout::NHWC;
  p.sample_coefficients = !plan.sample_alpha.empty();
  return p;
}

// Source pixels interleaved (c bytes, one after the other) and output
// elements of a row contiguous: what the run and unit kernels read and write.
bool interleaved_pixels(const ConvertPlan& plan, const KernelParams& p) {
  const std::int64_t E = plan.element_size, C = plan.c, OCT = plan.out_channels_total;
  const bool pixels_in = (C == 1 || p.src_c == 1) && p.src_w == C;
  const bool pixels_out = p.out_nhwc ? (OCT == 1 || p.out_c == E) && p.out_w == OCT * E : p.out_w == E;
  return pixels_in && pixels_out;
}

bool any_mirror(const ConvertPlan& plan) {
  bool mirrored = plan.mirror != 0;
  for (std::uint8_t m : plan.sample_mirror) mirrored |= m != 0;
  return mirrored;
}

// The run kernels' geometry: contiguous interleaved pixels in, contiguous
// rows or planes out, nothing outside; a mirrored window (only the vector
// kernel takes it, with NCHW output) as one run per row.
bool choose_runs(const ConvertPlan& plan, KernelParams& p) {
  if (plan.any_outside || !interleaved_pixels(plan, p)) return false;
  const bool whole = plan.full_width_unmirrored() &&
                     (plan.out_h == 1 || (p.src_h == plan.w * plan.c && p.out_h == plan.out_w * p.out_w));
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

// The unit kernels' (vector, pixels) output: every run's first element on 16 bytes.
bool output_runs_aligned(const KernelParams& p) {
  const std::uintptr_t out0 = reinterpret_cast<std::uintptr_t>(p.out) + static_cast<std::uintptr_t>(p.first * p.out_n);
  return aligned(out0, 16) && (p.count <= 1 || aligned(static_cast<std::uint64_t>(p.out_n), 16)) &&
         (p.runs_per_sample <= 1 || aligned(static_cast<std::uint64_t>(p.out_h), 16));
}

// The unit kernels' source: every run's first byte on `alignment` bytes.
// `run_starts` as for choose_vector.
bool source_runs_aligned(const KernelParams& p, const std::uintptr_t* run_starts, std::uint64_t alignment) {
  if (p.runs_per_sample > 1 && !aligned(static_cast<std::uint64_t>(p.src_h), alignment)) return false;
  if (run_starts != nullptr) {
    for (std::int64_t i = 0; i < p.count; ++i)
      if (!aligned(run_starts[i], alignment)) return false;
    return true;
  }
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p.base) +
                               static_cast<std::uintptr_t>(p.crop_y * p.src_h + std::int64_t{p.crop_x} * p.c);
  return aligned(first, alignment) && (p.count <= 1 || aligned(static_cast<std::uint64_t>(p.src_n), alignment));
}

// A unit kernel's unit count and divisors, `units_per_run` in each run (the
// caller has checked both against its index limit).
void set_units(KernelParams& p, std::int64_t units, std::int64_t units_per_run) {
  p.units = static_cast<std::uint32_t>(units);
  p.units_per_run = FastDiv(static_cast<std::uint32_t>(units_per_run));
  p.runs_per_sample_div = FastDiv(static_cast<std::uint32_t>(p.runs_per_sample));
}

// Whether the vector kernel can take a call whose run geometry (run_len,
// runs_per_sample) is set: alignment of every run's first source byte and
// output element, whole units per run, identity channel map for NHWC output;
// runs off the load width only with NCHW output, four units a thread and
// `rows_on_words` (rows_on_words below). `run_starts` are the source
// addresses of each sample's first run (NULL: the uniform base + i * src_n
// form). Fills units and the divisors.
bool choose_vector(KernelParams& p, DType dtype, const std::uintptr_t* run_starts, bool mirrored,
                   bool rows_on_words) {
  if ((p.c != 1 && p.c != 3 && p.c != 4) || (p.out_nhwc && (mirrored || dtype == DType::UInt8))) return false;
  const std::int64_t E = dtype == DType::Float32 ? 4 : dtype == DType::UInt8 ? 1 : 2, N = 16 / E;
  std::int64_t in_bytes = 0, units_per_run = 0;
  if (p.out_nhwc) {
    if (p.oct != p.c || p.oc != p.c) return false;
    for (int k = 0; k < p.oc; ++k)
      if (p.channel_map[k] != k) return false;
    const std::int64_t elements = p.run_len * p.c;
    if (elements % N != 0) return false;
    in_bytes = N;
    units_per_run = elements / N;
  } else {
    if (p.run_len % N != 0 || !aligned(static_cast<std::uint64_t>(p.out_c), 16)) return false;
    in_bytes = N * p.c;
    units_per_run = p.run_len / N;
  }
  const std::int64_t runs = p.count * p.runs_per_sample, units = runs * units_per_run;
  if (units_per_run >= kIndexLimit || p.runs_per_sample >= kIndexLimit || units >= kIndexLimit) return false;
  const std::uint64_t A = static_cast<std::uint64_t>(load_width(static_cast<int>(in_bytes)));
  if (!output_runs_aligned(p)) return false;
  // Runs off the load width (per-sample crops at any origin): the variant
  // that loads the words covering each unit, for calls of four units a
  // thread with NCHW output; the window kernel takes the rest.
  p.source_unaligned = !source_runs_aligned(p, run_starts, A);
  if (p.source_unaligned && (p.out_nhwc || units < kVectorStepMinUnits || !rows_on_words)) {
    p.source_unaligned = 0;
    return false;
  }
  set_units(p, units, units_per_run);
  return true;
}

// Every image row of the call's samples starts and ends on a 4-byte word, so
// that the words covering any of a row's bytes lie in the row: the vector
// kernel's loads off the load width read no byte outside the image.
bool rows_on_words(const ConvertPlan& plan, const SourceView& source, std::int64_t count) {
  const auto on_words = [](std::int64_t bytes) { return aligned(static_cast<std::uint64_t>(bytes), 4); };
  if (!on_words(source.strides.h) || !on_words(plan.w * plan.c)) return false;
  if (source.samples != nullptr) {
    for (std::int64_t i = 0; i < count; ++i)
      if (!aligned(reinterpret_cast<std::uintptr_t>(source.samples[i]), 4)) return false;
    return true;
  }
  return aligned(reinterpret_cast<std::uintptr_t>(source.base), 4) && (count <= 1 || on_words(source.strides.n));
}

// Whether the pixel-stream kernel can take a call the vector kernel could
// not, whose run geometry is set: NHWC output of 1, 3 or 4 channels, whole
// 16-byte output units a run, every output run on 16 bytes, and every source
// run starting on 4 bytes and a whole number of words long (a unit loads the
// aligned words covering its pixels, none past its run). Fills units and the
// divisors.
bool choose_pixels(KernelParams& p, DType dtype, const std::uintptr_t* run_starts) {
  if (!p.out_nhwc || (p.oct != 1 && p.oct != 3 && p.oct != 4) || (p.c != 1 && p.c != 3 && p.c != 4)) return false;
  const std::int64_t N = 16 / (dtype == DType::Float32 ? 4 : dtype == DType::UInt8 ? 1 : 2);
  const std::int64_t elements = p.run_len * p.oct;
  if (elements % N != 0 || elements >= kIndexLimit || !aligned(static_cast<std::uint64_t>(p.run_len * p.c), 4))
    return false;
  if (!output_runs_aligned(p) || !source_runs_aligned(p, run_starts, 4)) return false;
  const std::int64_t units_per_run = elements / N, units = p.count * p.runs_per_sample * units_per_run;
  if (p.runs_per_sample >= kIndexLimit || units >= kIndexLimit) return false;
  // A unit starting at channel r: element 3m + j is byte C * m + off of its
  // source, off = C * ((r + j) / 3) + map[(r + j) % 3] (at most 7).
  p.pixel_offsets = 0;
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 3; ++j) {
      const int c = (r + j) / 3, k = (r + j) % 3;
      const std::uint64_t off = static_cast<std::uint64_t>(p.c * c + p.channel_map[k]);
      p.pixel_offsets |= off << (4 * (3 * r + j));
    }
  // Every unit of 4 channels holds the same channels at the same places.
  const int E = static_cast<int>(16 / N);
  for (int q = 0; q < 4; ++q) p.pad_mask[q] = p.pad_pattern[q] = 0;
  for (int t = 0; t < N; ++t) {
    if (p.oct != 4 || t % 4 < p.oc) continue;
    const int q = t * E / 4, shift = (t * E % 4) * 8;
    const std::uint32_t mask = (E == 4 ? 0xFFFFFFFFu : ((1u << (8 * E)) - 1u)) << shift;
    p.pad_mask[q] |= mask;
    p.pad_pattern[q] |= (p.pad_bits << shift) & mask;
  }
  set_units(p, units, units_per_run);
  return true;
}

// The window kernel's geometry: a run per output row, ceil(out_w / G) units
// of G = 16 / element-size pixels each.
bool choose_window(const ConvertPlan& plan, KernelParams& p, int& shape) {
  if (!interleaved_pixels(plan, p)) return false;
  if (plan.c != 1 && plan.c != 3 && plan.c != 4) return false;
  const int oct = plan.out_channels_total;
  if (p.out_nhwc && oct == 2) return false;  // not instantiated: the generic kernel takes it
  const std::int64_t G = 16 / plan.element_size;
  const std::int64_t units_per_run = (plan.out_w + G - 1) / G, runs = p.count * plan.out_h;
  if (units_per_run >= kIndexLimit || plan.out_h >= kIndexLimit || runs >= kIndexLimit ||
      runs * units_per_run >= kIndexLimit)
    return false;
  p.units = static_cast<std::uint32_t>(runs * units_per_run);
  p.units_per_run = FastDiv(static_cast<std::uint32_t>(units_per_run));
  p.runs_per_sample_div = FastDiv(static_cast<std::uint32_t>(plan.out_h));
  shape = p.out_nhwc ? oct : 0;
  return true;
}

// Where each local sample's first run starts in the source, for the vector
// kernel's alignment check: per-sample windows or sample pointers move it.
std::vector<std::uintptr_t> run_starts_of(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                                          std::int64_t count) {
  std::vector<std::uintptr_t> starts(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint8_t* sample = source.samples ? source.samples[i] : source.base + i * source.strides.n;
    const Rect w = plan.window_of(first + i);
    starts[static_cast<std::size_t>(i)] =
        reinterpret_cast<std::uintptr_t>(sample) +
        static_cast<std::uintptr_t>(w.y * source.strides.h + w.x * plan.c);
  }
  return starts;
}

}  // namespace

const char* kernel_path_name(KernelPath path) noexcept {
  switch (path) {
    case KernelPath::vector: return "vector";
    case KernelPath::pixels: return "pixels";
    case KernelPath::window: return "window";
    case KernelPath::runs: return "runs";
    case KernelPath::generic: return "generic";
  }
  return "?";
}

bool choose_inline_windows(const ConvertPlan& plan, std::int64_t first, std::int64_t count, KernelChoice& choice,
                           cuda_convert::InlineWindows& windows) {
  using cuda_convert::kInlineCoordinateBits;
  using cuda_convert::kInlineCoordinateMask;
  if (choice.path != KernelPath::vector || cuda_convert::vector_variant(choice.params, choice.vector_step) < 2 ||
      count > cuda_convert::kInlineWindows || !plan.sample_alpha.empty() || !plan.sample_resize.empty() ||
      (plan.sample_crop.empty() && plan.sample_mirror.empty()))
    return false;
  for (std::int64_t i = 0; i < count; ++i) {
    const Rect w = plan.window_of(first + i);
    const int mirror = plan.mirror_of(first + i);
    if (w.x < 0 || w.y < 0 || w.x > kInlineCoordinateMask || w.y > kInlineCoordinateMask || mirror < 0 || mirror > 3)
      return false;
    windows.packed[i] = static_cast<std::uint32_t>(w.x) | static_cast<std::uint32_t>(w.y) << kInlineCoordinateBits |
                        static_cast<std::uint32_t>(mirror) << (2 * kInlineCoordinateBits);
  }
  choice.params.inline_windows = 1;
  return true;
}

bool choose_window_kernel(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                          void* output_base, KernelChoice& choice) {
  choice.params = params_of(plan, source, first, count, output_base);
  if (!choose_window(plan, choice.params, choice.window_shape)) return false;
  choice.path = KernelPath::window;
  return true;
}

KernelChoice choose_kernel(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                           std::int64_t count, void* output_base) {
  KernelChoice choice;
  KernelParams& p = choice.params;
  p = params_of(plan, source, first, count, output_base);
  const bool mirrored = any_mirror(plan);
  const bool runs = choose_runs(plan, p);
  if (runs) {
    const bool moved = source.samples != nullptr || !plan.sample_crop.empty();
    const std::vector<std::uintptr_t> starts = moved ? run_starts_of(plan, source, first, count)
                                                     : std::vector<std::uintptr_t>{};
    if (choose_vector(p, plan.dtype, moved ? starts.data() : nullptr, mirrored, rows_on_words(plan, source, count))) {
      choice.path = KernelPath::vector;
      choice.vector_step = p.units >= kVectorStepMinUnits ? kVectorStep : 1;
      return choice;
    }
    if (!mirrored && choose_pixels(p, plan.dtype, moved ? starts.data() : nullptr)) {
      choice.path = KernelPath::pixels;
      return choice;
    }
  }
  if (choose_window(plan, p, choice.window_shape)) {
    choice.path = KernelPath::window;
    return choice;
  }
  choice.path = runs && !mirrored ? KernelPath::runs : KernelPath::generic;  // the runs kernel mirrors nothing
  return choice;
}

}  // namespace ferry::core
