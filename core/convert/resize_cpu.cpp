// The resized conversion on the CPU, in two passes that keep
// resize::resample's arithmetic and order for every element: H(i), the sum
// over a column's x taps of wx * pixel, for each source row i an output row
// reads (kept while the next output rows read it again), then V, the sum over
// the row's y taps of wy * H(i). The x taps are worked out once per sample and
// range of rows, the y taps per row (the same for_each_tap: the same weights
// in the same order). The row's values are then stored in the output's dtype.
// Compiled with -ffp-contract=off (core/CMakeLists.txt): no product and sum
// may be fused, or the results would differ from the GPU's.
#include "core/convert/resize_cpu.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/convert/augment_color.h"
#include "core/convert/half_bits.h"
#include "core/convert/resize_taps.h"

namespace ferry::core {
namespace {

struct Job {
  const ConvertPlan* plan;
  const SourceView* source;
  std::int64_t first;
  std::uint8_t* output;
  std::int64_t* row_gray = nullptr;  // the mean pass: each output row's gray sum (local row index)
  const float* means = nullptr;      // the conversion: each local sample's contrast mean, or NULL
};

// The x taps of one sample (`sample`, its global index): output column o
// reads taps [begin[o], begin[o + 1]) of offset (the source column's byte
// offset in a row) and weight; sum[o] is Sx (1 where the interpolation does
// not normalize); inside[o] is 0 where the column is letterbox.
struct ColumnTaps {
  std::int64_t sample = -1;
  std::vector<std::int64_t> begin;
  std::vector<std::int64_t> offset;
  std::vector<float> weight;
  std::vector<float> sum;
  std::vector<std::uint8_t> inside;
};

// The y taps of one output row: the source rows it reads, their weights, Sy.
struct RowTaps {
  std::vector<std::int64_t> row;
  std::vector<float> weight;
  float sum = 1.0f;
  bool inside = false;
};

template <Interpolation M>
void column_taps_of(const ConvertPlan& p, std::int64_t g, std::int64_t stride_w, ColumnTaps& t) {
  const ResizeAxis& ax = p.resize_of(g).x;
  const bool mirror_x = (p.mirror_of(g) & kMirrorX) != 0;
  const auto ow = static_cast<std::size_t>(p.out_w);
  t.sample = g;
  t.begin.assign(ow + 1, 0);
  t.sum.assign(ow, 1.0f);
  t.inside.assign(ow, 0);
  t.offset.clear();
  t.weight.clear();
  for (std::size_t o = 0; o < ow; ++o) {
    t.begin[o] = static_cast<std::int64_t>(t.offset.size());
    const std::int64_t r = (mirror_x ? p.out_w - 1 - static_cast<std::int64_t>(o) : static_cast<std::int64_t>(o)) +
                           ax.offset;
    if (r < 0 || r >= ax.length) continue;
    t.inside[o] = 1;
    t.sum[o] = resize::for_each_tap<M>(ax, static_cast<int>(r), [&](int j, float w) {
      t.offset.push_back(j * stride_w);
      t.weight.push_back(w);
    });
  }
  t.begin[ow] = static_cast<std::int64_t>(t.offset.size());
}

template <Interpolation M>
void row_taps_of(const ConvertPlan& p, std::int64_t g, std::int64_t y, RowTaps& t) {
  const ResizeAxis& ax = p.resize_of(g).y;
  const std::int64_t r = ((p.mirror_of(g) & kMirrorY) ? p.out_h - 1 - y : y) + ax.offset;
  t.row.clear();
  t.weight.clear();
  t.sum = 1.0f;
  t.inside = r >= 0 && r < ax.length;
  if (!t.inside) return;
  t.sum = resize::for_each_tap<M>(ax, static_cast<int>(r), [&](int i, float w) {
    t.row.push_back(i);
    t.weight.push_back(w);
  });
}

// H(i) of source row i for every inside column: h[o * N + k] = the sum over
// the column's x taps, ascending, of wx * pixel (resize::resample's inner sum).
template <int N>
void horizontal(const ColumnTaps& xt, const std::uint8_t* row, const std::int64_t* channel, std::int64_t out_w,
                float* h) {
  for (std::int64_t o = 0; o < out_w; ++o) {
    if (!xt.inside[static_cast<std::size_t>(o)]) continue;
    const std::int64_t b = xt.begin[static_cast<std::size_t>(o)], e = xt.begin[static_cast<std::size_t>(o) + 1];
    float acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0.0f;
    for (std::int64_t t = b; t < e; ++t) {
      const std::uint8_t* px = row + xt.offset[static_cast<std::size_t>(t)];
      const float wx = xt.weight[static_cast<std::size_t>(t)];
      for (int k = 0; k < N; ++k) acc[k] = resize::add(acc[k], resize::mul(wx, static_cast<float>(px[channel[k]])));
    }
    for (int k = 0; k < N; ++k) h[o * N + k] = acc[k];
  }
}

// The H rows of one sample, kept while later output rows read them again (an
// upscale reads each source row for several output rows): at most one entry
// per source row, an entry outside the current row's range reused first.
struct HorizontalCache {
  std::int64_t sample = -1;
  std::vector<std::int64_t> row;  // the source row each slot holds, -1: none
  std::vector<std::vector<float>> values;

