// What devices there are. Pure interface: the CUDA build implements it in
// core/device/cuda/device_query_cuda.cpp, the CPU-only build in
// core/device_query_cpu_only.cpp (no CUDA devices, ever).
#pragma once

#include <cstdint>

namespace ferry::core {

// One CUDA device as the C ABI's DeviceProperties describes it.
struct DeviceProperties {
  char name[256] = {};
  int index = 0;
  int compute_capability_major = 0, compute_capability_minor = 0;
  std::uint64_t total_memory_bytes = 0;
  int multiprocessor_count = 0;
  int async_engine_count = 0;  // copy engines
  int pci_domain_id = -1, pci_bus_id = -1, pci_device_id = -1;
  int numa_node = -1;        // -1 where unknown
  int pcie_generation = -1;  // current link generation, -1 where unknown
  int pcie_link_width = -1;  // current lanes, -1 where unknown
};

// CUDA devices usable here; 0 without a driver or GPU (never throws).
int cuda_device_count() noexcept;

// Fills `out` for CUDA device `device`.
// Throws Status::OutOfRange for an index outside [0, count),
// Status::NoDevice when there is no driver or GPU at all.
void cuda_device_properties(DeviceProperties& out, int device);

// Checks that CUDA device `device` works (creates its primary context).
// Throws Status::NoDevice naming the CUDA error when it does not.
void open_cuda_device(int device);

}  // namespace ferry::core
