/* ferry: datasets that live on the device as uint8. Moved once through the
 * staging pipeline; every batch after that is a gather from device memory,
 * with the transform and augmentation of any batch, and no bus traffic.
 *
 * A dataset belongs to the context it was created on. Destroying the context
 * destroys its datasets: their handles answer FERRY_ERR_INVALID_HANDLE from
 * then on (destroying them is not needed, and gives that status). Every
 * function here is thread-safe; one dataset may be gathered from by several
 * threads at once. On the CPU backend the dataset lives in host memory and the
 * same calls convert on the CPU. */
#ifndef FERRY_DATASET_H
#define FERRY_DATASET_H

#include "ferry/batch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ferry_dataset_s* ferry_dataset_t;

/* Which samples of the source a dataset holds, for a job of several processes
 * (or contexts) each with its own rank in [0, world_size). */
typedef enum ferry_dataset_placement {
  /* Every sample. Each rank's epoch is its part of one permutation of the
   * whole set (DistributedSampler's rule, ferry_dataset_epoch). */
  FERRY_DATASET_REPLICA = 0,
  /* This rank's samples only: source samples rank, rank + world_size,
   * rank + 2 * world_size, ... over ceil(n / world_size) places, wrapping round
   * to the start where n is not a multiple of world_size (DistributedSampler's
   * padding). Each rank's epoch is a permutation of its shard. */
  FERRY_DATASET_SHARD = 1
} ferry_dataset_placement;

typedef struct ferry_dataset_options {
  size_t struct_size;
  ferry_dataset_placement placement; /* default REPLICA */
  int rank;                          /* 0 <= rank < world_size; default 0 */
  int world_size;                    /* >= 1; default 1 */
  /* The upload goes through the staging pipeline in batches of at most this
   * many source bytes (at least one sample each): a staging budget for a
   * source larger than the pinned ring. 0: 64 MiB. */
  uint64_t part_bytes;
  ferry_source_policy source_policy; /* as ferry_submit_options.source_policy */
} ferry_dataset_options;

FERRY_API ferry_status ferry_dataset_options_init(ferry_dataset_options* out, size_t struct_size);

typedef struct ferry_dataset_info {
  size_t struct_size;
  int64_t count;        /* samples held (a shard's, or every sample) */
  int64_t source_count; /* samples of the source it was built from */
  /* One size: every sample's; variable sizes: the largest sample's. */
  int64_t h, w, c;
  ferry_layout layout; /* the source's, kept: samples are stored packed in it */
  int variable_sizes;  /* built from source.sample_descs */
  uint64_t bytes;      /* memory held for the samples (device memory; host memory on the CPU backend) */
  ferry_device_kind device_kind;
  int device_index;
  ferry_dataset_placement placement;
  int rank, world_size;
  int64_t epoch_size;    /* the indices ferry_dataset_epoch gives: ceil(n / world_size) */
  double upload_seconds; /* wall time of the upload, in ferry_dataset_create */
} ferry_dataset_info;

FERRY_API ferry_status ferry_dataset_info_init(ferry_dataset_info* out, size_t struct_size);

/* Builds a dataset from `source` (one buffer, sample pointers, or
 * sample_descs for samples of different sizes; uint8, NHWC or NCHW; not a
 * frame format) and uploads the samples `options` places here through the
 * staging pipeline (pageable memory staged, pinned or registered memory by
 * DMA). Returns when the upload is complete: the source may be reused at
 * once. options may be NULL for the defaults. On a GPU, a set of 16 MB or
 * more sends its first samples (32 MB, or a 32nd of the set, at most a
 * quarter) into a block of the context's device cache while the set's memory
 * is allocated; the block stays cached afterwards for the context's other
 * work (ferry_memory_trim with FERRY_MEMORY_DEVICE gives it back).
 * Memory it cannot get is FERRY_ERR_OUT_OF_MEMORY, with the bytes needed and
 * the device's free bytes in the message; nothing is left held. */
