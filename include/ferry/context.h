/* ferry: devices and contexts. */
#ifndef FERRY_CONTEXT_H
#define FERRY_CONTEXT_H

#include "ferry/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ferry_context_s* ferry_context_t;

typedef enum ferry_device_kind {
  FERRY_DEVICE_AUTO = 0, /* the first working CUDA device, else the CPU */
  FERRY_DEVICE_CPU = 1,
  FERRY_DEVICE_CUDA = 2
} ferry_device_kind;

/* Number of CUDA devices ferry can use. 0 (and FERRY_OK) where there is no
 * driver or no GPU: that is not an error. Thread-safe. */
FERRY_API ferry_status ferry_device_count(int* out);

typedef struct ferry_device_properties {
  size_t struct_size;
  char name[256];
  int index;
  int compute_capability_major;
  int compute_capability_minor;
  uint64_t total_memory_bytes;
  int multiprocessor_count;
  int async_engine_count; /* copy engines */
  int pci_domain_id;      /* -1 where the driver does not tell */
  int pci_bus_id;
  int pci_device_id;
  int numa_node;          /* -1 where unknown */
  int pcie_generation;    /* current link generation, -1 where unknown */
  int pcie_link_width;    /* current lanes, -1 where unknown */
} ferry_device_properties;

FERRY_API ferry_status ferry_device_properties_init(ferry_device_properties* out, size_t struct_size);
/* Properties of CUDA device `device` (0 <= device < ferry_device_count).
 * out->struct_size must be set (ferry_device_properties_init). Thread-safe. */
FERRY_API ferry_status ferry_device_get_properties(ferry_device_properties* out, int device);

typedef struct ferry_context_options {
  size_t struct_size;
  ferry_device_kind device_kind;  /* default FERRY_DEVICE_AUTO */
  int device_index;               /* for FERRY_DEVICE_CUDA; default 0 */
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
FERRY_API ferry_status ferry_context_device(ferry_device_kind* out_kind, int* out_index,
                                            ferry_context_t ctx);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_CONTEXT_H */
