// The CPU conversion's row logic: which pixels of an output row come from
// where, in blocks that stay in L1; the arithmetic is in convert_cpu_kernels,
// the byte moves in cpu_pixel_moves. Two shapes get a fast path: pixel-packed
// output (NHWC: the row is one stream of elements, the coefficients repeat
// per pixel; channel maps, padding channels and mirrored rows rearranged by
// pshufb steps first) and planar output from interleaved input (NCHW from
// NHWC: a block is de-interleaved once into per-channel runs, a mirrored one
// in reverse order). Everything else is gathered per channel with its strides
// (cpu_strided_moves.h). A large output is written with non-temporal stores
// only, its fills too. uint8 out in the source's layout, unchanged, is copied
// a sample at a time (convert_cpu_copy).
#include "core/convert/convert_cpu.h"

#include <algorithm>
#include <cstring>

#include "core/convert/convert_cpu_copy.h"
#include "core/convert/convert_cpu_kernels.h"
#include "core/convert/cpu_strided_moves.h"
#include "core/convert/half_bits.h"
#include "core/store_fence.h"
#include "core/convert/convert_plan_checks.h"
#include "core/convert/resize_cpu.h"

namespace ferry::core {
namespace {

using namespace cpu_strided;

constexpr int block = 256;  // pixels per inner block: temporaries stay in L1
constexpr int max_channels = 4;

// Output element storage, by size: float, float16/bfloat16 bits, uint8.
template <int Size> struct Element;
template <> struct Element<4> { using T = float; };
template <> struct Element<2> { using T = std::uint16_t; };
template <> struct Element<1> { using T = std::uint8_t; };

// The bits a byte 0 converts to with coefficients a, b: 0 * a + b rounded
// once each, as every conversion path does (0 for uint8, which is not scaled).
std::uint32_t zero_bits(DType dtype, float a, float b) {
  if (dtype == DType::UInt8) return 0;
  const float product = 0.0f * a;
  return plan_checks::value_bits(dtype, product + b, "a converted zero");
}

// The run's coefficient tables for one sample's alpha and beta: per pixel
// (pixel-packed output, the padding channels' value last) and per channel
// (planes). Made once per conversion for batch-wide coefficients, else per row.
struct CoefficientTables {
  float packed_alpha[coeff_period], packed_beta[coeff_period];
  float plane_alpha[max_channels][coeff_period], plane_beta[max_channels][coeff_period];

  void set(const ConvertPlan& p, const float* alpha, const float* beta, float pad_value) {
    const int oct = p.out_channels_total;
    for (int j = 0; j < coeff_period; ++j) {
      const int k = j % oct;
      packed_alpha[j] = k < p.out_channels ? alpha[k] : 0.0f;
      packed_beta[j] = k < p.out_channels ? beta[k] : pad_value;  // a zero byte there (pad_in_run)
    }
    for (int k = 0; k < p.out_channels; ++k)
      for (int j = 0; j < coeff_period; ++j) plane_alpha[k][j] = alpha[k], plane_beta[k][j] = beta[k];
  }
};

struct RowJob {
  const ConvertPlan* plan = nullptr;
  const SourceView* source = nullptr;
  std::int64_t first = 0;
  std::uint8_t* output = nullptr;
  CpuKernels kernels;
  ConvertRunFn write_run = nullptr;  // converts straight into the output: streaming stores for a large one
  PixelShuffle shuffle[2];  // interleaved source to pixel-packed output: [mirror_x] (made for that output only)
  bool streaming = false;  // a large output: written with non-temporal stores
  // The padding channels' value, where the conversion itself can write it (a
  // zero byte times 0 plus it gives its bits): then it goes out with the
  // run's own (streaming) stores, not in a second pass over the lines the
  // run just wrote (pixel-packed output).
  bool pad_in_run = false;
  float pad_value = 0.0f;
  CoefficientTables batch_tables{};    // for plan.alpha, plan.beta

