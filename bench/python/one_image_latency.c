/* The C ABI's cost for one image, for bench/python's comparison with the
 * Python module (issue 11 item 2): one 224x224x3 uint8 image submitted with a
 * hand-off to the legacy stream, waited for, its output described, released;
 * the same steps hot_path_bench.py and pipeline_bench.py time from Python.
 * Three ways of taking the output: its description read from the batch
 * ("describe"); or held by a ferry_tensor_t reference, described through it,
 * the reference released after the batch ("tensor": what a DLPack export
 * and its deleter do, the like-for-like row for torch.from_dlpack), taken
 * after the wait or before it ("tensor first": the order of a consumer on
 * the GPU, whose export needs no wait, as the README's idiom takes it).
 *
 * Built twice (bench/python/CMakeLists.txt):
 * - the program ferry_bench_one_image cpu|cuda [calls] [repeats] prints
 *   "us_per_call <median over repeats>" (wall clock), "cpu_us_per_call
 *   <median>" (the calling thread's CPU time), then "tensor_us_per_call",
 *   "tensor_cpu_us_per_call", "tensor_first_us_per_call" and
 *   "tensor_first_cpu_us_per_call";
 * - the library libferry_bench_one_image.so exports ferry_bench_one_image_us,
 *   which hot_path_bench.py calls through ctypes between runs of the Python
 *   calls, in the same process: a virtual machine's speed drifts by half from
 *   process to process and over seconds, and only runs side by side in time
 *   compare.
 * Only the public C ABI is used. */
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
      return -1;                                                                           \
    }                                                                                      \
  } while (0)

enum { H = 224, W = 224, C = 3 };

/* A context and the image, transform and options every call submits. */
typedef struct {
  ferry_context_t ctx;
  unsigned char* image; /* pageable, as a NumPy array is */
  ferry_source source;
  ferry_transform transform;
  ferry_submit_options options;
} one_image_rig;

