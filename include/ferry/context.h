/* ferry: contexts, one per device: everything ferry owns for it. */
#ifndef FERRY_CONTEXT_H
#define FERRY_CONTEXT_H

#include "ferry/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ferry_context_s* ferry_context_t;

/* How pinned (page-locked) host memory is made. REGISTER (the default):
 * malloc, pages touched, then cudaHostRegister, several times faster for large
 * blocks (the driver's own allocation zeroes and maps page by page); HOST_ALLOC:
 * cudaHostAlloc. Ignored on the CPU backend. */
typedef enum ferry_pinned_method {
  FERRY_PINNED_REGISTER = 0,
  FERRY_PINNED_HOST_ALLOC = 1
} ferry_pinned_method;

/* Which batches ferry times on the GPU with CUDA events, for ferry_stats.h2d_ns
 * and convert_ns (ferry_context_options.device_timing). A timing event on each
 * side of a chunk's copy delays its kernel and the next copy: on an H200,
 * +5 to +9 us on a 1080p frame's latency and 4% of the rate of back-to-back
 * 3 MB frames.
 *   AUTO: batches of more than one sample; a batch of one (a camera or render
 *         frame, one image) is not timed.
 *   ON:   every batch.
 *   OFF:  none.
 * A batch from host memory of at most 256 KiB (the short path) is never
 * timed: the events would be much of its latency. ferry_stats.timed_chunks counts the chunks
 * the times cover. The CPU backend times every chunk with the host clock,
 * whatever this says. */
typedef enum ferry_device_timing {
  FERRY_DEVICE_TIMING_AUTO = 0,
  FERRY_DEVICE_TIMING_ON = 1,
  FERRY_DEVICE_TIMING_OFF = 2
} ferry_device_timing;

typedef struct ferry_context_options {
  size_t struct_size;
  ferry_device_kind device_kind;  /* default FERRY_DEVICE_AUTO */
  int device_index;               /* for FERRY_DEVICE_CUDA; default 0, >= 0 (an index with no
                                     device: FERRY_ERR_NO_DEVICE at create) */
  int stream_count;               /* streams in the pool; default 4, 1..64 */
  int high_priority_streams;      /* non-zero: create the pool's streams at the highest priority */
  uint64_t pinned_cache_bytes;    /* cap on pinned bytes held (in use + cached); default 1 GiB */
  uint64_t pinned_prealloc_bytes; /* pinned bytes allocated at create; default 0 */
  int pinned_wait_at_cap;         /* non-zero (default): an allocation at the cap waits for
                                     in-flight blocks; zero: it fails with OUT_OF_MEMORY */
  uint64_t registry_cache_bytes;  /* cap on bytes kept registered by the cache; default 4 GiB */
  uint64_t device_cache_bytes;    /* cap on free device bytes kept cached; default 2 GiB */
  int staging_threads;            /* host copy threads; 0 (default) = from the machine's cores */
  int cpu_threads;                /* CPU backend conversion threads; 0 (default) = cores */
  uint64_t chunk_bytes;           /* pipeline chunk size of the uint8 input; 0 (default) = auto */
  int max_batches_in_flight;      /* default 4 */
  uint64_t max_staging_bytes;     /* pinned staging ring for pageable sources; default 256 MiB */
  int submit_nonblocking;         /* non-zero: submit returns FERRY_ERR_BUSY instead of waiting */
  /* --- 0.2 --- */
  uint64_t max_unreleased_batches; /* batches submitted and not yet released (each holds its
                                      output and bookkeeping); at the bound submit fails with
                                      FERRY_ERR_OUT_OF_MEMORY naming this option; default 1024,
                                      1..2^30 */
  ferry_pinned_method pinned_method; /* default FERRY_PINNED_REGISTER */
  /* --- 0.3 --- */
  int unused_0_2_padding; /* 0.2's tail padding, named so that a 0.2 struct_size stays distinct
                             from this layout's (every 0.3 field lies past it); ignored */
  ferry_device_timing device_timing; /* default FERRY_DEVICE_TIMING_AUTO */
} ferry_context_options;

FERRY_API ferry_status ferry_context_options_init(ferry_context_options* out, size_t struct_size);

/* Creates a context: everything ferry owns for one device (streams, pools,
 * caches, staging threads). options may be NULL for the defaults.
 * FERRY_DEVICE_CUDA on a machine without a driver or that GPU gives
 * FERRY_ERR_NO_DEVICE with the CUDA error in the message; it never falls back.
 * *out is the caller's to destroy with ferry_context_destroy. Thread-safe. */
FERRY_API ferry_status ferry_context_create(ferry_context_t* out, const ferry_context_options* options);

/* Waits for the context's batches in flight to finish, then frees everything
 * it owns; its batch handles become invalid (FERRY_ERR_INVALID_HANDLE), and
 * device and pinned memory it handed out is freed. NULL is accepted (FERRY_OK).
 * Thread-safe; calls racing on the same context see it destroyed once. */
FERRY_API ferry_status ferry_context_destroy(ferry_context_t ctx);

/* Which device the context got (AUTO resolves to CPU or CUDA). Thread-safe. */
FERRY_API ferry_status ferry_context_get_device(ferry_device_kind* out_kind, int* out_index,
                                                ferry_context_t ctx);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_CONTEXT_H */