FERRY_API ferry_status ferry_dataset_create(ferry_dataset_t* out, ferry_context_t ctx, const ferry_source* source,
                                            const ferry_dataset_options* options);

/* Gives the dataset's memory back once every gather that reads it has
 * completed (those in flight finish normally). NULL is accepted. */
FERRY_API ferry_status ferry_dataset_destroy(ferry_dataset_t dataset);

FERRY_API ferry_status ferry_dataset_get_info(ferry_dataset_info* out, ferry_dataset_t dataset);

/* *out = the source sample that the dataset's sample `index` holds
 * (0 <= index < count): `index` for a replica, a shard's rule otherwise.
 * For the labels a caller keeps beside its samples. */
FERRY_API ferry_status ferry_dataset_source_index(int64_t* out, ferry_dataset_t dataset, int64_t index);

/* One epoch's order for this rank: `count` (= info.epoch_size) dataset
 * indices, written to `out` (host memory).
 *  - shuffle 0: in order (a replica: rank, rank + world_size, ...; a shard:
 *    0 .. count - 1).
 *  - shuffle 1: a permutation drawn from (seed, epoch) by Philox4x32-10 keys,
 *    sorted: the same on every backend, every rank and every run. A replica
 *    takes places rank, rank + world_size, ... of one permutation of all n
 *    samples, padded by wrapping to a multiple of world_size, so the ranks of
 *    one epoch see every sample, none twice but the padding; a shard is
 *    permuted in itself.
 * Host work once per epoch (a sort of n keys), none per batch. */
FERRY_API ferry_status ferry_dataset_epoch(int64_t* out, int64_t count, ferry_dataset_t dataset, uint64_t seed,
                                           uint64_t epoch, int shuffle);

/* Gathers samples indices[0 .. n-1] (dataset indices, host memory; each
 * 0 <= index < count, checked before anything runs) into one batch and converts
 * them with `transform` (NULL: the defaults) in one kernel launch on the GPU,
 * into `output` or, with output NULL, memory from the context's device cache.
 * The batch is an ordinary ferry_batch_t (wait, query, hand-off, describe,
 * tensor references, release), as ferry_batch_submit's; it moves no bytes
 * over the bus. `options` (NULL: the defaults) gives the hand-off, priority
 * and callback; its source_policy and chunk_bytes must be 0 (a gather has no
 * host source). Samples of different sizes need a transform giving one output
 * size (resize, or a crop window). The indices may be reused once the call
 * returns. The dataset's memory lives until the batch completes, even when the
 * dataset is destroyed meanwhile. The context's gathers (of every dataset) run
 * one after another on one of its streams (of priority > 0: one of the high
 * tier's): a gather is one kernel, with nothing to overlap. */
FERRY_API ferry_status ferry_dataset_gather(ferry_batch_t* out, ferry_dataset_t dataset, const int64_t* indices,
                                            int64_t n, const ferry_transform* transform, const ferry_output* output,
                                            const ferry_submit_options* options);

/* ferry_dataset_gather with the indices in the context's memory (device
 * memory on CUDA, host memory on the CPU backend): an epoch's order kept on
 * the GPU is sliced batch by batch with no host copy of the indices. The
 * gather reads them when it runs: after the work queued on
 * options->handoff_stream before this call when there is a hand-off stream
 * (the stream that wrote them); without one they must be written before the
 * call. They must stay unchanged until the batch completes. They cannot be
 * checked before anything runs: an index outside 0 .. count-1 is clamped into
 * that range (the nearest sample is read, never memory outside the dataset),
 * on every backend alike. One size only: FERRY_ERR_UNSUPPORTED for samples of
 * different sizes (their geometry is planned on the host; gather those by host
 * indices). */
FERRY_API ferry_status ferry_dataset_gather_device(ferry_batch_t* out, ferry_dataset_t dataset,
                                                   const int64_t* indices, int64_t n,
                                                   const ferry_transform* transform, const ferry_output* output,
                                                   const ferry_submit_options* options);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_DATASET_H */
