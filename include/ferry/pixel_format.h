/* ferry: how a source's bytes encode its pixels (ferry_source.format): c
 * channels (the default), or a camera or video frame (YUV 4:2:0 and 4:2:2,
 * raw Bayer) that ferry converts to RGB in the conversion itself, so the bus
 * carries the frame as it came: NV12 is 1.5 bytes a pixel, RGB 3. */
#ifndef FERRY_PIXEL_FORMAT_H
#define FERRY_PIXEL_FORMAT_H

#ifdef __cplusplus
extern "C" {
#endif

/* A frame of w x h pixels is read from up to three planes (the layout below);
 * cw = ceil(w / 2), ch = ceil(h / 2). Every format decodes to three channels
 * in the order R, G, B (a channel_map of {2, 1, 0} gives BGR), each a uint8
 * rounded as ferry_color_* below says; the rest of the transform (crop,
 * resize, mirror, normalize, dtype, layout) then reads that RGB image.
 * Odd w and h are taken: the last chroma sample covers the last pixel alone
 * (it is repeated, as in FFmpeg's and V4L2's odd-sized frames). */
typedef enum ferry_pixel_format {
  FERRY_FORMAT_CHANNELS = 0,    /* c channels, interleaved or planar (ferry_source.layout) */
  FERRY_FORMAT_NV12 = 1,        /* plane 0: Y, h rows of w; plane 1: U,V pairs, ch rows of 2*cw */
  FERRY_FORMAT_NV21 = 2,        /* as NV12 with V,U pairs (Android camera) */
  FERRY_FORMAT_I420 = 3,        /* plane 0: Y; plane 1: U, ch rows of cw; plane 2: V, the same */
  FERRY_FORMAT_YV12 = 4,        /* as I420 with V in plane 1 and U in plane 2 */
  FERRY_FORMAT_YUYV = 5,        /* 4:2:2 packed (YUY2): plane 0, h rows of 4*cw bytes Y0 U Y1 V */
  FERRY_FORMAT_UYVY = 6,        /* 4:2:2 packed: U Y0 V Y1 */
  FERRY_FORMAT_BAYER_RGGB = 7,  /* raw 8-bit sensor, plane 0 h rows of w; the 2x2 tile's top row R G, bottom G B */
  FERRY_FORMAT_BAYER_BGGR = 8,  /* top B G, bottom G R */
  FERRY_FORMAT_BAYER_GRBG = 9,  /* top G R, bottom B G */
  FERRY_FORMAT_BAYER_GBRG = 10  /* top G B, bottom R G */
} ferry_pixel_format;

/* The YUV to RGB matrix (Kr, Kb): BT.601 (0.299, 0.114), BT.709 (0.2126,
 * 0.0722), BT.2020 non-constant luminance (0.2627, 0.0593). */
typedef enum ferry_color_matrix {
  FERRY_COLOR_BT601 = 0, /* SD video, JPEG, V4L2 webcams, OpenCV's cvtColor */
  FERRY_COLOR_BT709 = 1, /* HD video */
  FERRY_COLOR_BT2020 = 2 /* UHD video */
} ferry_color_matrix;

/* The YUV range. LIMITED: Y in 16..235 and U, V in 16..240 (a Y below 16
 * reads as 16, as OpenCV's cvtColor does); FULL: all three in 0..255 (JPEG). */
typedef enum ferry_color_range {
  FERRY_RANGE_LIMITED = 0,
  FERRY_RANGE_FULL = 1
} ferry_color_range;

/* How a 4:2:0 or 4:2:2 frame's chroma reaches every pixel. NEAREST: the
 * sample of the pixel's 2x2 (2x1) block, as OpenCV's cvtColor. LINEAR: chroma
 * sited as MPEG-2 and H.264 do by default (horizontally on the even columns,
 * vertically between the two rows of 4:2:0), interpolated with weights 1/2
 * across and 1/4, 3/4 down, the edges repeated, rounded to uint8 first.
 * Bayer frames always demosaic bilinearly (below). */
typedef enum ferry_chroma_filter {
  FERRY_CHROMA_NEAREST = 0,
  FERRY_CHROMA_LINEAR = 1
} ferry_chroma_filter;

/* The exact arithmetic, identical on the CPU and the GPU:
 * - YUV: with yo = 16 (LIMITED) or 0, ys = 255/219 or 1, cs = 255/224 or 1,
 *   Kg = 1 - Kr - Kb, the integer coefficients (rounded from double, 20
 *   fractional bits) CY = ys, CRV = 2 cs (1 - Kr), CGU = -2 cs Kb (1 - Kb) / Kg,
 *   CGV = -2 cs Kr (1 - Kr) / Kg, CBU = 2 cs (1 - Kb); then with
 *   y' = max(0, Y - yo) * CY, u = U - 128, v = V - 128:
 *   R = sat((y' + CRV v + 2^19) >> 20), G = sat((y' + CGU u + CGV v + 2^19) >> 20),
 *   B = sat((y' + CBU u + 2^19) >> 20), sat clamping to 0..255 (OpenCV's form).
 * - Bayer, bilinear: a pixel keeps its own colour; a missing colour is the
 *   mean of the 2 or 4 nearest pixels of that colour ((a + b + 1) >> 1,
 *   (a + b + c + d + 2) >> 2), the frame reflected at its edges (pixel -1 reads
 *   pixel 1), so w and h must be at least 2. */

#ifdef __cplusplus
}
#endif

#endif /* FERRY_PIXEL_FORMAT_H */
