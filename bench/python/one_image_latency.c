/* The C ABI's cost for one image, for bench/python's comparison with the
 * Python module (issue 11 item 2): one 224x224x3 uint8 image submitted with a
 * hand-off to the legacy stream, waited for, its output described, released;
 * the same steps hot_path_bench.py and pipeline_bench.py time from Python.
 *   ferry_bench_one_image cpu|cuda [calls] [repeats]
 * prints "us_per_call <median over repeats>" (wall clock) and "cpu_us_per_call
 * <median>" (the calling thread's CPU time: what the caller's thread spends,
 * steadier than the wall clock on a loaded machine), then the same two for the
 * steps a DLPack export takes through the C ABI ("tensor_us_per_call",
 * "tensor_cpu_us_per_call": the output held by a ferry_tensor_t reference,
 * described through it, the reference released after the batch, as
 * torch.from_dlpack's capsule and its deleter do). Only the public C ABI is used. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry/ferry.h"

#define CHECK(call)                                                                        \
  do {                                                                                     \
    ferry_status s_ = (call);                                                              \
    if (s_ != FERRY_OK) {                                                                  \
      fprintf(stderr, "%s: %s: %s\n", #call, ferry_status_string(s_), ferry_last_error()); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

enum { H = 224, W = 224, C = 3 };

static double now_us(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* One call: submit, wait, describe, release. */
static void one(ferry_context_t ctx, const ferry_source* source, const ferry_transform* transform,
                const ferry_submit_options* options) {
  ferry_batch_t batch = NULL;
  CHECK(ferry_batch_submit(&batch, ctx, source, transform, NULL, options));
  CHECK(ferry_batch_wait(batch));
  ferry_tensor_info out;
  CHECK(ferry_tensor_info_init(&out, sizeof out));
  CHECK(ferry_batch_describe_output(&out, batch));
  CHECK(ferry_batch_release(batch));
}

/* One call as the Python side makes it with torch.from_dlpack: submit, wait,
 * a tensor reference (the capsule's) described, the batch released, then the
 * reference (the consumer's tensor freed: the capsule's deleter). */
static void one_as_tensor(ferry_context_t ctx, const ferry_source* source, const ferry_transform* transform,
                          const ferry_submit_options* options) {
  ferry_batch_t batch = NULL;
  CHECK(ferry_batch_submit(&batch, ctx, source, transform, NULL, options));
  CHECK(ferry_batch_wait(batch));
  ferry_tensor_t reference = NULL;
  CHECK(ferry_tensor_retain(&reference, batch));
  ferry_tensor_info out;
  CHECK(ferry_tensor_info_init(&out, sizeof out));
  CHECK(ferry_tensor_describe(&out, reference));
  CHECK(ferry_batch_release(batch));
  CHECK(ferry_tensor_release(reference));
}

typedef void (*one_call)(ferry_context_t, const ferry_source*, const ferry_transform*, const ferry_submit_options*);

/* Median microseconds per call over `repeats` runs of `calls`: wall clock, and the thread's CPU time. */
static void time_calls(one_call call, ferry_context_t ctx, const ferry_source* source, const ferry_transform* transform,
                       const ferry_submit_options* options, int calls, int repeats, double* wall_us, double* cpu_us) {
  double runs[101], cpu[101];
  for (int i = 0; i < 50; ++i) call(ctx, source, transform, options);
  for (int r = 0; r < repeats; ++r) {
    const double start = now_us(CLOCK_MONOTONIC), start_cpu = now_us(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < calls; ++i) call(ctx, source, transform, options);
    runs[r] = (now_us(CLOCK_MONOTONIC) - start) / calls;
    cpu[r] = (now_us(CLOCK_THREAD_CPUTIME_ID) - start_cpu) / calls;
  }
  qsort(runs, (size_t)repeats, sizeof runs[0], compare);
  qsort(cpu, (size_t)repeats, sizeof cpu[0], compare);
  *wall_us = runs[repeats / 2];
  *cpu_us = cpu[repeats / 2];
}

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "cpu") != 0 && strcmp(argv[1], "cuda") != 0)) {
    fprintf(stderr, "usage: %s cpu|cuda [calls] [repeats]\n", argv[0]);
    return 2;
  }
  const int calls = argc > 2 ? atoi(argv[2]) : 2000, repeats = argc > 3 ? atoi(argv[3]) : 7;
  if (calls < 1 || repeats < 1 || repeats > 101) {
    fprintf(stderr, "calls must be >= 1 and repeats 1 to 101\n");
    return 2;
  }
  ferry_context_options opts;
  CHECK(ferry_context_options_init(&opts, sizeof opts));
  opts.device_kind = strcmp(argv[1], "cuda") == 0 ? FERRY_DEVICE_CUDA : FERRY_DEVICE_CPU;
  ferry_context_t ctx = NULL;
  CHECK(ferry_context_create(&ctx, &opts));

  unsigned char* image = malloc((size_t)H * W * C); /* pageable, as a NumPy array is */
  if (image == NULL) return 1;
  for (size_t i = 0; i < (size_t)H * W * C; ++i) image[i] = (unsigned char)(i * 7);
  ferry_source source;
  CHECK(ferry_source_init(&source, sizeof source));
  source.data = image;
  source.bytes = (size_t)H * W * C;
  source.n = 1; source.h = H; source.w = W; source.c = C;
  ferry_transform transform;
  CHECK(ferry_transform_init(&transform, sizeof transform));
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std_dev[3] = {0.229f, 0.224f, 0.225f};
  memcpy(transform.mean, mean, sizeof mean);
  memcpy(transform.std, std_dev, sizeof std_dev);
  ferry_submit_options options;
  CHECK(ferry_submit_options_init(&options, sizeof options));
  options.has_handoff_stream = 1; /* the legacy stream, as torch's default current stream */

  double wall = 0, cpu = 0;
  time_calls(one, ctx, &source, &transform, &options, calls, repeats, &wall, &cpu);
  printf("us_per_call %.2f\ncpu_us_per_call %.2f\n", wall, cpu);
  time_calls(one_as_tensor, ctx, &source, &transform, &options, calls, repeats, &wall, &cpu);
  printf("tensor_us_per_call %.2f\ntensor_cpu_us_per_call %.2f\n", wall, cpu);
  free(image);
  CHECK(ferry_context_destroy(ctx));
  return 0;
}
