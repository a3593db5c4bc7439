/* ferry: pinned host memory, host registration, device memory.
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
 * give back with ferry_memory_free_host or ferry_memory_free_host_on_stream. */
FERRY_API ferry_status ferry_memory_alloc_host(void** out, ferry_context_t ctx, size_t bytes);
/* Gives a pinned block back; it may be reused at once: the caller
 * guarantees no GPU work still reads or writes it. ptr NULL: FERRY_OK, nothing done. */
FERRY_API ferry_status ferry_memory_free_host(ferry_context_t ctx, void* ptr);
/* Gives a pinned block back that work queued on `stream` may still use; it is
 * reused only after that work completes (an event, never a device sync).
 * ptr NULL: FERRY_OK, nothing done. */
FERRY_API ferry_status ferry_memory_free_host_on_stream(ferry_context_t ctx, void* ptr,
                                                        ferry_cuda_stream stream);

/* Registers a caller's pageable buffer (cudaHostRegister) so copies from it
 * run at pinned speed. The registration stays until ferry_memory_unregister_host or
 * the context is destroyed; it does not count against the cache's cap and is
 * never evicted. A range that overlaps an existing explicit registration gives
 * FERRY_ERR_ALREADY_EXISTS. Cached (implicit) registrations that overlap it
 * are dropped first.
 * Before freeing a registered buffer the caller must unregister it (or destroy
 * the context) and must have waited for every batch that reads it: freeing a
 * registered buffer is undefined behaviour in CUDA. The same holds for buffers
 * the pipeline registered implicitly (FERRY_SOURCE_REGISTER): call
 * ferry_memory_unregister_host on them before freeing. On the CPU backend the range
 * is only recorded. */
FERRY_API ferry_status ferry_memory_register_host(ferry_context_t ctx, const void* ptr, size_t bytes);
/* Unregisters the registration (explicit or cached) that starts at ptr.
 * Not registered: FERRY_ERR_NOT_FOUND. */
FERRY_API ferry_status ferry_memory_unregister_host(ferry_context_t ctx, const void* ptr);

/* Device memory from the context's caching, stream-ordered allocator (host
 * memory on the CPU backend). The block is usable at once on `stream`; work on
 * other streams must be ordered after `stream` by the caller. Alignment: 256. */
FERRY_API ferry_status ferry_memory_alloc_device(void** out, ferry_context_t ctx, size_t bytes,
                                                 ferry_cuda_stream stream);
/* Gives a block back in stream order: reusable at once on `stream`, on other
 * streams once the work queued on `stream` so far has completed.
 * ptr NULL: FERRY_OK, nothing done. */
FERRY_API ferry_status ferry_memory_free_device(ferry_context_t ctx, void* ptr, ferry_cuda_stream stream);

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

#ifdef __cplusplus
}
#endif

#endif /* FERRY_MEMORY_H */
