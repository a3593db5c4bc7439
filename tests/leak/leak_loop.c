/* ferry's lifecycle in a loop, for a leak checker (valgrind --leak-check=full):
 * create a CPU context; submit batches (ferry-allocated and caller outputs,
 * pageable, pinned and registered sources, callbacks); release them; pinned
 * and device memory; then destroy, also with batches in flight and handles
 * never released, and with blocks never freed (destroy gives them back).
 *   ferry_leak_loop [iterations=10]   exits 0 when every call did what it should */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/ferry.h"

static int failures = 0;

#define CHECK(call)                                                                   \
  do {                                                                                \
    ferry_status st_ = (call);                                                        \
    if (st_ != FERRY_OK) {                                                            \
      fprintf(stderr, "leak_loop: %s: %s (%s)\n", #call, ferry_status_string(st_),    \
              ferry_last_error());                                                    \
      ++failures;                                                                     \
    }                                                                                 \
  } while (0)

static void on_complete(ferry_batch_t batch, ferry_status status, void* user_data) {
  (void)batch;
  if (status == FERRY_OK) ++*(int*)user_data;
}

static void one_round(int round) {
  enum { N = 4, H = 32, W = 40, C = 3 };
  ferry_context_options o;
  ferry_context_t ctx = NULL;
  ferry_source src;
  ferry_transform t;
  ferry_output out;
  ferry_submit_options opts;
  ferry_batch_t batches[4] = {NULL, NULL, NULL, NULL};
  ferry_tensor_info info;
  unsigned char* pageable = malloc(N * H * W * C);
  float* caller_out = malloc(sizeof(float) * N * C * H * W);
  void* pinned = NULL;
  void* device = NULL;
  void* kept = NULL;
  int completed = 0, i;

  for (i = 0; i < N * H * W * C; ++i) pageable[i] = (unsigned char)(i * 7 + round);
  CHECK(ferry_context_options_init(&o, sizeof o));
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 2;
  o.staging_threads = 1;
  CHECK(ferry_context_create(&ctx, &o));

  CHECK(ferry_source_init(&src, sizeof src));
  src.data = pageable;
  src.bytes = N * H * W * C;
  src.n = N, src.h = H, src.w = W, src.c = C;
  CHECK(ferry_transform_init(&t, sizeof t));
  t.mean[0] = 0.5f, t.std[0] = 0.25f;
  CHECK(ferry_output_init(&out, sizeof out));
  out.data = caller_out;
  out.bytes = sizeof(float) * N * C * H * W;
  CHECK(ferry_submit_options_init(&opts, sizeof opts));
  opts.callback = on_complete;
  opts.user_data = &completed;

  /* Pageable source into a ferry-allocated output, released after wait. */
  CHECK(ferry_batch_submit(&batches[0], ctx, &src, &t, NULL, &opts));
  CHECK(ferry_batch_wait(batches[0]));
  CHECK(ferry_tensor_info_init(&info, sizeof info));
  CHECK(ferry_batch_describe_output(&info, batches[0]));
  CHECK(ferry_batch_release(batches[0]));

  /* Pinned source, caller output, staged chunks. */
  CHECK(ferry_memory_alloc_host(&pinned, ctx, src.bytes));
  memcpy(pinned, pageable, src.bytes);
  src.data = pinned;
  opts.chunk_bytes = 4096;
  CHECK(ferry_batch_submit(&batches[1], ctx, &src, &t, &out, &opts));
  CHECK(ferry_batch_wait(batches[1]));
  CHECK(ferry_batch_release(batches[1]));
  CHECK(ferry_memory_free_host_on_stream(ctx, pinned, NULL));

  /* A registered source through the registration cache, then unregistered. */
  src.data = pageable;
  opts.source_policy = FERRY_SOURCE_REGISTER;
  CHECK(ferry_batch_submit(&batches[2], ctx, &src, &t, &out, &opts));
  CHECK(ferry_batch_wait(batches[2]));
  CHECK(ferry_batch_release(batches[2]));
  ferry_memory_unregister_host(ctx, pageable); /* cached, or declined and staged: either is fine */
  CHECK(ferry_memory_register_host(ctx, pageable, src.bytes));
  CHECK(ferry_memory_unregister_host(ctx, pageable));

  /* Device memory, a conversion on the "device", trim. */
  CHECK(ferry_memory_alloc_device(&device, ctx, sizeof(float) * N * C * H * W, NULL));
  out.data = device;
  CHECK(ferry_transform_apply(ctx, &src, &t, &out, NULL));
  CHECK(ferry_memory_free_device(ctx, device, NULL));
  CHECK(ferry_memory_trim(ctx, FERRY_MEMORY_ALL));

  /* Left to destroy: a batch in flight never released, a pinned and a device block. */
  out.data = caller_out;
  opts.source_policy = FERRY_SOURCE_AUTO;
  CHECK(ferry_batch_submit(&batches[3], ctx, &src, &t, round % 2 ? NULL : &out, &opts));
  CHECK(ferry_memory_alloc_host(&kept, ctx, 12345));
  CHECK(ferry_memory_alloc_device(&kept, ctx, 54321, NULL));
  CHECK(ferry_context_destroy(ctx));
  if (ferry_batch_release(batches[3]) != FERRY_ERR_INVALID_HANDLE) {
    fprintf(stderr, "leak_loop: a batch of a destroyed context is still valid\n");
    ++failures;
  }
  if (completed < 3) {
    fprintf(stderr, "leak_loop: %d callbacks with FERRY_OK, want at least 3\n", completed);
    ++failures;
  }
  free(caller_out);
  free(pageable);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10, r;
  for (r = 0; r < rounds; ++r) one_round(r);
  printf("leak_loop: %d rounds, %d failures\n", rounds, failures);
  return failures == 0 ? 0 : 1;
}
