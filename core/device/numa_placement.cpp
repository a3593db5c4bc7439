#include "core/device/numa_placement.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ferry::core {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool parse_int(std::string_view s, int& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0;
}

// The CPUs this process may run on (all of them where that cannot be asked).
std::vector<int> allowed_cpus(const std::vector<int>& wanted) {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return wanted;
  std::vector<int> allowed;
  for (int cpu : wanted)
    if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
  return allowed;
#else
  return wanted;
#endif
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<int> cpus;
  if (text.empty()) return cpus;
  constexpr int kMaxCpus = 1 << 16;  // sysfs lists are small; a huge range is garbage, not a machine
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t dash = item.find('-');
    int first = 0, last = 0;
    if (dash == std::string_view::npos) {
      if (!parse_int(item, first)) return {};
      last = first;
    } else if (!parse_int(item.substr(0, dash), first) || !parse_int(item.substr(dash + 1), last) || last < first) {
      return {};
    }
    if (last >= kMaxCpus) return {};
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

NumaPlacement numa_placement_for(int gpu_node, const std::string& sysfs_root) noexcept {
  try {
    if (gpu_node < 0) return {};
    const std::string nodes_dir = sysfs_root + "/devices/system/node";
    const std::vector<int> nodes = parse_cpu_list(read_file(nodes_dir + "/online"));
    if (nodes.size() < 2 || !std::binary_search(nodes.begin(), nodes.end(), gpu_node)) return {};
    NumaPlacement p;
    p.node = gpu_node;
    p.cpus = allowed_cpus(parse_cpu_list(read_file(nodes_dir + "/node" + std::to_string(gpu_node) + "/cpulist")));
    return p;
  } catch (...) {
    return {};  // out of memory reading a few bytes: run unplaced
  }
}

void bind_this_thread(const NumaPlacement& placement) noexcept {
#if defined(__linux__)
  if (placement.cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : placement.cpus)
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
  (void)placement;
#endif
}

void prefer_node(void* addr, std::size_t bytes, int node) noexcept {
#if defined(__linux__) && defined(SYS_mbind)
  if (node < 0 || addr == nullptr || bytes == 0) return;
  constexpr int kMpolPreferred = 1;  // <numaif.h>'s MPOL_PREFERRED, without linking libnuma
  constexpr unsigned long kBitsPerWord = 8 * sizeof(unsigned long);
  unsigned long mask[16] = {};  // 1024 nodes, the kernel's own limit
  if (static_cast<unsigned long>(node) >= 16 * kBitsPerWord) return;
  mask[static_cast<unsigned long>(node) / kBitsPerWord] = 1ul << (static_cast<unsigned long>(node) % kBitsPerWord);
  // maxnode counts bits, and the kernel reads one fewer than it is told.
  (void)syscall(SYS_mbind, addr, bytes, kMpolPreferred, mask, 16 * kBitsPerWord + 1, 0);
#else
  (void)addr, (void)bytes, (void)node;
#endif
}

}  // namespace ferry::core
