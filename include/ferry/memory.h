/* ferry: pinned host memory, host registration, device memory, statistics.
 * All functions here are thread-safe. */
#ifndef FERRY_MEMORY_H
#define FERRY_MEMORY_H

#include "ferry/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pinned (page-locked) host memory from the context's caching pool, so an
 * engine can write frames straight into memory the GPU copies from at full
 * speed. On the CPU backend: aligned host memory. Alignment: 256 bytes.
 * Zero bytes or a size over the cap gives an error. *out is the caller's to
 * give back with ferry_host_free or ferry_host_free_on_stream. */
FERRY_API ferry_status ferry_host_alloc(void** out, ferry_context_t ctx, size_t bytes);
/* Gives a pinned block back; it may be reused at once: the caller
 * guarantees no GPU work still reads or writes it. ptr NULL: FERRY_OK, nothing done. */
FERRY_API ferry_status ferry_host_free(ferry_context_t ctx, void* ptr);
/* Gives a pinned block back that work queued on `stream` may still use; it is
 * reused only after that work completes (an event, never a device sync).
 * ptr NULL: FERRY_OK, nothing done. */
FERRY_API ferry_status ferry_host_free_on_stream(ferry_context_t ctx, void* ptr, void* stream);

/* Registers a caller's pageable buffer (cudaHostRegister) so copies from it
 * run at pinned speed. The registration stays until ferry_host_unregister or
 * the context is destroyed; it does not count against the cache's cap and is
 * never evicted. A range that overlaps an existing explicit registration gives
 * FERRY_ERR_ALREADY_EXISTS. Cached (implicit) registrations that overlap it
 * are dropped first.
 * Before freeing a registered buffer the caller must unregister it (or destroy
 * the context) and must have waited for every batch that reads it: freeing a
 * registered buffer is undefined behaviour in CUDA. The same holds for buffers
 * the pipeline registered implicitly (FERRY_SOURCE_REGISTER): call
 * ferry_host_unregister on them before freeing. On the CPU backend the range
 * is only recorded. */
FERRY_API ferry_status ferry_host_register(ferry_context_t ctx, const void* ptr, size_t bytes);
/* Unregisters the registration (explicit or cached) that starts at ptr.
 * Not registered: FERRY_ERR_NOT_FOUND. */
FERRY_API ferry_status ferry_host_unregister(ferry_context_t ctx, const void* ptr);

/* Device memory from the context's caching, stream-ordered allocator (host
 * memory on the CPU backend). The block is usable at once on `stream`; work on
 * other streams must be ordered after `stream` by the caller. Alignment: 256. */
FERRY_API ferry_status ferry_device_alloc(void** out, ferry_context_t ctx, size_t bytes, void* stream);
/* Gives a block back in stream order: reusable at once on `stream`, on other
 * streams once the work queued on `stream` so far has completed.
 * ptr NULL: FERRY_OK, nothing done. */
FERRY_API ferry_status ferry_device_free(ferry_context_t ctx, void* ptr, void* stream);

/* Bit set for ferry_memory_trim. */
typedef enum ferry_memory_kind {
  FERRY_MEMORY_PINNED = 1,
  FERRY_MEMORY_REGISTERED = 2, /* the cache's implicit registrations only */
  FERRY_MEMORY_DEVICE = 4,
  FERRY_MEMORY_ALL = 7
} ferry_memory_kind;

/* Gives cached, unused blocks of the kinds in `kinds` back to the system.
 * Blocks in use or still waiting on GPU work stay. */
FERRY_API ferry_status ferry_memory_trim(ferry_context_t ctx, unsigned kinds);

typedef struct ferry_stats {
  size_t struct_size;
  /* pinned host pool */
  uint64_t pinned_in_use_bytes, pinned_cached_bytes, pinned_peak_bytes;
  uint64_t pinned_hits, pinned_misses;
  /* registration cache and explicit registrations */
  uint64_t registered_bytes, registered_peak_bytes;
  uint64_t registry_hits, registry_misses;
  /* caching device allocator */
  uint64_t device_in_use_bytes, device_cached_bytes, device_peak_bytes;
  uint64_t device_hits, device_misses;
  /* the underlying CUDA calls (0 on the CPU backend) */
  uint64_t cuda_malloc_calls, cuda_malloc_ns;
  uint64_t cuda_host_alloc_calls, cuda_host_alloc_ns;
  uint64_t cuda_host_register_calls, cuda_host_register_ns;
  /* the staging pipeline */
  uint64_t batches_submitted, batches_completed, batches_failed;
  uint64_t input_bytes, output_bytes;
  uint64_t staging_ns; /* host gather copies, summed over threads */
  uint64_t h2d_ns;     /* copies, summed over chunks (GPU time) */
  uint64_t convert_ns; /* kernels, summed over chunks (GPU or CPU time) */
  uint64_t busy_ns;    /* wall time with at least one batch in flight */
  double input_gbps;   /* input_bytes / busy time */
  /* --- 0.2 --- */
  uint64_t batches_unreleased; /* submitted, not yet released (bounded by max_unreleased_batches) */
} ferry_stats;

FERRY_API ferry_status ferry_stats_init(ferry_stats* out, size_t struct_size);
/* A snapshot of the context's counters. out->struct_size must be set. */
FERRY_API ferry_status ferry_context_stats(ferry_stats* out, ferry_context_t ctx);
/* Sets the counters (not the byte gauges) back to zero. */
FERRY_API ferry_status ferry_context_reset_stats(ferry_context_t ctx);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_MEMORY_H */
