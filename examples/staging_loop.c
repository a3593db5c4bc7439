/* ferry example (C): a staging loop. Frames are written into pinned memory
 * from ferry, submitted as batches, and handed off to the caller's CUDA stream
 * (NULL here: the legacy stream; on the CPU backend streams are ignored).
 * Build: cc staging_loop.c -lferry   Run: ./staging_loop */
#include <stdio.h>
#include <string.h>

#include "ferry/ferry.h"

#define CHECK(call)                                                              \
  do {                                                                           \
    ferry_status s_ = (call);                                                    \
    if (s_ != FERRY_OK) {                                                        \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ferry_status_string(s_),     \
              ferry_last_error());                                               \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

enum { N = 8, H = 64, W = 64, C = 3, STEPS = 4 };

int main(void) {
  ferry_context_t ctx = NULL;
  CHECK(ferry_context_create(&ctx, NULL)); /* AUTO: the GPU if there is one, else the CPU */

  const size_t frame_bytes = (size_t)N * H * W * C;
  unsigned char* frames = NULL;
  CHECK(ferry_memory_alloc_host((void**)&frames, ctx, frame_bytes));

  ferry_transform transform;
  CHECK(ferry_transform_init(&transform, sizeof transform));
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std_dev[3] = {0.229f, 0.224f, 0.225f};
  memcpy(transform.mean, mean, sizeof mean);
  memcpy(transform.std, std_dev, sizeof std_dev);

  ferry_cuda_stream consumer_stream = NULL; /* your cudaStream_t */
  ferry_submit_options options;
  CHECK(ferry_submit_options_init(&options, sizeof options));
  options.handoff_stream = consumer_stream;
  options.has_handoff_stream = 1;

  for (int step = 0; step < STEPS; ++step) {
    memset(frames, step * 40, frame_bytes); /* "render" the next frames */
    ferry_source source;
    CHECK(ferry_source_init(&source, sizeof source));
    source.data = frames;
    source.bytes = frame_bytes;
    source.n = N; source.h = H; source.w = W; source.c = C;

    ferry_batch_t batch = NULL;
    CHECK(ferry_batch_submit(&batch, ctx, &source, &transform, NULL, &options));
    CHECK(ferry_batch_wait_source(batch)); /* frames may be overwritten from here on */
    CHECK(ferry_batch_wait(batch));        /* or: keep queuing work on consumer_stream */
    ferry_tensor_info out;
    CHECK(ferry_tensor_info_init(&out, sizeof out));
    CHECK(ferry_batch_describe_output(&out, batch));
    printf("step %d: %s tensor %lld x %lld x %lld x %lld at %p\n", step,
           out.device_kind == FERRY_DEVICE_CUDA ? "CUDA" : "CPU", (long long)out.shape[0],
           (long long)out.shape[1], (long long)out.shape[2], (long long)out.shape[3], out.data);
    if (out.device_kind == FERRY_DEVICE_CPU) {
      const float first = *(const float*)out.data;
      const float want = ((float)(step * 40) / 255.0f - mean[0]) / std_dev[0];
      if (first < want - 1e-4f || first > want + 1e-4f) {
        fprintf(stderr, "unexpected value %f, want %f\n", first, want);
        return 1;
      }
    }
    CHECK(ferry_batch_release(batch));
  }
  CHECK(ferry_memory_free_host(ctx, frames));
  CHECK(ferry_context_destroy(ctx));
  puts("ok");
  return 0;
}
