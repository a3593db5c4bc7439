/* An engine's camera loop: NV12 frames as a camera or video decoder gives
 * them (1.5 bytes a pixel) become a detector's input, letterboxed to
 * 640 x 640, RGB, scaled to 0..1, float16 NCHW, in the engine's own buffer:
 * the colour conversion, resize and normalization in ferry's pass, the bus
 * carrying half the bytes of RGB. On a GPU where there is one, else on the
 * CPU backend (where the example also checks two output pixels).
 * Prints what it converted, then "ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ferry/ferry.h>

static void check(ferry_status status) {
  if (status != FERRY_OK) {
    fprintf(stderr, "ferry: %s\n", ferry_last_error());
    exit(1);
  }
}

enum { width = 1280, height = 720, out_size = 640, frames = 30 };

/* A "capture": the left half black, the right half white, grey chroma
 * (BT.709 limited range: Y 16 is black, 235 white), into the NV12 buffer. */
static void capture(unsigned char* nv12, int frame) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) nv12[(size_t)y * width + (size_t)x] = x < width / 2 ? 16 : 235;
  memset(nv12 + (size_t)width * height, 128, (size_t)width * height / 2); /* the UV plane */
  nv12[0] = (unsigned char)(16 + frame % 8);                             /* frames differ a little */
}

static float half_to_float(unsigned short h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float v = exponent == 0 ? mantissa / 16777216.0f : (1.0f + mantissa / 1024.0f) * (float)(1 << exponent) / 32768.0f;
  return (h & 0x8000) ? -v : v;
}

int main(void) {
  ferry_context_t ctx;
  check(ferry_context_create(&ctx, NULL)); /* a GPU if there is one, else the CPU backend */
  ferry_device_kind kind;
  int device;
  check(ferry_context_get_device(&kind, &device, ctx));

  /* The camera's frame buffer, in ferry's pinned memory (copied at the bus's full rate). */
  const size_t frame_bytes = (size_t)width * height * 3 / 2;
  unsigned char* nv12;
  check(ferry_memory_alloc_host((void**)&nv12, ctx, frame_bytes));

  ferry_source src;
  check(ferry_source_init(&src, sizeof src));
  src.data = nv12, src.bytes = frame_bytes;
  src.n = 1, src.h = height, src.w = width;
  src.format = FERRY_FORMAT_NV12; /* the Y plane, then the UV plane right after it */
  src.color_matrix = FERRY_COLOR_BT709;
  src.color_range = FERRY_RANGE_LIMITED;

  ferry_transform t;
  check(ferry_transform_init(&t, sizeof t)); /* RGB x / 255, float32 NCHW, then: */
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.resize_w = out_size, t.resize_h = out_size;
  t.resize_mode = FERRY_RESIZE_LETTERBOX;
  for (int k = 0; k < 3; ++k) t.letterbox_value[k] = 114.0f / 255.0f; /* YOLO's grey bars */

  /* The engine's input tensor, allocated once (device memory on a GPU). */
  ferry_tensor_info info;
  check(ferry_tensor_info_init(&info, sizeof info));
  check(ferry_transform_describe_output(&info, &src, &t));
  void* input;
  check(ferry_memory_alloc_device(&input, ctx, info.bytes, NULL));
  ferry_output out;
  check(ferry_output_init(&out, sizeof out));
  out.data = input, out.bytes = info.bytes;

  for (int i = 0; i < frames; ++i) {
    capture(nv12, i);
    ferry_batch_t batch;
    check(ferry_batch_submit(&batch, ctx, &src, &t, &out, NULL));
    check(ferry_batch_wait(batch)); /* an engine on a GPU hands off to its stream instead */
    check(ferry_batch_release(batch));
    /* ... run the detector on `input` ... */
  }
  printf("%d NV12 frames of %dx%d (%zu bytes each) -> float16 [%lld, %lld, %lld, %lld] on the %s\n", frames, width,
         height, frame_bytes, (long long)info.shape[0], (long long)info.shape[1], (long long)info.shape[2],
         (long long)info.shape[3], kind == FERRY_DEVICE_CUDA ? "GPU" : "CPU backend");

  if (kind == FERRY_DEVICE_CPU) {
    /* 1280 x 720 letterboxed to 640 x 360, bars of 140 rows above and below. */
    const unsigned short* plane = (const unsigned short*)input; /* channel R, 640 x 640 */
    const float white = half_to_float(plane[320 * out_size + 480]), bar = half_to_float(plane[10 * out_size + 320]);
    printf("R at the white half %.3f, in the bar %.3f\n", white, bar);
    if (white < 0.999f || bar < 0.44f || bar > 0.45f) {
      fprintf(stderr, "unexpected output values\n");
      return 1;
    }
  }
  check(ferry_memory_free_device(ctx, input, NULL));
  check(ferry_memory_free_host(ctx, nv12));
  check(ferry_context_destroy(ctx));
  printf("ok\n");
  return 0;
}
