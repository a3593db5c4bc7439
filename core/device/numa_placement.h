// NumaPlacement: where a context's host side runs on a machine of several
// NUMA nodes. The staging threads copy pageable sources into pinned memory,
// and the GPU's DMA reads that pinned memory: both belong on the node the GPU
// hangs off, or every byte crosses the link between the sockets twice. On a
// machine of one node nothing is placed.
//
// Read from sysfs (a root other than /sys fakes a topology for tests). Pure
// host code, no CUDA: the GPU's node comes from the device query.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::core {

struct NumaPlacement {
  int node = -1;          // the GPU's node; -1: nothing placed (one node, or unknown)
  std::vector<int> cpus;  // that node's CPUs this process may use; empty: threads stay unbound
  bool placed() const noexcept { return node >= 0; }
};

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}; empty for text that is not such a list.
std::vector<int> parse_cpu_list(std::string_view text);

// The placement for a GPU on `gpu_node` (-1: unknown): the node and its CPUs
// (<sysfs_root>/devices/system/node/node<N>/cpulist, intersected with the CPUs
// this process may run on), when <sysfs_root>/devices/system/node/online lists
// more than one node and gpu_node among them; else nothing. Never throws.
NumaPlacement numa_placement_for(int gpu_node, const std::string& sysfs_root = "/sys") noexcept;

// Binds the calling thread to placement.cpus (nothing when empty). Best
// effort: a refusal (a container's cpuset) leaves the thread where it was.
void bind_this_thread(const NumaPlacement& placement) noexcept;

// Asks the kernel to back [addr, addr + bytes) (page-aligned, not yet
// touched) from `node` first (MPOL_PREFERRED: another node when it is full).
// Best effort; nothing for node < 0.
void prefer_node(void* addr, std::size_t bytes, int node) noexcept;

}  // namespace ferry::core