static double now_us(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int rig_open(one_image_rig* rig, int cuda) {
  memset(rig, 0, sizeof *rig);
  ferry_context_options opts;
  CHECK(ferry_context_options_init(&opts, sizeof opts));
  opts.device_kind = cuda ? FERRY_DEVICE_CUDA : FERRY_DEVICE_CPU;
  CHECK(ferry_context_create(&rig->ctx, &opts));
  rig->image = malloc((size_t)H * W * C);
  if (rig->image == NULL) return -1;
  for (size_t i = 0; i < (size_t)H * W * C; ++i) rig->image[i] = (unsigned char)(i * 7);
  CHECK(ferry_source_init(&rig->source, sizeof rig->source));
  rig->source.data = rig->image;
  rig->source.bytes = (size_t)H * W * C;
  rig->source.n = 1; rig->source.h = H; rig->source.w = W; rig->source.c = C;
  CHECK(ferry_transform_init(&rig->transform, sizeof rig->transform));
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std_dev[3] = {0.229f, 0.224f, 0.225f};
  memcpy(rig->transform.mean, mean, sizeof mean);
  memcpy(rig->transform.std, std_dev, sizeof std_dev);
  CHECK(ferry_submit_options_init(&rig->options, sizeof rig->options));
  rig->options.has_handoff_stream = 1; /* the legacy stream, as torch's default current stream */
  return 0;
}

static void rig_close(one_image_rig* rig) {
  free(rig->image);
  rig->image = NULL;
  if (rig->ctx != NULL) (void)ferry_context_destroy(rig->ctx);
  rig->ctx = NULL;
}

/* One call: submit, wait, describe, release. */
static int one(const one_image_rig* rig) {
  ferry_batch_t batch = NULL;
  CHECK(ferry_batch_submit(&batch, rig->ctx, &rig->source, &rig->transform, NULL, &rig->options));
  CHECK(ferry_batch_wait(batch));
  ferry_tensor_info out;
  CHECK(ferry_tensor_info_init(&out, sizeof out));
  CHECK(ferry_batch_describe_output(&out, batch));
  CHECK(ferry_batch_release(batch));
  return 0;
}

/* How a call takes the output (ferry_bench_one_image_us's `how`). */
enum { TAKE_DESCRIBE = 0, TAKE_TENSOR = 1, TAKE_TENSOR_FIRST = 2 };

/* One call as the Python side makes it with torch.from_dlpack: submit, a
 * tensor reference (the capsule's) taken and described after the wait, or
 * before it (tensor_first), the batch released, then the reference (the
 * consumer's tensor freed: the capsule's deleter). */
static int one_as_tensor(const one_image_rig* rig, int tensor_first) {
  ferry_batch_t batch = NULL;
  CHECK(ferry_batch_submit(&batch, rig->ctx, &rig->source, &rig->transform, NULL, &rig->options));
  if (!tensor_first) CHECK(ferry_batch_wait(batch));
  ferry_tensor_t reference = NULL;
  CHECK(ferry_tensor_retain(&reference, batch));
  ferry_tensor_info out;
  CHECK(ferry_tensor_info_init(&out, sizeof out));
  CHECK(ferry_tensor_describe(&out, reference));
  if (tensor_first) CHECK(ferry_batch_wait(batch));
  CHECK(ferry_batch_release(batch));
  CHECK(ferry_tensor_release(reference));
  return 0;
}

/* `calls` calls of one (how: TAKE_*) back to back: microseconds per call,
 * wall clock, and the calling thread's CPU time in *cpu_us; -1 on an error. */
static double run_calls(const one_image_rig* rig, int how, int calls, double* cpu_us) {
  const double start = now_us(CLOCK_MONOTONIC), start_cpu = now_us(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < calls; ++i)
    if ((how == TAKE_DESCRIBE ? one(rig) : one_as_tensor(rig, how == TAKE_TENSOR_FIRST)) != 0) return -1;
  *cpu_us = (now_us(CLOCK_THREAD_CPUTIME_ID) - start_cpu) / calls;
  return (now_us(CLOCK_MONOTONIC) - start) / calls;
}

#ifdef FERRY_BENCH_ONE_IMAGE_LIBRARY
/* For ctypes: `calls` calls (after a warm-up the first time) on a context of
 * `device` ("cpu" or "cuda") kept between calls, taking the output as `how`
 * says (0 describe, 1 tensor, 2 tensor first); microseconds per call, wall
 * clock, the thread's CPU time in *cpu_us; -1 on an error (printed). */
__attribute__((visibility("default"))) double ferry_bench_one_image_us(const char* device, int how, int calls,
                                                                       double* cpu_us) {
  static one_image_rig rig;
  static int opened = -1; /* -1 none, 0 cpu, 1 cuda */
  if (how < TAKE_DESCRIBE || how > TAKE_TENSOR_FIRST) {
    fprintf(stderr, "ferry_bench_one_image_us: how is %d: 0 (describe), 1 (tensor) or 2 (tensor first)\n", how);
    return -1;
  }
  const int cuda = strcmp(device, "cuda") == 0;
  if (opened != cuda) {
    if (opened != -1) rig_close(&rig);
    opened = -1;
    if (rig_open(&rig, cuda) != 0) return -1;
    opened = cuda;
    double ignored = 0;
    for (int warm = TAKE_DESCRIBE; warm <= TAKE_TENSOR_FIRST; ++warm)
      if (run_calls(&rig, warm, 50, &ignored) < 0) return -1;
  }
  return run_calls(&rig, how, calls, cpu_us);
}
#else
static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median microseconds per call over `repeats` runs of `calls`: wall clock, and the thread's CPU time. */
static int time_calls(const one_image_rig* rig, int how, int calls, int repeats, double* wall_us, double* cpu_us) {
  double runs[101], cpu[101], ignored = 0;
  if (run_calls(rig, how, 50, &ignored) < 0) return -1;
  for (int r = 0; r < repeats; ++r)
    if ((runs[r] = run_calls(rig, how, calls, &cpu[r])) < 0) return -1;
  qsort(runs, (size_t)repeats, sizeof runs[0], compare);
  qsort(cpu, (size_t)repeats, sizeof cpu[0], compare);
  *wall_us = runs[repeats / 2];
  *cpu_us = cpu[repeats / 2];
  return 0;
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
  one_image_rig rig;
  if (rig_open(&rig, strcmp(argv[1], "cuda") == 0) != 0) return 1;
  double wall = 0, cpu = 0;
  if (time_calls(&rig, TAKE_DESCRIBE, calls, repeats, &wall, &cpu) != 0) return 1;
  printf("us_per_call %.2f\ncpu_us_per_call %.2f\n", wall, cpu);
  if (time_calls(&rig, TAKE_TENSOR, calls, repeats, &wall, &cpu) != 0) return 1;
  printf("tensor_us_per_call %.2f\ntensor_cpu_us_per_call %.2f\n", wall, cpu);
  if (time_calls(&rig, TAKE_TENSOR_FIRST, calls, repeats, &wall, &cpu) != 0) return 1;
  printf("tensor_first_us_per_call %.2f\ntensor_first_cpu_us_per_call %.2f\n", wall, cpu);
  rig_close(&rig);
  return 0;
}
#endif