  // The tables for coefficients `alpha`, `beta`: the batch's, or made in `own`.
  const CoefficientTables& tables_for(const float* alpha, const float* beta, CoefficientTables& own) const {
    if (alpha == plan->alpha && beta == plan->beta) return batch_tables;
    own.set(*plan, alpha, beta, pad_value);
    return own;
  }
};

constexpr float zero_coefficients[coeff_period] = {};

// The float whose conversion to the dtype gives `bits`, if 0 * 0 + it does
// (the run's arithmetic, checked by running it): else false.
bool value_of_bits(const CpuKernels& kernels, DType dtype, std::uint32_t bits, float* value) {
  float v = 0.0f;
  switch (dtype) {
    case DType::Float32: v = bits_float(bits); break;
    case DType::Float16: v = half_bits_to_float(static_cast<std::uint16_t>(bits)); break;
    case DType::BFloat16: v = bf16_bits_to_float(static_cast<std::uint16_t>(bits)); break;
    case DType::UInt8: break;  // copied, not converted: a zero byte gives 0
  }
  const std::uint8_t zero = 0;
  float beta[coeff_period];
  std::fill_n(beta, coeff_period, v);
  std::uint32_t got = 0;
  kernels.convert_run(&zero, &got, zero_coefficients, beta, 1);
  *value = v;
  return got == bits;
}

// Where one output row reads, and what it writes.
struct RowGeometry {
  const std::uint8_t* src_row;  // the source row's first pixel (channel 0)
  Strides4 strides;             // the sample's source strides
  std::int64_t win_x, ow;
  bool mirror_x;
  std::int64_t xa, xb;  // output columns [xa, xb) read inside the image
  std::uint8_t* out_row;
  const float* alpha;
  const float* beta;

