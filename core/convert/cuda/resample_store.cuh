// How the resample kernel (resample_kernel.cuh) stores a pixel: its output
// element per dtype, fill and letterbox where it shows no image, pad
// channels; and, for augmented batches, the colour operations and erasing
// done on a thread's pixels before they are stored.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/convert/augment_color.h"
#include "core/convert/cuda/resample_params.h"
#include "core/convert/half_bits.h"
#include "core/convert/resize_taps.h"

namespace ferry::core::cuda_convert {
namespace resample_detail {

template <DType D>
using Element = std::conditional_t<D == DType::Float32, std::uint32_t,
                                   std::conditional_t<D == DType::UInt8, std::uint8_t, std::uint16_t>>;

// The output element of resampled value v, with channel coefficients a, b.
template <DType D>
__device__ __forceinline__ Element<D> output_element(float v, float a, float b) {
  if constexpr (D == DType::UInt8) {
    return resize::to_uint8(v);
  } else {
    const float scaled = resize::add(resize::mul(v, a), b);
    if constexpr (D == DType::Float32) return __float_as_uint(scaled);
    if constexpr (D == DType::Float16) return float_to_half_bits(scaled);
    if constexpr (D == DType::BFloat16) return float_to_bf16_bits(scaled);
  }
}

// The pixels of a tile that shows the image everywhere: `inside` is known
// true at compile time, so the stores of fill and letterbox go.
struct AlwaysInside {
  __device__ constexpr operator bool() const { return true; }
};

// Stores output pixel `out` (its channel 0): V's N channels where the pixel
// shows the image, else the fill (not resized) or letterbox value. Pad
// channels: store_pads.
template <Sampler S, DType D, int N, typename Inside>
__device__ __forceinline__ void store_pixel(const ResampleParams& p, const ResampleSample& s, std::uint8_t* out,
                                            Inside inside, const float (&v)[N]) {
  using E = Element<D>;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    E e;
    if (inside)
      e = output_element<D>(v[k], s.alpha[k], s.beta[k]);
    else
      e = static_cast<E>(S == Sampler::Copy ? p.fill_bits : p.letterbox_bits[k]);
    *reinterpret_cast<E*>(out + k * p.out_c) = e;
  }
}

// The pad value in channels N .. oct - 1 of a column's pixels in a tile (rows
// first_y, first_y + TH, ..): apart from the pixels' own stores, so that the
// loop over a tile's pixels does not test for pad channels at each of them
// (about 7 instructions a pixel, for outputs that mostly have none), and
// ptxas keeps a row's output pointer instead of working it out again (about
// 13 more: bilinear f16 NCHW, H200; core/convert/cuda/PERF_NOTES.md).
template <DType D, int N, int TH, int R>
__device__ __noinline__ void store_pads(const ResampleParams& p, std::uint8_t* column, int first_y) {
  using E = Element<D>;
  for (int r = 0; r < R; ++r) {
    const int y = first_y + r * TH;
    if (y >= p.oh) break;
    std::uint8_t* out = column + static_cast<std::int64_t>(y) * p.out_h;
    for (int k = N; k < p.oct; ++k) *reinterpret_cast<E*>(out + k * p.out_c) = static_cast<E>(p.pad_bits);
  }
}

// The rows of a thread that the augmented kernels (A) colour together:
// their values are worked out first, then coloured in one call, then stored.
// H200, 256 images to RandomResizedCrop 224 f16 NCHW, against one call a
// pixel: brightness + saturation + hue 0.329 -> 0.24 ms, ColorJitter 0.56 ->
// 0.39 ms; groups of 2 ran as fast, of 8 slower (0.28 / 0.44 ms).
constexpr int kColourGroup = 4;

// The colour operations and the mean pass's gray sum, on a group of pixels
// (augment_color.h): each compiled once for every kernel and called once a
// group. Inlined into the augmented instantiations (with their jitter steps),
// they made this file's compile time about three times longer per
// architecture; called once a pixel, the sample's operations were looked up
// and its fields read again at every pixel. The group is copied into the
// callee's registers, not worked on where the caller's pointer leads (in
// local memory, loaded and stored again by every operation): ColorJitter
// 0.396-0.400 -> 0.381-0.387 ms (H200, alternated).
static __device__ __noinline__ void colour_pixels(const augment::SampleColor* c, float (*v)[3], float mean) {
  float px[kColourGroup][3];
#pragma unroll
  for (int g = 0; g < kColourGroup; ++g)
#pragma unroll
    for (int k = 0; k < 3; ++k) px[g][k] = v[g][k];
  augment::apply<kColourGroup>(*c, px, mean);
#pragma unroll
  for (int g = 0; g < kColourGroup; ++g)
#pragma unroll
    for (int k = 0; k < 3; ++k) v[g][k] = px[g][k];
}
static __device__ __noinline__ long long gray_pixels(const augment::SampleColor* c, float (*v)[3], unsigned shown) {
  float px[kColourGroup][3];
#pragma unroll
  for (int g = 0; g < kColourGroup; ++g)
#pragma unroll
    for (int k = 0; k < 3; ++k) px[g][k] = v[g][k];
  return augment::gray_before_contrast<kColourGroup>(*c, px, shown);
}
static __device__ __noinline__ void noise_pixel(const augment::SampleColor* c, int x, int y, int ow, bool bytes, float* out) {
  augment::erase_noise(*c, x, y, ow, bytes, out);
}

// Stores an augmented output pixel (its colour done): the erase value or
// noise where the sample's erase box covers it, else as store_pixel.
template <Sampler S, DType D, int N>
__device__ __forceinline__ void store_augmented_pixel(const ResampleParams& p, const ResampleSample& s,
                                                      const augment::SampleColor& color, std::uint8_t* out,
                                                      bool inside, const float* v, int x, int y) {
  using E = Element<D>;
  const bool erased = (p.augment & kAugmentColor) && augment::erases(color, x, y);
  float noise[4];
  if (erased && color.erase_random) noise_pixel(&color, x, y, p.ow, D == DType::UInt8, noise);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    E e;
    if (erased)
      e = color.erase_random ? output_element<D>(noise[k], 1.0f, 0.0f) : static_cast<E>(color.erase_bits[k]);
    else if (inside)
      e = output_element<D>(v[k], s.alpha[k], s.beta[k]);
    else
      e = static_cast<E>(S == Sampler::Copy ? p.fill_bits : p.letterbox_bits[k]);
    *reinterpret_cast<E*>(out + k * p.out_c) = e;
  }
}

// store_pixel with augmentation (include/ferry/augment.h) for the kernels
// without colour (N != 3), whose augmentations (zero padding, erasing) are
// rare: pixels outside the image read 0 where a crop padded
// (kAugmentZeroOutside), erased pixels get the erase value or noise. Not
// inlined, so that their plain stores keep their registers.
template <Sampler S, DType D, int N>
__device__ __noinline__ void store_augmented(const ResampleParams& p, const ResampleSample& s,
                                             const augment::SampleColor& color, std::uint8_t* out, bool inside,
                                             float* v, int x, int y) {
  if (!inside && (p.augment & kAugmentZeroOutside)) {
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = 0.0f;
    inside = true;
  }
  if (p.mean_pass) return;  // contrast needs three channels: no gray sum here
  store_augmented_pixel<S, D, N>(p, s, color, out, inside, v, x, y);
}

}  // namespace resample_detail
}  // namespace ferry::core::cuda_convert
