// The CPU conversion's row logic: which pixels of an output row come from
// where, in blocks that stay in L1; the arithmetic is in convert_cpu_kernels.
// Two shapes get a fast path: pixel-packed output (NHWC: the row is one
// stream of elements, the coefficients repeat per pixel) and planar output
// from interleaved input (NCHW from NHWC: a block is de-interleaved once into
// per-channel runs). Everything else is gathered per channel with its strides.
// uint8 out in the source's layout, unchanged, is copied a sample at a time.
#include "core/convert/convert_cpu.h"

#include <algorithm>
#include <cstring>

#include "core/convert/convert_cpu_kernels.h"
#include "core/store_fence.h"
#include "core/convert/convert_plan_checks.h"
#include "core/convert/resize_cpu.h"

namespace ferry::core {
namespace {

constexpr int block = 256;  // pixels per inner block: temporaries stay in L1
constexpr int max_channels = 4;

// Output element storage, by size: float, float16/bfloat16 bits, uint8.
template <int Size> struct Element;
template <> struct Element<4> { using T = float; };
template <> struct Element<2> { using T = std::uint16_t; };
template <> struct Element<1> { using T = std::uint8_t; };

// tmp[j] = p[j * step] for j < count; step is in bytes and may be negative
// (a mirrored row). STEP > 0 fixes it at compile time for the common cases.
template <int STEP>
void gather(const std::uint8_t* p, std::int64_t step, std::uint8_t* tmp, int count) {
  if (STEP != 0) step = STEP;
  for (int j = 0; j < count; ++j) tmp[j] = p[j * step];
}

void gather_any(const std::uint8_t* p, std::int64_t step, std::uint8_t* tmp, int count) {
  switch (step) {
    case 1: return gather<1>(p, step, tmp, count);
    case 3: return gather<3>(p, step, tmp, count);
    case 4: return gather<4>(p, step, tmp, count);
    case -1: return gather<-1>(p, step, tmp, count);
    case -3: return gather<-3>(p, step, tmp, count);
    case -4: return gather<-4>(p, step, tmp, count);
    default: return gather<0>(p, step, tmp, count);
  }
}

// d[j * stride] = v[j]; stride in elements.
template <typename T, int STRIDE>
void scatter(T* d, std::int64_t stride, const T* v, int count) {
  if (STRIDE != 0) stride = STRIDE;
  for (int j = 0; j < count; ++j) d[j * stride] = v[j];
}

template <typename T>
void scatter_any(T* d, std::int64_t stride, const T* v, int count) {
  switch (stride) {
    case 1: return scatter<T, 1>(d, stride, v, count);
    case 3: return scatter<T, 3>(d, stride, v, count);
    case 4: return scatter<T, 4>(d, stride, v, count);
    default: return scatter<T, 0>(d, stride, v, count);
  }
}

// The element whose bit pattern is `bits` (float32, float16/bfloat16 bits, uint8).
// The bits a byte 0 converts to with coefficients a, b: 0 * a + b rounded
// once each, as every conversion path does (0 for uint8, which is not scaled).
std::uint32_t zero_bits(DType dtype, float a, float b) {
  if (dtype == DType::UInt8) return 0;
  const float product = 0.0f * a;
  return plan_checks::value_bits(dtype, product + b, "a converted zero");
}

template <typename T>
T from_bits(std::uint32_t bits) {
  if constexpr (sizeof(T) == 4) {
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else {
    return static_cast<T>(bits);
  }
}

template <typename T>
void fill_run(T* d, std::int64_t stride, T value, std::int64_t count) {
  for (std::int64_t j = 0; j < count; ++j) d[j * stride] = value;
}

struct RowJob {
  const ConvertPlan* plan;
  const SourceView* source;
  std::int64_t first;
  std::uint8_t* output;
  CpuKernels kernels;
  ConvertRunFn write_run;  // converts straight into the output: streaming stores for a large one
};

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
  float alpha[coeff_period], beta[coeff_period];
  for (int j = 0; j < coeff_period; ++j) {
    const int k = j % oct;
    alpha[j] = k < p.out_channels ? r.alpha[k] : 0.0f;
    beta[j] = k < p.out_channels ? r.beta[k] : 0.0f;
  }
  T* out = reinterpret_cast<T*>(r.out_row);
  const bool stream = stream_source(p, s, r.mirror_x);
  const std::int64_t step = r.mirror_x ? -s.w : s.w;
  std::uint8_t tmp[block * max_channels];
  for (std::int64_t x0 = r.xa; x0 < r.xb; x0 += block) {
    const int count = static_cast<int>(std::min<std::int64_t>(block, r.xb - x0));
    const std::int64_t sx0 = r.source_x(x0);
    const std::uint8_t* in = r.src_row + sx0 * s.w;
    if (!stream) {
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
  float alpha[max_channels][coeff_period], beta[max_channels][coeff_period];
  for (int k = 0; k < p.out_channels; ++k)
    for (int j = 0; j < coeff_period; ++j) alpha[k][j] = r.alpha[k], beta[k][j] = r.beta[k];
  const std::int64_t esz = p.element_size;
  const std::int64_t stride_w = p.out_strides.w / esz;  // in elements
  const std::int64_t step = r.mirror_x ? -s.w : s.w;
  const DeinterleaveFn deinterleave = !interleaved_source(p, s) ? nullptr
                                      : p.c == 3                ? job.kernels.deinterleave3
                                      : p.c == 4                ? job.kernels.deinterleave4
                                                                : nullptr;
  std::uint8_t tmp_in[max_channels][block];
  T tmp_out[block];
  for (std::int64_t x0 = r.xa; x0 < r.xb; x0 += block) {
    const int count = static_cast<int>(std::min<std::int64_t>(block, r.xb - x0));
    const std::int64_t sx0 = r.source_x(x0);
    const std::uint8_t* runs[max_channels];
    if (deinterleave) {
      // All channels of the block at once, from its lowest source pixel;
      // a mirrored block is then reversed in place.
      const std::int64_t low = r.mirror_x ? sx0 - (count - 1) : sx0;
      deinterleave(r.src_row + low * p.c, tmp_in[0], block, count);
      if (r.mirror_x)
        for (int c = 0; c < p.c; ++c) std::reverse(tmp_in[c], tmp_in[c] + count);
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
  // Fill after converting: padding channels overwrite what a packed run wrote there.
  const std::int64_t stride_w = p.out_strides.w / p.element_size;
  for (int k = 0; k < p.out_channels_total; ++k) {
    T* d = reinterpret_cast<T*>(r.out_row + k * p.out_strides.c);
    if (k >= p.out_channels) {
      fill_run(d, stride_w, from_bits<T>(p.pad_bits), ow);
      continue;
    }
    // zero_outside (augmentation's zero padding): a byte 0 converted, as the kernels do.
    const T fill = from_bits<T>(p.zero_outside ? zero_bits(p.dtype, r.alpha[k], r.beta[k]) : p.fill_bits);
    fill_run(d, stride_w, fill, r.xa);
    fill_run(d + r.xb * stride_w, stride_w, fill, ow - r.xb);
  }
}

template <typename T>
void convert_rows(const RowJob& job, std::int64_t begin, std::int64_t end) {
  for (std::int64_t r = begin; r < end; ++r) convert_row<T>(job, r);
}

// uint8 in the source's layout, unchanged (ConvertPlan::copies_bytes: a
// resident dataset's upload, an identity transform): each sample's bytes as
// they lie, one copy a sample, or a row at a time where the rows are padded.
// The row path costs about 50 ns a row: a CIFAR-sized upload (50,000 images
// of 32 rows) ran at 0.14 of a threaded memcpy. False where a row's bytes are
// not contiguous in the source (strided pixels or channels): the row path.
bool copy_samples(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                  std::uint8_t* output, ThreadPool& pool) {
  const Strides4& s = source.strides;
  const bool nhwc = plan.source_layout == Layout::NHWC;
  const std::int64_t h = plan.h, w = plan.w, c = plan.c;
  // NHWC: a row is w * c bytes; NCHW: a row of one channel's plane is w bytes, c planes a sample.
  const bool rows_contiguous = nhwc ? (w == 1 || s.w == c) && (c == 1 || s.c == 1) : (w == 1 || s.w == 1);
  if (!rows_contiguous) return false;
  const std::int64_t row = nhwc ? w * c : w, planes = nhwc ? 1 : c;
  const bool packed = (h == 1 || s.h == row) && (planes == 1 || s.c == h * w);
  const std::int64_t sample_bytes = h * w * c;
  const std::int64_t grain = std::max<std::int64_t>(1, (std::int64_t{256} << 10) / sample_bytes);
  pool.parallel_for(
      0, count,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          const std::uint8_t* from = source.samples ? source.samples[i] : source.base + i * s.n;
          std::uint8_t* to = output + (first + i) * plan.out_strides.n;
          if (packed) {
            std::memcpy(to, from, static_cast<std::size_t>(sample_bytes));
            continue;
          }
          for (std::int64_t k = 0; k < planes; ++k)
            for (std::int64_t y = 0; y < h; ++y)
              std::memcpy(to + (k * h + y) * row, from + k * s.c + y * s.h, static_cast<std::size_t>(row));
        }
      },
      grain);
  return true;
}

}  // namespace

void convert_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                    void* output_base, ThreadPool& pool, CpuConvertIsa isa) {
  if (count <= 0) return;
  if (plan.resize) {
    convert_resized_on_cpu(plan, source, first, count, output_base, pool);
    return;
  }
  if (plan.copies_bytes() && copy_samples(plan, source, first, count, static_cast<std::uint8_t*>(output_base), pool))
    return;
  const CpuKernels kernels = cpu_kernels(plan.dtype, isa);
  const std::int64_t row_bytes = std::max<std::int64_t>(
      1, plan.out_w * plan.out_channels_total * plan.element_size);
  // An output larger than the caches will be read from memory anyway: written
  // with streaming stores it costs its bytes once instead of twice (no
  // read-for-ownership), which is what bounds a many-threaded conversion.
  constexpr std::int64_t kStreamingBytes = std::int64_t{4} << 20;
  const bool streaming = count * plan.out_h * row_bytes >= kStreamingBytes;
  const RowJob job{&plan, &source, first, static_cast<std::uint8_t*>(output_base), kernels,
                   streaming ? kernels.convert_run_streaming : kernels.convert_run};
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