  void reset(std::int64_t g) {
    sample = g;
    std::fill(row.begin(), row.end(), -1);
  }

  // The slot of source row i, computed by `compute` into a free slot when
  // missing; a slot holding a row in [lo, hi] (the current row's range) is kept.
  template <typename Compute>
  const float* get(std::int64_t i, std::int64_t lo, std::int64_t hi, std::size_t length, Compute&& compute) {
    std::size_t free = row.size();
    for (std::size_t s = 0; s < row.size(); ++s) {
      if (row[s] == i) return values[s].data();
      if (free == row.size() && (row[s] < lo || row[s] > hi)) free = s;
    }
    if (free == row.size()) {
      row.push_back(-1);
      values.emplace_back(length);
    }
    row[free] = i;
    compute(values[free].data());
    return values[free].data();
  }
};

// V of every inside column of one row into v[o * N + k]: the sum over the
// row's y taps, ascending, of wy * H(i), then / (Sx * Sy) for the normalizing
// interpolations (resize::resample's arithmetic and order, element by element).
template <Interpolation M, int N>
void vertical(const ColumnTaps& xt, const RowTaps& yt, const float* const* h, std::int64_t out_w, float* v) {
  const std::int64_t count = out_w * N;
  std::fill(v, v + count, 0.0f);
  for (std::size_t t = 0; t < yt.weight.size(); ++t) {
    const float wy = yt.weight[t];
    const float* hi = h[t];
    for (std::int64_t j = 0; j < count; ++j) v[j] = resize::add(v[j], resize::mul(wy, hi[j]));
  }
  if constexpr (resize::normalizes(M)) {
    for (std::int64_t o = 0; o < out_w; ++o) {
      const float norm = resize::mul(xt.sum[static_cast<std::size_t>(o)], yt.sum);
      for (int k = 0; k < N; ++k) v[o * N + k] = resize::normalized(v[o * N + k], norm);
    }
  }
}

template <typename T>
void store(std::uint8_t* dst, T value) {
  std::memcpy(dst, &value, sizeof value);
}

// Writes one output row: each inside pixel's values through `element` (the
// dtype's conversion), letterbox pixels and padding channels their bits.
template <typename T, typename Element>
void store_row(const ConvertPlan& p, std::uint8_t* out_row, const float* v, const std::uint8_t* inside, bool row_inside,
               int n, Element&& element) {
  T letterbox[4], pad;
  for (int k = 0; k < 4; ++k) {
    const std::uint32_t bits = p.letterbox_bits[k];
    if constexpr (sizeof(T) == 4) std::memcpy(&letterbox[k], &bits, 4);
    else letterbox[k] = static_cast<T>(bits);
  }
  if constexpr (sizeof(T) == 4) std::memcpy(&pad, &p.pad_bits, 4);
  else pad = static_cast<T>(p.pad_bits);
  for (std::int64_t o = 0; o < p.out_w; ++o) {
    std::uint8_t* px = out_row + o * p.out_strides.w;
    const bool in = row_inside && inside[o];
    for (int k = 0; k < n; ++k) store<T>(px + k * p.out_strides.c, in ? element(v[o * n + k], k) : letterbox[k]);
    for (int k = n; k < p.out_channels_total; ++k) store<T>(px + k * p.out_strides.c, pad);
  }
}

// Pixel o of a row of three-channel values, as the one-pixel group the
// augmentation's operations take (augment_color.h runs groups of G).
inline float (&pixel_of(float* v, std::int64_t o))[1][3] { return *reinterpret_cast<float(*)[1][3]>(v + o * 3); }

// Augmentation, on one row's values: the pixels a crop takes from outside the
// image read 0 (plan.zero_outside), then each pixel's colour operations.
// Returns whether the row shows anything but letterbox.
template <int N>
bool augment_row(const ConvertPlan& p, std::int64_t g, float* v, std::uint8_t* inside, bool row_inside, float mean) {
  if (p.zero_outside) {
    for (std::int64_t o = 0; o < p.out_w; ++o)
      if (!row_inside || !inside[o]) {
        for (int k = 0; k < N; ++k) v[o * N + k] = 0.0f;
        inside[o] = 1;
      }
    row_inside = true;
  }
  if constexpr (N == 3) {
    if (!p.sample_color.empty() && row_inside) {
      const augment::SampleColor& c = p.sample_color[static_cast<std::size_t>(g)];
      for (std::int64_t o = 0; o < p.out_w; ++o)
        if (inside[o]) augment::apply(c, pixel_of(v, o), mean);
    }
  }
  return row_inside;
}

// The gray sum (before contrast) of one row's shown pixels, for the contrast mean.
template <int N>
std::int64_t row_gray_sum(const ConvertPlan& p, std::int64_t g, float* v, const std::uint8_t* inside, bool row_inside) {
  std::int64_t sum = 0;
  if constexpr (N == 3) {
    const augment::SampleColor& c = p.sample_color[static_cast<std::size_t>(g)];
    if (row_inside && c.contrast_at >= 0)
      for (std::int64_t o = 0; o < p.out_w; ++o)
        if (inside[o]) sum += augment::gray_before_contrast(c, pixel_of(v, o), 1u);
  }
  return sum;
}

// Erasing, after the row is stored: its erased pixels get the erase value or noise.
template <typename T, typename Element>
void erase_row(const ConvertPlan& p, std::int64_t g, std::int64_t y, std::uint8_t* out_row, Element&& element) {
  if (p.sample_color.empty()) return;
  const augment::SampleColor& c = p.sample_color[static_cast<std::size_t>(g)];
  if (y < c.erase_y0 || y >= c.erase_y1) return;
  for (std::int64_t o = c.erase_x0; o < c.erase_x1; ++o) {
    std::uint8_t* px = out_row + o * p.out_strides.w;
    float noise[4];
    if (c.erase_random) augment::erase_noise(c, o, y, p.out_w, p.dtype == DType::UInt8, noise);
    for (int k = 0; k < p.out_channels; ++k) {
      T value;
      if (c.erase_random) {
        value = element(noise[k]);
      } else if constexpr (sizeof(T) == 4) {
        std::memcpy(&value, &c.erase_bits[k], 4);
      } else {
        value = static_cast<T>(c.erase_bits[k]);
      }
      store<T>(px + k * p.out_strides.c, value);
    }
  }
}

template <Interpolation M, int N, bool MeanPass = false>
void convert_rows(const Job& job, std::int64_t begin, std::int64_t end) {
  const ConvertPlan& p = *job.plan;
  const SourceView& s = *job.source;
  std::int64_t channel[4] = {0, 0, 0, 0};  // the mapped channels' byte offsets in a pixel
  Strides4 strides;                        // the current sample's
  ColumnTaps xt;
  RowTaps yt;
  HorizontalCache cache;
  std::vector<const float*> h;
  const auto length = static_cast<std::size_t>(p.out_w * N);
  std::vector<float> v(length);
  std::vector<std::uint8_t> inside;  // augmentation: the row's shown pixels
  for (std::int64_t row = begin; row < end; ++row) {
    const std::int64_t i = row / p.out_h, y = row % p.out_h, g = job.first + i;
    const std::uint8_t* sample = s.samples ? s.samples[i] : s.base + i * s.strides.n;
    if (xt.sample != g) {
      strides = s.strides_of(i);  // the sample's own strides (variable sizes), else the view's
      for (int k = 0; k < N; ++k) channel[k] = p.channel_map[k] * strides.c;
      column_taps_of<M>(p, g, strides.w, xt);
      cache.reset(g);
    }
    row_taps_of<M>(p, g, y, yt);
    if (yt.inside) {
      // The taps' rows ascend (clamped ones repeat an end): [lo, hi] is the range this row reads.
      // AREA may keep no row at all (a footprint below float's resolution): V is then 0.
      const std::int64_t lo = yt.row.empty() ? 0 : yt.row.front(), hi = yt.row.empty() ? -1 : yt.row.back();
      h.clear();
      for (std::int64_t r : yt.row)
        h.push_back(cache.get(r, lo, hi, length, [&](float* out) {
          horizontal<N>(xt, sample + r * strides.h, channel, p.out_w, out);
        }));
      vertical<M, N>(xt, yt, h.data(), p.out_w, v.data());
    }
    bool row_inside = yt.inside;
    const std::uint8_t* shown = xt.inside.data();
    if (p.zero_outside || !p.sample_color.empty()) {
      inside.assign(xt.inside.begin(), xt.inside.end());
      shown = inside.data();
      if constexpr (MeanPass) {
        if (p.zero_outside) {  // zeros where the crop reaches outside, no colour yet
          for (std::int64_t o = 0; o < p.out_w; ++o)
            if (!row_inside || !inside[o]) {
              for (int k = 0; k < N; ++k) v[static_cast<std::size_t>(o * N + k)] = 0.0f;
              inside[o] = 1;
            }
          row_inside = true;
        }
      } else {
        row_inside = augment_row<N>(p, g, v.data(), inside.data(), row_inside, job.means ? job.means[i] : 0.0f);
      }
    }
    if constexpr (MeanPass) {
      job.row_gray[row] = row_gray_sum<N>(p, g, v.data(), shown, row_inside);
      continue;
    }
    std::uint8_t* out_row = job.output + g * p.out_strides.n + y * p.out_strides.h;
    const float* alpha = p.alpha_of(g);
    const float* beta = p.beta_of(g);
    auto scaled = [&](float value, int k) { return resize::add(resize::mul(value, alpha[k]), beta[k]); };
    switch (p.dtype) {
      case DType::UInt8:
        store_row<std::uint8_t>(p, out_row, v.data(), shown, row_inside, N,
                                [](float value, int) { return resize::to_uint8(value); });
        erase_row<std::uint8_t>(p, g, y, out_row, [](float value) { return resize::to_uint8(value); });
        break;
      case DType::Float32:
        store_row<float>(p, out_row, v.data(), shown, row_inside, N, scaled);
        erase_row<float>(p, g, y, out_row, [](float value) { return value; });
        break;
      case DType::Float16:
        // The unresized path's conversions (convert_cpu_kernels.cpp): round to nearest even.
        store_row<std::uint16_t>(p, out_row, v.data(), shown, row_inside, N,
                                 [&](float value, int k) { return float_to_half_bits_fast(scaled(value, k)); });
        erase_row<std::uint16_t>(p, g, y, out_row, [](float value) { return float_to_half_bits_fast(value); });
        break;
      case DType::BFloat16:
        store_row<std::uint16_t>(p, out_row, v.data(), shown, row_inside, N,
                                 [&](float value, int k) { return float_to_bf16_bits_no_nan(scaled(value, k)); });
        erase_row<std::uint16_t>(p, g, y, out_row, [](float value) { return float_to_bf16_bits_no_nan(value); });
        break;
    }
  }
}

using RowsFn = void (*)(const Job&, std::int64_t, std::int64_t);

template <Interpolation M, bool MeanPass>
RowsFn rows_for_channels(int n) {
  switch (n) {
    case 1: return convert_rows<M, 1, MeanPass>;
    case 2: return convert_rows<M, 2, MeanPass>;
    case 3: return convert_rows<M, 3, MeanPass>;
    default: return convert_rows<M, 4, MeanPass>;
  }
}

template <bool MeanPass>
RowsFn rows_for(Interpolation m, int n) {
  switch (m) {
    case Interpolation::Nearest: return rows_for_channels<Interpolation::Nearest, MeanPass>(n);
    case Interpolation::Linear: return rows_for_channels<Interpolation::Linear, MeanPass>(n);
    case Interpolation::Cubic: return rows_for_channels<Interpolation::Cubic, MeanPass>(n);
    case Interpolation::Area: return rows_for_channels<Interpolation::Area, MeanPass>(n);
    case Interpolation::LinearAntialias: break;
  }
  return rows_for_channels<Interpolation::LinearAntialias, MeanPass>(n);
}

}  // namespace

void convert_resized_on_cpu(const ConvertPlan& plan, const SourceView& source, std::int64_t first,
                            std::int64_t count, void* output_base, ThreadPool& pool) {
  if (count <= 0) return;
  Job job{&plan, &source, first, static_cast<std::uint8_t*>(output_base)};
  // About 4096 output pixels per chunk at least: each costs several taps, and
  // a chunk works out its sample's x taps once.
  const std::int64_t grain = std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, plan.out_w));
  std::vector<float> means;
  if (plan.contrast_mean) {
    // The contrast means first: every row's gray sum (integers: no order shows), then each sample's.
    std::vector<std::int64_t> row_gray(static_cast<std::size_t>(count * plan.out_h));
    job.row_gray = row_gray.data();
    const RowsFn gray = rows_for<true>(plan.interpolation, plan.out_channels);
    pool.parallel_for(0, count * plan.out_h, [&](std::int64_t b, std::int64_t e) { gray(job, b, e); }, grain);
    means.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t sum = 0;
      for (std::int64_t y = 0; y < plan.out_h; ++y) sum += row_gray[static_cast<std::size_t>(i * plan.out_h + y)];
      means[static_cast<std::size_t>(i)] = augment::mean_of(plan.sample_color[static_cast<std::size_t>(first + i)], sum);
    }
    job.means = means.data();
  }
  const RowsFn rows = rows_for<false>(plan.interpolation, plan.out_channels);
  pool.parallel_for(0, count * plan.out_h, [&](std::int64_t b, std::int64_t e) { rows(job, b, e); }, grain);
}

}  // namespace ferry::core
