/* ferry: a context's statistics: the gauges and counters of its memory pools,
 * its registrations and its staging pipeline, in one snapshot. A header of
 * its own because the counters come from every module (memory.h, batch.h)
 * and grow with them, while context.h stays about creating a context.
 * All functions here are thread-safe. */
#ifndef FERRY_STATS_H
#define FERRY_STATS_H

#include "ferry/context.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  uint64_t h2d_ns;     /* copies, summed over the timed chunks (GPU time; timed_chunks below) */
  uint64_t convert_ns; /* kernels, summed over the timed chunks (GPU or CPU time) */
  uint64_t busy_ns;    /* wall time with at least one batch in flight */
  double input_gbps;   /* input_bytes / busy time */
  /* --- 0.2 --- */
  uint64_t batches_unreleased; /* submitted, not yet released (bounded by max_unreleased_batches) */
  /* Where the host side runs on a machine of several NUMA nodes: the node the
   * GPU hangs off, which the staging and completion threads are bound to and
   * the pinned pool's memory comes from; -1 where nothing was placed (one
   * node, the CPU backend, or a node sysfs does not tell). numa_cpus: how many
   * CPUs those threads are bound to (0: unbound, e.g. a cpuset without any of
   * the node's CPUs). */
  int numa_node;
  int numa_cpus;
  /* --- 0.3 --- */
  /* Memory held by resident datasets (ferry/dataset.h) and how many there are:
   * device memory, or host memory on the CPU backend. A gauge: not reset. */
  uint64_t resident_bytes;
  uint64_t resident_datasets;
  /* The chunks h2d_ns and convert_ns cover: every chunk on the CPU backend,
   * those ferry_context_options.device_timing chose on a GPU. Their means
   * per chunk are h2d_ns / timed_chunks and convert_ns / timed_chunks. */
  uint64_t timed_chunks;
} ferry_stats;

FERRY_API ferry_status ferry_stats_init(ferry_stats* out, size_t struct_size);
/* A snapshot of the context's gauges and counters. out->struct_size must be
 * set (ferry_stats_init). */
FERRY_API ferry_status ferry_stats_get(ferry_stats* out, ferry_context_t ctx);
/* Sets the context's counters (not the byte gauges) back to zero. */
FERRY_API ferry_status ferry_stats_reset(ferry_context_t ctx);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_STATS_H */
