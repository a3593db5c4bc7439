/* ferry: the staging pipeline. A host batch in, a converted device tensor out.
 *
 * ferry_batch_submit returns at once; the work (host staging, H2D copies,
 * conversion) runs asynchronously in chunks that overlap. A batch handle is
 * the caller's to release exactly once with ferry_batch_release. Every
 * function here is thread-safe; one batch may be waited on from several
 * threads at once.
 *
 * Destroying the context (ferry_context_destroy) with batches in flight is
 * allowed: it waits for them to finish, then gives back their memory; their
 * handles answer FERRY_ERR_INVALID_HANDLE from then on (releasing them is
 * not needed, and gives that status), and output pointers ferry allocated
 * must not be used any more, unless a tensor reference holds them
 * (ferry_tensor_retain, ferry/tensor.h). A thread blocked in
 * ferry_batch_wait meanwhile returns a status. */
#ifndef FERRY_BATCH_H
#define FERRY_BATCH_H

#include "ferry/transform.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ferry_batch_s* ferry_batch_t;

/* Called once, from a ferry thread, when the batch has completed or failed
 * (only for batches whose submit returned FERRY_OK), never under a ferry lock.
 * It must not block for long and must not release the batch it is given
 * (release it later, from any other thread or after wait). It may call ferry
 * (query, output, submit: a submit from a callback never blocks, it returns
 * FERRY_ERR_BUSY at the in-flight limit), but must not wait for another batch
 * nor destroy the context. */
typedef void (*ferry_batch_callback)(ferry_batch_t batch, ferry_status status, void* user_data);

typedef enum ferry_source_policy {
  FERRY_SOURCE_AUTO = 0,     /* pinned/registered memory is copied directly; pageable is staged */
  FERRY_SOURCE_STAGE = 1,    /* always gather through the pinned staging ring */
  FERRY_SOURCE_REGISTER = 2  /* pageable buffers go through the registration cache (for buffers
                                the caller reuses); see ferry_memory_register_host on freeing them.
                                A buffer the cache declines (one sharing a page with another
                                registration, e.g. small separate samples) is staged instead */
} ferry_source_policy;

typedef struct ferry_submit_options {
  size_t struct_size;
  /* A hand-off is asked for by has_handoff_stream, and by nothing else.
   * Non-zero: handoff_stream (NULL is the legacy default stream) waits for
   * the batch (an event, no host sync). Work the caller queues on the stream
   * after submit returns sees the finished output. The hand-off does not put
   * the transfer behind the stream's queue: the batch's H2D copies, and its
   * conversions into an output ferry allocates, never wait for work queued on
   * the stream before submit (so a model still running on the stream hides
   * the transfer). Only writes into a caller's destination (`out`) start
   * after that work, since the stream may still read the destination being
   * overwritten (so it may be submitted again at once). For a staged
   * (pageable) source this makes submit wait on the host until every chunk is
   * staged and queued (CUDA can only wait on events already recorded); the
   * copies and kernels still run asynchronously.
   * Zero (the default): no hand-off, and handoff_stream must be NULL: a
   * stream without the switch is FERRY_ERR_INVALID_ARGUMENT (naming both
   * fields), never silently used or ignored. */
  ferry_cuda_stream handoff_stream;
  int has_handoff_stream;
  int priority;           /* 0 normal; > 0 runs on the high-priority streams when the pool has them */
  ferry_source_policy source_policy;
  uint64_t chunk_bytes;   /* 0: the context's value */
  ferry_batch_callback callback;
  void* user_data;
} ferry_submit_options;

FERRY_API ferry_status ferry_submit_options_init(ferry_submit_options* out, size_t struct_size);

/* Submits a batch. `output` NULL: the output is allocated from the context's
 * device cache and given back, in stream order, at ferry_batch_release.
 * transform and options may be NULL for the defaults. The source memory must
 * stay unchanged until ferry_batch_query_source says so (or wait returns).
 * Beyond the context's in-flight limits this blocks, or returns FERRY_ERR_BUSY
 * when the context was created with submit_nonblocking. */
FERRY_API ferry_status ferry_batch_submit(ferry_batch_t* out, ferry_context_t ctx,
                                          const ferry_source* source,
                                          const ferry_transform* transform,
                                          const ferry_output* output,
                                          const ferry_submit_options* options);

/* Blocks until the batch completes; returns its status (FERRY_OK, or the
 * error that failed it, message included). */
FERRY_API ferry_status ferry_batch_wait(ferry_batch_t batch);
/* Never blocks: FERRY_OK when complete, FERRY_ERR_NOT_READY while in flight,
 * or the error that failed it. */
FERRY_API ferry_status ferry_batch_query(ferry_batch_t batch);
/* Makes `stream` wait for the batch's output on the device (an event; no host
 * sync; for a staged batch the call waits on the host until every chunk is
 * queued). On the CPU backend it waits on the host. The hand-off stream and
 * streams given here must still exist at ferry_batch_release: a ferry-allocated
 * output goes back to the cache in their order too. With one such stream, the
 * output goes back in that stream's order alone: no stream of ferry's is made
 * to wait for the caller's work queued there, so the batches submitted after
 * a release are not held behind it. */
FERRY_API ferry_status ferry_batch_handoff(ferry_batch_t batch, ferry_cuda_stream stream);
/* *out = 1 once the host source may be overwritten (after the staging copy
 * for a pageable source, after the DMA for a pinned or registered one), else 0. */
FERRY_API ferry_status ferry_batch_query_source(int* out, ferry_batch_t batch);
/* Blocks until the source may be overwritten. */
FERRY_API ferry_status ferry_batch_wait_source(ferry_batch_t batch);
/* The output's pointer, shape, strides and dtype. Valid before completion
 * (the pointer is fixed at submit); read the data only after wait or a
 * hand-off. Valid until release. */
FERRY_API ferry_status ferry_batch_describe_output(ferry_tensor_info* out, ferry_batch_t batch);
/* Releases the handle. If the batch is still in flight its memory is given
 * back when the work completes; ferry-allocated output goes back to the device
 * cache in stream order, so the data pointer must not be used afterwards
 * (unless a tensor reference holds it: ferry/tensor.h). After a wait or query
 * that returned FERRY_OK the output goes back at once, so the next submit can
 * reuse it. Never blocks.
 * NULL is accepted; a second release gives FERRY_ERR_INVALID_HANDLE. */
FERRY_API ferry_status ferry_batch_release(ferry_batch_t batch);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_BATCH_H */
