/* ferry: the uint8 source, the conversion transform, the output, and
 * ferry_transform_apply for data already on the device. */
#ifndef FERRY_TRANSFORM_H
#define FERRY_TRANSFORM_H

#include "ferry/context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ferry_dtype {
  FERRY_DTYPE_UINT8 = 1,
  FERRY_DTYPE_FLOAT32 = 2,
  FERRY_DTYPE_FLOAT16 = 3, /* IEEE binary16, round to nearest even */
  FERRY_DTYPE_BFLOAT16 = 4 /* round to nearest even */
} ferry_dtype;

typedef enum ferry_layout {
  FERRY_LAYOUT_NHWC = 1, /* interleaved */
  FERRY_LAYOUT_NCHW = 2  /* planar */
} ferry_layout;

/* A batch of n uint8 images of h x w x c (c = 1, 3 or 4).
 * Either `data` (one buffer of `bytes` bytes, sample i at data + i*stride_n)
 * or `samples` (n pointers, each to one image of `sample_bytes` bytes; stride_n
 * is then ignored). Strides are in bytes; 0 means "packed" for the layout.
 * Strides may describe padded rows (an OpenCV pitch), a region of interest, or
 * a non-contiguous batch; they must not make two elements overlap. */
typedef struct ferry_source {
  size_t struct_size;
  const void* data;
  size_t bytes;
  const void* const* samples;
  size_t sample_bytes;
  int64_t n, h, w, c;
  ferry_layout layout; /* default NHWC */
  int64_t stride_n, stride_c, stride_h, stride_w;
} ferry_source;

typedef struct ferry_rect {
  int64_t x, y, w, h;
} ferry_rect;

typedef enum ferry_mirror {
  FERRY_MIRROR_NONE = 0,
  FERRY_MIRROR_X = 1, /* horizontal flip */
  FERRY_MIRROR_Y = 2  /* vertical flip */
} ferry_mirror;

/* One fused pass: crop, mirror, channel map, out = (in*scale - mean[k]) / std[k]
 * (folded into one multiply-add per element), dtype and layout change.
 * Defaults (ferry_transform_init): float32 NCHW, all input channels in order,
 * scale 1/255, mean 0, std 1, no crop, no mirror, no padding. */
typedef struct ferry_transform {
  size_t struct_size;
  ferry_dtype out_dtype;   /* default FLOAT32 */
  ferry_layout out_layout; /* default NCHW */
  /* Output channel k reads input channel channel_map[k], k < out_channels.
   * out_channels 0 (default) means "the input's c, identity map".
   * BGR->RGB: {2,1,0}; BGRA->RGB: 3 channels {2,1,0}; gray->RGB: {0,0,0}. */
  int out_channels;
  int channel_map[4];
  /* Non-zero: pad the output to 4 channels; the padded channels hold pad_value. */
  int pad_channels_to_4;
  float pad_value;
  /* Arithmetic per output channel. Ignored for FERRY_DTYPE_UINT8 output, which
   * must keep the defaults (layout and channel change only). std must be
   * finite and non-zero, mean and scale finite. */
  float scale;
  float mean[4];
  float std[4];
  /* Optional per-sample values: per_sample_count (== n) rows of out_channels
   * floats. When set they replace mean/std. */
  const float* per_sample_mean;
  const float* per_sample_std;
  /* Output window, in input pixels. crop.w == 0 and crop.h == 0 (default):
   * the whole image. per_sample_crop, when set, has per_sample_count entries,
   * all with the same w and h. */
  ferry_rect crop;
  const ferry_rect* per_sample_crop;
  /* ferry_mirror bits for the batch, or per sample (per_sample_count bytes). */
  int mirror;
  const uint8_t* per_sample_mirror;
  /* The number of entries in each per_sample_* array that is set; must be n. */
  int64_t per_sample_count;
  /* A window reaching outside the image is FERRY_ERR_OUT_OF_RANGE unless this
   * is non-zero; then outside elements are written as fill_value (output
   * units, after normalization). */
  int pad_outside;
  float fill_value;
} ferry_transform;

/* Where the output goes: a caller's buffer of `bytes` bytes with byte strides
 * in the order n, c, h, w (0 = packed for the transform's layout and dtype;
 * each a multiple of the element size). On a CUDA context `data` is device
 * memory (or any memory the device can write), on the CPU backend host memory. */
typedef struct ferry_output {
  size_t struct_size;
  void* data;
  size_t bytes;
  int64_t stride_n, stride_c, stride_h, stride_w;
} ferry_output;

FERRY_API ferry_status ferry_source_init(ferry_source* out, size_t struct_size);
FERRY_API ferry_status ferry_transform_init(ferry_transform* out, size_t struct_size);
FERRY_API ferry_status ferry_output_init(ferry_output* out, size_t struct_size);

/* Describes a converted tensor. Dimensions are listed in memory-layout order
 * (N,C,H,W for NCHW; N,H,W,C for NHWC); strides in bytes, same order. */
typedef struct ferry_tensor_info {
  size_t struct_size;
  void* data;
  ferry_device_kind device_kind; /* CPU or CUDA */
  int device_index;
  ferry_dtype dtype;
  ferry_layout layout;
  int ndim; /* 4 */
  int64_t shape[4];
  int64_t strides[4];
  size_t bytes; /* the extent of the tensor in memory */
} ferry_tensor_info;

FERRY_API ferry_status ferry_tensor_info_init(ferry_tensor_info* out, size_t struct_size);

/* Validates source and transform and describes the packed output they give
 * (data NULL). Use it to size a destination. Thread-safe. */
FERRY_API ferry_status ferry_transform_describe_output(ferry_tensor_info* out, const ferry_source* source,
                                                       const ferry_transform* transform);

/* Converts a source already in the context's memory (device memory on CUDA,
 * host memory on the CPU backend) into `output`: one kernel launch on `stream`,
 * whatever n. Asynchronous on CUDA (the source and `samples` array may be
 * reused once the call returns; the data only after `stream` reaches this
 * point); synchronous on the CPU. transform may be NULL for the defaults.
 * Thread-safe. */
FERRY_API ferry_status ferry_transform_apply(ferry_context_t ctx, const ferry_source* source,
                                             const ferry_transform* transform, const ferry_output* output,
                                             ferry_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_TRANSFORM_H */
