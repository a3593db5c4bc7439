/* ferry: the uint8 source, the conversion transform, the output, and
 * ferry_transform_apply for data already on the device. */
#ifndef FERRY_TRANSFORM_H
#define FERRY_TRANSFORM_H

#include "ferry/context.h"
#include "ferry/pixel_format.h"

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

/* One sample of a batch whose samples differ in size (ferry_source.sample_descs):
 * its own pointer, the bytes readable there, its h and w, and its byte strides
 * in the source's layout (0 = packed). c and the layout are the batch's. */
typedef struct ferry_sample_desc {
  const void* data;
  size_t bytes;
  int64_t h, w;
  int64_t stride_c, stride_h, stride_w;
} ferry_sample_desc;

/* A batch of n uint8 images of h x w x c (c = 1, 3 or 4).
 * Either `data` (one buffer of `bytes` bytes, sample i at data + i*stride_n)
 * or `samples` (n pointers, each to one image of `sample_bytes` bytes; stride_n
 * is then ignored). Strides are in bytes; 0 means "packed" for the layout.
 * Strides may describe padded rows (an OpenCV pitch), a region of interest, or
 * a non-contiguous batch; they must not make two elements overlap.
 * Or `sample_descs` (appended after 0.2.0): n samples each of its own size,
 * pointer and strides, for images at their decoded sizes; data, samples,
 * bytes, sample_bytes, h, w and the strides stay 0. One output size then comes
 * from the transform: a resize, or per_sample_crop windows of one size. */
typedef struct ferry_source {
  size_t struct_size;
  const void* data;
  size_t bytes;
  const void* const* samples;
  size_t sample_bytes;
  int64_t n, h, w, c;
  ferry_layout layout; /* default NHWC */
  int64_t stride_n, stride_c, stride_h, stride_w;
  const ferry_sample_desc* sample_descs; /* n entries, or NULL (default) */

  /* --- Camera and video frames (appended after 0.3.0; ferry/pixel_format.h) ---
   * A format other than CHANNELS makes each sample a frame of w x h pixels
   * in that format: `data` (frame i at data + i * stride_n, stride_n 0 = the
   * frame's extent), `samples` or `sample_descs` point at frame i's start,
   * and its planes lie at plane_offset[p] bytes from there, plane_pitch[p]
   * bytes between rows. c is 0 or 3 (the decoded R, G, B), layout NHWC,
   * stride_c/h/w 0 (sample_descs[i].stride_h: that frame's plane 0 pitch).
   * plane_offset all 0 (default): the planes follow one another from the
   * frame's start (a frame in one buffer: V4L2, FFmpeg's
   * av_image_copy_to_buffer); else each plane of the format at its own
   * offset (>= 0; an NVDEC surface's chroma at pitch * surface height).
   * plane_pitch[p] 0: plane 0's pitch is its row (w, or 4*cw for YUYV),
   * NV12's chroma pitch plane 0's, I420's ceil(pitch0 / 2), at least the
   * plane's row. The frame's extent: the end of its farthest plane row. */
  ferry_pixel_format format;          /* default FERRY_FORMAT_CHANNELS */
  ferry_color_matrix color_matrix;    /* YUV formats; default BT601 */
  ferry_color_range color_range;      /* YUV formats; default LIMITED */
  ferry_chroma_filter chroma_filter;  /* 4:2:0 and 4:2:2 formats; default NEAREST */
  int64_t plane_offset[3];
  int64_t plane_pitch[3];
} ferry_source;

typedef struct ferry_rect {
  int64_t x, y, w, h;
} ferry_rect;

typedef enum ferry_mirror {
  FERRY_MIRROR_NONE = 0,
  FERRY_MIRROR_X = 1, /* horizontal flip */
  FERRY_MIRROR_Y = 2  /* vertical flip */
} ferry_mirror;

/* A window in source pixels with fractional edges: pixel j covers [j, j + 1). */
typedef struct ferry_rectf {
  float x, y, w, h;
} ferry_rectf;

/* How a resized output pixel reads its window (ferry_transform.interpolation). */
typedef enum ferry_interpolation {
  FERRY_INTERP_NEAREST = 1, /* half-pixel centers: OpenCV INTER_NEAREST_EXACT, torchvision NEAREST_EXACT */
  FERRY_INTERP_LINEAR = 2,  /* OpenCV INTER_LINEAR, torchvision BILINEAR without antialias */
  FERRY_INTERP_CUBIC = 3,   /* a = -0.75: OpenCV INTER_CUBIC, torchvision BICUBIC without antialias */
  FERRY_INTERP_AREA = 4,    /* the pixels' overlap with the output pixel's footprint: OpenCV INTER_AREA */
  FERRY_INTERP_LINEAR_ANTIALIAS = 5 /* a triangle widened by the downscale: PIL, torchvision antialias=True */
} ferry_interpolation;

/* How the window is fitted to resize_w x resize_h (ferry_transform.resize_mode). */
typedef enum ferry_resize_mode {
  FERRY_RESIZE_STRETCH = 1,     /* the window fills the output; the aspect ratio may change */
  FERRY_RESIZE_LETTERBOX = 2,   /* the aspect ratio kept, the longer side fits; bars of letterbox_value */
  FERRY_RESIZE_SHORTER_SIDE = 3 /* the shorter side to resize_shorter, then the output's size from the
                                  * center: torchvision's Resize(resize_shorter) + CenterCrop */
} ferry_resize_mode;

