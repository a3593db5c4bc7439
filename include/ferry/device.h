/* ferry: the CUDA devices ferry can use. All functions here are thread-safe. */
#ifndef FERRY_DEVICE_H
#define FERRY_DEVICE_H

#include "ferry/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ferry_device_kind {
  FERRY_DEVICE_AUTO = 0, /* the first working CUDA device, else the CPU */
  FERRY_DEVICE_CPU = 1,
  FERRY_DEVICE_CUDA = 2
} ferry_device_kind;

/* Number of CUDA devices ferry can use. 0 (and FERRY_OK) where there is no
 * driver or no GPU: that is not an error. */
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
 * out->struct_size must be set (ferry_device_properties_init). */
FERRY_API ferry_status ferry_device_get_properties(ferry_device_properties* out, int device);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_DEVICE_H */
