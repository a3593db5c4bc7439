/* ferry: random augmentation drawn per sample, applied in the conversion
 * itself (ferry_transform.augment). Each sample's parameters come from a
 * counter-based generator (Philox4x32-10) keyed by (seed, step, sample
 * index): the same seed and step give the same parameters on every backend
 * and machine, so a run resumes from any step, and they can be written back
 * per sample (drawn) for labels that must follow the image (boxes, masks).
 *
 * The order, torchvision's usual training recipe in one pass:
 *   crop (and resize) -> flip -> colour jitter (in the drawn order) ->
 *   grayscale -> normalize, dtype, layout -> erasing.
 * Colour operations see output channels 0, 1, 2 as R, G, B (map a BGR source
 * to RGB with channel_map {2, 1, 0}) and need 3 mapped output channels. They
 * work on the resampled value v in 0..255 units as it comes (a CUBIC
 * overshoot is not clamped first), clamp to 0..255 after each operation (as
 * torchvision's float ops clamp to 0..1), and round each operation on its
 * own, so the CPU and the GPU give the same bits:
 *   brightness b:  v = clamp(v * b + 0 * (1 - b))
 *   contrast c:    v = clamp(v * c + m * (1 - c)), m the mean of the gray value
 *                  before this operation over the output pixels that show the
 *                  image (a crop's zero padding included, letterbox bars not):
 *                  each gray value times 65536 rounded half to even to an
 *                  integer, summed, then divided in double, so no summation
 *                  order shows
 *   saturation s:  v = clamp(v * s + gray * (1 - s)) per pixel
 *   hue h:         the pixel's hue shifted by h turns, by torchvision v2's
 *                  _rgb_to_hsv and _hsv_to_rgb (hue * (1/6) + 1, fmod 1; t =
 *                  (s * f + (1 - s)) * v ...) in 0..255 units
 *   grayscale:     R = G = B = gray
 *   gray = 0.2989 R + 0.587 G + 0.114 B (torchvision's weights, summed in that
 *   order); (1 - f) is computed in double and rounded once, as torchvision's
 *   Python scalar is.
 * Pixels that a RANDOM or CENTER crop takes from outside the image are 0
 * before all of this (torchvision pads with 0 and then jitters). uint8 output
 * rounds once at the end (torchvision's uint8 ops round after each op). */
#ifndef FERRY_AUGMENT_H
#define FERRY_AUGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "ferry/common.h"
#include "ferry/transform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where each sample's window comes from. The output size is always the
 * transform's resize_w x resize_h (required with a crop; resize_mode STRETCH). */
typedef enum ferry_augment_crop {
  FERRY_AUGMENT_CROP_NONE = 0,           /* the transform's own window and resize */
  FERRY_AUGMENT_CROP_RANDOM_RESIZED = 1, /* RandomResizedCrop: scale, ratio; resized with the transform's interpolation */
  FERRY_AUGMENT_CROP_RANDOM = 2,         /* RandomCrop(size, padding): a resize_w x resize_h window of the image padded with 0 */
  FERRY_AUGMENT_CROP_CENTER = 3          /* CenterCrop(size), padded with 0 where the image is smaller */
} ferry_augment_crop;

typedef enum ferry_erase_fill {
  FERRY_ERASE_VALUE = 0, /* erase_value[k], output units (after normalization) */
  FERRY_ERASE_RANDOM = 1 /* float output: a standard normal per element; uint8: a uniform byte */
} ferry_erase_fill;

/* The colour operations, as jitter_order names them (torchvision's fn_idx). */
typedef enum ferry_jitter_op {
  FERRY_JITTER_BRIGHTNESS = 0,
  FERRY_JITTER_CONTRAST = 1,
  FERRY_JITTER_SATURATION = 2,
  FERRY_JITTER_HUE = 3
} ferry_jitter_op;

/* What one sample drew. Factors of operations that are off read 1 (hue 0).
 * crop: the window the sample read; with FERRY_AUGMENT_CROP_NONE a conversion
 * reports the transform's own window, ferry_augment_draw the whole image. */
typedef struct ferry_augment_params {
  ferry_rect crop;       /* the window in source pixels; RANDOM and CENTER may reach outside (0 there) */
  int flip;              /* ferry_mirror bits drawn (the transform's own mirror is applied on top) */
  int grayscale;         /* 1: converted to gray */
  float brightness, contrast, saturation, hue;
  int jitter_order[4];   /* the order the four operations ran, ferry_jitter_op values */
  int erased;            /* 1: erase below was applied */
  ferry_rect erase;      /* in output pixels (x, y, w, h) */
} ferry_augment_params;

typedef struct ferry_augment {
  size_t struct_size;
  uint64_t seed;
  uint64_t step;          /* one per batch: a loader advances it; steps 2^56 apart draw alike */
  int64_t first_index;    /* sample i draws as index first_index + i (a shard's offset); below 2^39 */

  ferry_augment_crop crop;
  float scale[2];         /* RANDOM_RESIZED: area fraction, 0 < lo <= hi <= 1 (default 0.08, 1) */
  float ratio[2];         /* RANDOM_RESIZED: aspect w/h, 0 < lo <= hi (default 3/4, 4/3) */
  int64_t padding;        /* RANDOM: 0-pixels added on each side (CIFAR: 4) */

  float flip_x_probability; /* horizontal flip, 0..1 */
  float flip_y_probability; /* vertical flip, 0..1 */

  /* ColorJitter: factor ranges [lo, hi], 0 <= lo <= hi <= 2^24; {1, 1} (default) is off.
   * torchvision's brightness=0.4 is {0.6, 1.4}. */
  float brightness[2], contrast[2], saturation[2];
  float hue[2];           /* turns, -0.5 <= lo <= hi <= 0.5; {0, 0} (default) is off */
  float grayscale_probability;

  /* RandomErasing (after normalization): a box of area fraction erase_scale
   * and aspect erase_ratio (h/w), ten tries as torchvision, else none. */
  float erase_probability;
  float erase_scale[2];   /* default 0.02, 0.33 */
  float erase_ratio[2];   /* default 0.3, 3.3 */
  ferry_erase_fill erase_fill;
  float erase_value[4];   /* per output channel, output units */

  /* Optional: n entries written before submit or convert returns, drawn_stride
   * bytes apart (0: sizeof(ferry_augment_params)); NULL: not written. */
  ferry_augment_params* drawn;
  size_t drawn_stride;
} ferry_augment;

FERRY_API ferry_status ferry_augment_init(ferry_augment* out, size_t struct_size);

/* Draws the parameters of n samples of the given sizes (h[i] x w[i]) for
 * output size out_w x out_h into out[0..n-1] (stride as drawn_stride), as a
 * conversion with this augmentation would: for a loader that transforms
 * labels before the images convert, or to check a run. Thread-safe. */
FERRY_API ferry_status ferry_augment_draw(const ferry_augment* augment, int64_t n, const int64_t* h, const int64_t* w,
                                          int64_t out_w, int64_t out_h, ferry_augment_params* out, size_t out_stride);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_AUGMENT_H */
