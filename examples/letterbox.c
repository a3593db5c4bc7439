/* A detector's input from images at their decoded sizes: each image
 * letterboxed to 640 x 640 (the aspect kept, grey bars), BGR to RGB, scaled to
 * 0..1, float16 NCHW, in one pass (ferry_source.sample_descs + resize).
 * On a GPU where there is one (the resample kernel), else on the CPU backend.
 * Prints where each image landed (its resized size and the bars), then "ok". */
#include <stdio.h>
#include <stdlib.h>

#include <ferry/ferry.h>

static void check(ferry_status status) {
  if (status != FERRY_OK) {
    fprintf(stderr, "ferry: %s\n", ferry_last_error());
    exit(1);
  }
}

int main(void) {
  enum { n = 3, out_size = 640 };
  const int heights[n] = {1080, 480, 333}, widths[n] = {1920, 640, 500};
  unsigned char* images[n];
  ferry_sample_desc descs[n];
  for (int i = 0; i < n; ++i) {
    const size_t bytes = (size_t)heights[i] * (size_t)widths[i] * 3; /* packed BGR, as decoders give */
    images[i] = malloc(bytes);
    if (images[i] == NULL) return 1;
    for (size_t b = 0; b < bytes; ++b) images[i][b] = (unsigned char)(b * 7 + (size_t)i);
    descs[i] = (ferry_sample_desc){.data = images[i], .bytes = bytes, .h = heights[i], .w = widths[i]};
  }

  ferry_context_t ctx;
  check(ferry_context_create(&ctx, NULL)); /* a GPU if there is one, else the CPU backend */

  ferry_source src;
  check(ferry_source_init(&src, sizeof src));
  src.n = n;
  src.c = 3;
  src.sample_descs = descs; /* each image its own size; data, h and w stay 0 */

  ferry_transform t;
  check(ferry_transform_init(&t, sizeof t)); /* x / 255 */
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.out_channels = 3;
  t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0; /* BGR -> RGB */
  t.resize_w = out_size, t.resize_h = out_size;
  t.resize_mode = FERRY_RESIZE_LETTERBOX;
  t.interpolation = FERRY_INTERP_LINEAR;
  for (int k = 0; k < 3; ++k) t.letterbox_value[k] = 114.0f / 255.0f; /* YOLO's grey */

  ferry_batch_t batch;
  check(ferry_batch_submit(&batch, ctx, &src, &t, NULL, NULL));
  check(ferry_batch_wait(batch));
  ferry_tensor_info out;
  check(ferry_tensor_info_init(&out, sizeof out));
  check(ferry_batch_describe_output(&out, batch));
  printf("float16 [%lld, %lld, %lld, %lld]\n", (long long)out.shape[0], (long long)out.shape[1],
         (long long)out.shape[2], (long long)out.shape[3]);
  /* Where each image landed: LETTERBOX scales by min(640 / w, 640 / h) and centers the bars
   * (transform.h gives the rule; a detector maps its boxes back with the same numbers). */
  for (int i = 0; i < n; ++i) {
    const double s = 640.0 / (widths[i] > heights[i] ? widths[i] : heights[i]);
    const long rw = (long)(widths[i] * s + 0.5), rh = (long)(heights[i] * s + 0.5);
    printf("image %d: %dx%d -> %ldx%ld, bars %ld left, %ld top\n", i, widths[i], heights[i], rw, rh,
           (out_size - rw) / 2, (out_size - rh) / 2);
  }
  check(ferry_batch_release(batch));
  check(ferry_context_destroy(ctx));
  for (int i = 0; i < n; ++i) free(images[i]);
  printf("ok\n");
  return 0;
}