  // The source column of output column x.
  std::int64_t source_x(std::int64_t x) const { return win_x + (mirror_x ? ow - 1 - x : x); }
};

// Source pixels are C interleaved bytes (NHWC with packed pixels).
bool interleaved_source(const ConvertPlan& p, const Strides4& s) {
  return s.w == p.c && (p.c == 1 || s.c == 1);
}

// Output pixels are packed (NHWC, the channels of a pixel adjacent).
bool interleaved_output(const ConvertPlan& p) {
  return p.out_strides.c == p.element_size && p.out_strides.w == p.out_channels_total * p.element_size;
}

// The row is a plain stream of source bytes: out element j of a pixel run
// is source byte j of the same run.
bool stream_source(const ConvertPlan& p, const Strides4& s, bool mirror_x) {
  if (mirror_x || !interleaved_source(p, s) || p.out_channels_total != p.c || p.out_channels != p.c) return false;
  for (int k = 0; k < p.out_channels; ++k)
    if (p.channel_map[k] != k) return false;
  return true;
}

// Pixel-packed output: each block becomes one run of count * channels elements
// (straight from the source, or interleaved into tmp in output channel order).
// Padding channels get any value here; the fill pass writes them.
template <typename T>
void convert_interleaved(const RowJob& job, const RowGeometry& r) {
  const ConvertPlan& p = *job.plan;
  const Strides4& s = r.strides;
  const int oct = p.out_channels_total;
  CoefficientTables own;
  const CoefficientTables& tables = job.tables_for(r.alpha, r.beta, own);
  const float* alpha = tables.packed_alpha;
  const float* beta = tables.packed_beta;
  T* out = reinterpret_cast<T*>(r.out_row);
  const bool stream = stream_source(p, s, r.mirror_x);
  const bool shuffle = interleaved_source(p, s);  // pixels of c adjacent bytes: moved by a pshufb a step
  const std::int64_t step = r.mirror_x ? -s.w : s.w;
  std::uint8_t tmp[block * max_channels + 16];  // + the shuffle's slack
  for (std::int64_t x0 = r.xa; x0 < r.xb; x0 += block) {
    const int count = static_cast<int>(std::min<std::int64_t>(block, r.xb - x0));
    const std::int64_t sx0 = r.source_x(x0);
    const std::uint8_t* in = r.src_row + sx0 * s.w;
    if (!stream && shuffle) {
      job.kernels.shuffle_pixels(job.shuffle[r.mirror_x ? 1 : 0], in, tmp, count);
      in = tmp;
    } else if (!stream) {
      for (int k = 0; k < oct; ++k) {
        if (k >= p.out_channels) {
          for (int j = 0; j < count; ++j) tmp[j * oct + k] = 0;
          continue;
        }
        const std::uint8_t* src = in + p.channel_map[k] * s.c;
        for (int j = 0; j < count; ++j) tmp[j * oct + k] = src[j * step];
      }
      in = tmp;
    }
    job.write_run(in, out + x0 * oct, alpha, beta, count * oct);
  }
}

// Any other output: per output channel, a contiguous run of input bytes
// (the source itself, a de-interleaved block, or a strided gather), converted
// straight into a unit-stride plane or through tmp_out and a scatter.
template <typename T>
void convert_planar(const RowJob& job, const RowGeometry& r) {
  const ConvertPlan& p = *job.plan;
  const Strides4& s = r.strides;
  CoefficientTables own;
  const CoefficientTables& tables = job.tables_for(r.alpha, r.beta, own);
  const auto& alpha = tables.plane_alpha;
  const auto& beta = tables.plane_beta;
  const std::int64_t esz = p.element_size;
  const std::int64_t stride_w = p.out_strides.w / esz;  // in elements
  const std::int64_t step = r.mirror_x ? -s.w : s.w;
  const bool three = p.c == 3;
  const DeinterleaveFn deinterleave = !interleaved_source(p, s) || (p.c != 3 && p.c != 4) ? nullptr
                                      : r.mirror_x ? (three ? job.kernels.deinterleave3_reversed
                                                            : job.kernels.deinterleave4_reversed)
                                                   : (three ? job.kernels.deinterleave3 : job.kernels.deinterleave4);
  std::uint8_t tmp_in[max_channels][block];
  T tmp_out[block];
  for (std::int64_t x0 = r.xa; x0 < r.xb; x0 += block) {
    const int count = static_cast<int>(std::min<std::int64_t>(block, r.xb - x0));
    const std::int64_t sx0 = r.source_x(x0);
    const std::uint8_t* runs[max_channels];
    if (deinterleave) {
      // All channels of the block at once, from its lowest source pixel (a
      // mirrored block in reverse order).
      const std::int64_t low = r.mirror_x ? sx0 - (count - 1) : sx0;
      deinterleave(r.src_row + low * p.c, tmp_in[0], block, count);
      for (int k = 0; k < p.out_channels; ++k) runs[k] = tmp_in[p.channel_map[k]];
    } else {
      for (int k = 0; k < p.out_channels; ++k) {
        const std::uint8_t* src = r.src_row + p.channel_map[k] * s.c + sx0 * s.w;
        if (step == 1) {
          runs[k] = src;
        } else {
          gather_any(src, step, tmp_in[k], count);
          runs[k] = tmp_in[k];
        }
      }
    }
    for (int k = 0; k < p.out_channels; ++k) {
      T* d = reinterpret_cast<T*>(r.out_row + k * p.out_strides.c);
      if (stride_w == 1) {
        job.write_run(runs[k], d + x0, alpha[k], beta[k], count);
      } else {
        job.kernels.convert_run(runs[k], tmp_out, alpha[k], beta[k], count);
        scatter_any(d + x0 * stride_w, stride_w, tmp_out, count);
      }
    }
  }
}

// count elements of bits at d, every stride_w elements: with non-temporal
// stores where the output is large and the run unit-stride (a plane's row).
template <typename T>
void fill_elements(const RowJob& job, T* d, std::int64_t stride_w, std::uint32_t bits, std::int64_t count) {
  if (count <= 0) return;
  if (job.streaming && stride_w == 1) {
    job.kernels.fill_streaming(d, bits, static_cast<int>(sizeof(T)), count);
    return;
  }
  fill_run(d, stride_w, from_bits<T>(bits), count);
}

template <typename T>
void convert_row(const RowJob& job, std::int64_t row) {
  const ConvertPlan& p = *job.plan;
  const std::int64_t i = row / p.out_h, y = row % p.out_h, g = job.first + i;
  const SourceView& s = *job.source;
  const std::uint8_t* sample = s.samples ? s.samples[i] : s.base + i * s.strides.n;
  const Rect win = p.window_of(g);
  const int mirror = p.mirror_of(g);
  const std::int64_t image_h = p.h_of(g), image_w = p.w_of(g);
  RowGeometry r{};
  r.strides = s.strides_of(i);
  r.win_x = win.x;
  r.ow = p.out_w;
  r.mirror_x = (mirror & kMirrorX) != 0;
  r.alpha = p.alpha_of(g);
  r.beta = p.beta_of(g);
  const std::int64_t sy = win.y + ((mirror & kMirrorY) ? p.out_h - 1 - y : y);
  const std::int64_t ow = p.out_w;
  if (sy >= 0 && sy < image_h) {
    r.src_row = sample + sy * r.strides.h;
    // Unclamped, [xa, xb) may lie beyond the row (a window wholly left or
    // right of the image, with a gap): both ends are clamped into [0, ow], so
    // the fills below never run past the row, whatever the window and mirror.
    const std::int64_t xa = r.mirror_x ? win.x + ow - image_w : -win.x;
    const std::int64_t xb = r.mirror_x ? win.x + ow : image_w - win.x;
    r.xa = std::clamp<std::int64_t>(xa, 0, ow);
    r.xb = std::clamp<std::int64_t>(xb, r.xa, ow);
  }
  r.out_row = job.output + g * p.out_strides.n + y * p.out_strides.h;
  if (r.xa < r.xb) {
    if (interleaved_output(p))
      convert_interleaved<T>(job, r);
    else
      convert_planar<T>(job, r);
  }
  // Fill after converting: padding channels overwrite what a packed run wrote
  // there, unless the run wrote the padding value itself (pad_in_run).
  const std::int64_t stride_w = p.out_strides.w / p.element_size;
  const bool packed = interleaved_output(p);
  for (int k = 0; k < p.out_channels_total; ++k) {
    T* d = reinterpret_cast<T*>(r.out_row + k * p.out_strides.c);
    if (k >= p.out_channels) {
      if (job.pad_in_run && packed && r.xa < r.xb) {
        fill_elements(job, d, stride_w, p.pad_bits, r.xa);
        fill_elements(job, d + r.xb * stride_w, stride_w, p.pad_bits, ow - r.xb);
      } else {
        fill_elements(job, d, stride_w, p.pad_bits, ow);
      }
      continue;
    }
    // zero_outside (augmentation's zero padding): a byte 0 converted, as the kernels do.
    const std::uint32_t fill = p.zero_outside ? zero_bits(p.dtype, r.alpha[k], r.beta[k]) : p.fill_bits;
    fill_elements(job, d, stride_w, fill, r.xa);
    fill_elements(job, d + r.xb * stride_w, stride_w, fill, ow - r.xb);
  }
}

template <typename T>
void convert_rows(const RowJob& job, std::int64_t begin, std::int64_t end) {
  for (std::int64_t r = begin; r < end; ++r) convert_row<T>(job, r);
}

}  // namespace

void convert_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                    void* output_base, ThreadPool& pool, CpuConvertIsa isa) {
  if (count <= 0) return;
  if (plan.resize) {
    convert_resized_on_cpu(plan, source, first, count, output_base, pool);
    return;
  }
  auto* output = static_cast<std::uint8_t*>(output_base);
  if (plan.copies_bytes() && copy_samples_on_cpu(plan, source, first, count, output, pool)) return;
  const CpuKernels kernels = cpu_kernels(plan.dtype, isa);
  const std::int64_t row_bytes = std::max<std::int64_t>(
      1, plan.out_w * plan.out_channels_total * plan.element_size);
  // An output larger than the caches will be read from memory anyway: written
  // with streaming stores it costs its bytes once instead of twice (no
  // read-for-ownership), which is what bounds a many-threaded conversion.
  constexpr std::int64_t kStreamingBytes = std::int64_t{4} << 20;
  const bool streaming = count * plan.out_h * row_bytes >= kStreamingBytes;
  RowJob job;
  job.plan = &plan;
  job.source = &source;
  job.first = first;
  job.output = output;
  job.kernels = kernels;
  job.write_run = streaming ? kernels.convert_run_streaming : kernels.convert_run;
  if (interleaved_output(plan))  // only convert_interleaved moves pixels by shuffles
    for (int mirrored = 0; mirrored < 2; ++mirrored)
      job.shuffle[mirrored] = make_pixel_shuffle(static_cast<int>(plan.c), plan.out_channels_total,
                                                 plan.out_channels, plan.channel_map, mirrored != 0);
  job.pad_in_run = value_of_bits(kernels, plan.dtype, plan.pad_bits, &job.pad_value);
  job.streaming = streaming;
  job.batch_tables.set(plan, plan.alpha, plan.beta, job.pad_value);
  void (*rows)(const RowJob&, std::int64_t, std::int64_t) = nullptr;
  switch (plan.element_size) {
    case 4: rows = convert_rows<Element<4>::T>; break;
    case 2: rows = convert_rows<Element<2>::T>; break;
    default: rows = convert_rows<Element<1>::T>; break;
  }
  // Rows of about 16 KiB of output per chunk at least: small images would
  // otherwise drown in scheduling.
  const std::int64_t grain = std::max<std::int64_t>(1, (16 << 10) / row_bytes);
  pool.parallel_for(
      0, count * plan.out_h,
      [&](std::int64_t b, std::int64_t e) {
        rows(job, b, e);
        if (streaming) store_fence();  // this thread's streaming stores land before the pool reports done
      },
      grain);
}

}  // namespace ferry::core
