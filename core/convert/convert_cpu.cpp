// The multiply and the add must round separately, as on the GPU (which uses
// __fmul_rn/__fadd_rn): no contraction into an FMA, whatever -march says.
// Set before any include so every function of this file (the inlined helpers
// too) carries the same option; a mismatch would stop GCC inlining them.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "core/convert/convert_cpu.h"

#include <algorithm>
#include <cstring>

#include "core/convert/half_bits.h"

namespace ferry::core {
namespace {

constexpr int block = 256;  // pixels per inner block: temporaries stay in L1

// Output element storage and conversion, per dtype.
template <ferry_dtype D> struct Out;
template <> struct Out<FERRY_DTYPE_FLOAT32> {
  using T = float;
  static T from(float v) { return v; }
};
template <> struct Out<FERRY_DTYPE_FLOAT16> {
  using T = std::uint16_t;
  static T from(float v) { return float_to_half_bits_fast(v); }
};
template <> struct Out<FERRY_DTYPE_BFLOAT16> {
  using T = std::uint16_t;
  static T from(float v) { return float_to_bf16_bits_no_nan(v); }
};
template <> struct Out<FERRY_DTYPE_UINT8> {
  using T = std::uint8_t;
};

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

template <ferry_dtype D>
void convert_block(const std::uint8_t* in, typename Out<D>::T* out, float a, float b, int count) {
  if constexpr (D == FERRY_DTYPE_UINT8) {
    (void)a, (void)b;
    std::memcpy(out, in, static_cast<std::size_t>(count));
  } else {
    for (int j = 0; j < count; ++j) {
      const float product = static_cast<float>(in[j]) * a;
      out[j] = Out<D>::from(product + b);
    }
  }
}

struct RowJob {
  const ConvertPlan* plan;
  const SourceView* source;
  std::int64_t first;
  std::uint8_t* output;
};

template <ferry_dtype D>
void convert_row(const RowJob& job, std::int64_t row) {
  using T = typename Out<D>::T;
  const ConvertPlan& p = *job.plan;
  const std::int64_t i = row / p.out_h, y = row % p.out_h, g = job.first + i;
  const SourceView& s = *job.source;
  const std::uint8_t* sample = s.samples ? s.samples[i] : s.base + i * s.strides.n;
  const ferry_rect win = p.window_of(g);
  const int mirror = p.mirror_of(g);
  const float* alpha = p.alpha_of(g);
  const float* beta = p.beta_of(g);
  const std::int64_t ow = p.out_w;
  const std::int64_t sy = win.y + ((mirror & FERRY_MIRROR_Y) ? p.out_h - 1 - y : y);
  const bool mirror_x = (mirror & FERRY_MIRROR_X) != 0;
  // Output columns [xa, xb) read inside the image; the rest are fill.
  std::int64_t xa = 0, xb = 0;
  if (sy >= 0 && sy < p.h) {
    xa = mirror_x ? std::max<std::int64_t>(0, win.x + ow - p.w) : std::max<std::int64_t>(0, -win.x);
    xb = mirror_x ? std::min<std::int64_t>(ow, win.x + ow) : std::min<std::int64_t>(ow, p.w - win.x);
    if (xb < xa) xb = xa;
  }
  const std::int64_t esz = p.element_size;
  const std::int64_t stride_w = p.out_strides.w / esz;  // in elements
  std::uint8_t* out_row = job.output + g * p.out_strides.n + y * p.out_strides.h;
  std::uint8_t tmp_in[block];
  T tmp_out[block];
  for (int k = 0; k < p.out_channels_total; ++k) {
    T* d = reinterpret_cast<T*>(out_row + k * p.out_strides.c);
    if (k >= p.out_channels) {
      fill_run(d, stride_w, from_bits<T>(p.pad_bits), ow);
      continue;
    }
    const T fill = from_bits<T>(p.fill_bits);
    fill_run(d, stride_w, fill, xa);
    fill_run(d + xb * stride_w, stride_w, fill, ow - xb);
    const std::uint8_t* src = sample + sy * s.strides.h + p.channel_map[k] * s.strides.c;
    const std::int64_t step = mirror_x ? -s.strides.w : s.strides.w;
    for (std::int64_t x0 = xa; x0 < xb; x0 += block) {
      const int count = static_cast<int>(std::min<std::int64_t>(block, xb - x0));
      const std::int64_t sx0 = win.x + (mirror_x ? ow - 1 - x0 : x0);
      gather_any(src + sx0 * s.strides.w, step, tmp_in, count);
      if (stride_w == 1) {
        convert_block<D>(tmp_in, d + x0, alpha[k], beta[k], count);
      } else {
        convert_block<D>(tmp_in, tmp_out, alpha[k], beta[k], count);
        scatter_any(d + x0 * stride_w, stride_w, tmp_out, count);
      }
    }
  }
}

template <ferry_dtype D>
void convert_rows(const RowJob& job, std::int64_t begin, std::int64_t end) {
  for (std::int64_t r = begin; r < end; ++r) convert_row<D>(job, r);
}

}  // namespace

void convert_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                    void* output_base, ThreadPool& pool) {
  if (count <= 0) return;
  const RowJob job{&plan, &source, first, static_cast<std::uint8_t*>(output_base)};
  void (*rows)(const RowJob&, std::int64_t, std::int64_t) = nullptr;
  switch (plan.dtype) {
    case FERRY_DTYPE_FLOAT32: rows = convert_rows<FERRY_DTYPE_FLOAT32>; break;
    case FERRY_DTYPE_FLOAT16: rows = convert_rows<FERRY_DTYPE_FLOAT16>; break;
    case FERRY_DTYPE_BFLOAT16: rows = convert_rows<FERRY_DTYPE_BFLOAT16>; break;
    case FERRY_DTYPE_UINT8: rows = convert_rows<FERRY_DTYPE_UINT8>; break;
  }
  // Rows of about 16 KiB of output per chunk at least: small images would
  // otherwise drown in scheduling.
  const std::int64_t row_bytes = std::max<std::int64_t>(
      1, plan.out_w * plan.out_channels_total * plan.element_size);
  const std::int64_t grain = std::max<std::int64_t>(1, (16 << 10) / row_bytes);
  pool.parallel_for(0, count * plan.out_h, [&](std::int64_t b, std::int64_t e) { rows(job, b, e); }, grain);
}

}  // namespace ferry::core
