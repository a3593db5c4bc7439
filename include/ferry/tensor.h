/* ferry: references to a batch's output that outlive the batch and its context.
 *
 * What a binding hands its users (a DLPack tensor, a Java or C# view) must
 * live by the user's rules: until the user lets go, not until the batch is
 * released or the context destroyed. A tensor reference gives that:
 *
 *   ferry_tensor_t t;
 *   ferry_tensor_retain(&t, batch);          // the output now lives until t goes
 *   ferry_batch_release(batch);
 *   ferry_context_destroy(ctx);              // everything else is freed
 *   ... read the output (after a wait or hand-off made before) ...
 *   ferry_tensor_release(t);                 // the output's memory goes back
 *
 * Every function here is thread-safe; a reference may be released from any
 * thread, and never blocks. */
#ifndef FERRY_TENSOR_H
#define FERRY_TENSOR_H

#include "ferry/batch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ferry_tensor_s* ferry_tensor_t;

/* A new reference to the batch's output (one per call; each is released
 * exactly once). The output memory stays valid until the last reference and
 * the batch are released, whichever comes last, even when the context is
 * destroyed meanwhile. Read the data only after ferry_batch_wait, or on a
 * stream made to wait by ferry_batch_handoff or the hand-off stream, as
 * for ferry_batch_describe_output. When the last owner lets go, ferry-allocated memory
 * goes back to the context's device cache in stream order (after the batch's
 * work and after every stream made to wait for the batch: those streams must
 * still exist then); once the context is destroyed, back to the system. A
 * caller's own output (ferry_output) stays the caller's: the reference
 * describes it, and the caller keeps it alive.
 * Errors: FERRY_ERR_INVALID_HANDLE for a released batch or one whose context
 * is destroyed. */
FERRY_API ferry_status ferry_tensor_retain(ferry_tensor_t* out, ferry_batch_t batch);

/* The referenced output's pointer, device, shape, strides and dtype (as
 * ferry_batch_describe_output gave them). out->struct_size must be set
 * (ferry_tensor_info_init). Valid until the reference is released. */
FERRY_API ferry_status ferry_tensor_describe(ferry_tensor_info* out, ferry_tensor_t tensor);

/* Releases a reference; never blocks. NULL is accepted; a second release of
 * the same reference gives FERRY_ERR_INVALID_HANDLE. */
FERRY_API ferry_status ferry_tensor_release(ferry_tensor_t tensor);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_TENSOR_H */