/* Where a resized image smaller than the output lies (ferry_transform.letterbox_align). */
typedef enum ferry_letterbox_align {
  FERRY_ALIGN_CENTER = 0,  /* the bars split evenly, the extra pixel right and bottom */
  FERRY_ALIGN_TOP_LEFT = 1 /* the image at the output's origin, the bars right and bottom */
} ferry_letterbox_align;

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

  /* --- Resize (appended after 0.2.0) ---
   * resize_w > 0 and resize_h > 0: the output is resize_h x resize_w, and each
   * sample's window is resampled to it in the same pass. The window is
   * `per_sample_window` or `window` (fractional) when set, else the crop
   * (`per_sample_crop` entries may then differ in size), else the whole image;
   * it must lie inside its image, and pad_outside must be 0.
   *
   * Per axis (x shown; y alike), for a window [x0, x0 + ww) of an image w wide:
   *   the mode gives the resized length R and the output offset D:
   *     STRETCH        R = resize_w, D = 0;
   *     LETTERBOX      s = min(resize_w / ww, resize_h / wh), R = max(1, round(ww * s))
   *                    (in double; round: half away from zero);
   *     SHORTER_SIDE   the shorter of ww, wh (ww when equal) becomes resize_shorter, the
   *                    longer floor(resize_shorter * longer / shorter) (in double; at most
   *                    2^30, else FERRY_ERR_INVALID_ARGUMENT); if R >= resize_w,
   *                    D = (R - resize_w) / 2 rounded half to even (CenterCrop's rule);
   *   a resized image smaller than the output (LETTERBOX, or SHORTER_SIDE when
   *   R < resize_w) has D = -floor((resize_w - R) / 2) (CENTER) or 0 (TOP_LEFT).
   *   Output column o (after mirror X: resize_w - 1 - o) shows resized column
   *   r = o + D; outside 0 <= r < R it is letterbox_value[k]. Else the resized
   *   pixel's center in source pixels is c = x0 + (r + 0.5f) * sx, sx = float(ww / R)
   *   (ww / R in double, rounded once to float; the rest float arithmetic, each
   *   operation rounded, no fused multiply-add), and it
   *   reads source columns j with weights wx(j), for the interpolation:
   *     NEAREST    j = floor(c), weight 1;
   *     LINEAR     t = c - 0.5f, j0 = floor(t), f = t - j0: j0 and j0 + 1 with 1 - f and f;
   *     CUBIC      t, j0, f as LINEAR: j0 - 1 .. j0 + 2 with OpenCV's coefficients
   *                (A = -0.75f; c0 = ((A*(f+1) - 5A)*(f+1) + 8A)*(f+1) - 4A,
   *                c1 = ((A+2)*f - (A+3))*f*f + 1, c2 = the same at 1 - f, c3 = 1 - c0 - c1 - c2);
   *     AREA       a = x0 + r * sx, b = x0 + (r + 1) * sx: j = floor(a) .. ceil(b) - 1,
   *                weight min(b, j + 1) - max(a, j);
   *     LINEAR_ANTIALIAS  support = max(sx, 1): j = floor(c - support + 0.5f) ..
   *                floor(c + support + 0.5f) - 1, weight max(0, 1 - |j + 0.5f - c| / support).
   *   The taps may read source columns lo = floor(x0) .. hi = ceil(x0 + ww) - 1
   *   (x0 + ww in double):
   *   NEAREST, LINEAR and CUBIC clamp a column outside into [lo, hi] (OpenCV's
   *   replicated border); AREA and LINEAR_ANTIALIAS drop it (PIL's rule).
   * The value of channel k: H(i) = sum over j ascending of wx(j) * pixel(i, j),
   * V = sum over rows i ascending of wy(i) * H(i) (each product and each partial
   * sum rounded, from 0); for AREA and LINEAR_ANTIALIAS then V / (Sx * Sy), Sx
   * and Sy the sums of the kept weights in the same order (V = 0 where Sx * Sy
   * is 0: a footprint narrower than float's resolution keeps no weight). uint8 output: V
   * clamped to 0..255 and rounded half to even; float output: V * alpha + beta
   * as without resize (no rounding to uint8 in between; CUBIC may overshoot).
   * AREA and LINEAR_ANTIALIAS take a downscale of at most 256 per axis. */
  int64_t resize_w, resize_h;        /* 0, 0 (default): no resize, the output is the window */
  ferry_interpolation interpolation; /* default LINEAR */
  ferry_resize_mode resize_mode;     /* default STRETCH */
  int64_t resize_shorter;            /* SHORTER_SIDE's length of the shorter side (> 0) */
  ferry_letterbox_align letterbox_align; /* default CENTER */
  float letterbox_value[4];          /* per output channel, in output units (after normalization) */
  ferry_rectf window;                /* w = h = 0 (default): the crop */
  const ferry_rectf* per_sample_window; /* per_sample_count entries, or NULL */

  /* --- Random augmentation (appended after the resize fields): NULL (default)
   * or a description (ferry/augment.h) drawn per sample and applied in the
   * same pass. Read when the call is made; not kept. --- */
  const struct ferry_augment* augment;
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
 * point); synchronous on the CPU. A per-sample table the kernel reads (more
 * samples than its parameter holds, with per-sample values or sizes) is copied
 * on a stream of the context's, `stream` waiting for that copy's event: it
 * does not queue behind the work already on `stream`. transform may be NULL
 * for the defaults. Thread-safe. */
FERRY_API ferry_status ferry_transform_apply(ferry_context_t ctx, const ferry_source* source,
                                             const ferry_transform* transform, const ferry_output* output,
                                             ferry_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_TRANSFORM_H */
