// NUMA placement from a faked sysfs: the CPU lists it reads, when a GPU's node
// is placed and when not, and a Stager whose threads run where the placement
// says (checked from its completion thread and its staging pool's workers).
#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/context_options.h"
#include "core/convert/converter.h"
#include "core/device/host_runtime.h"
#include "core/device/numa_placement.h"
#include "core/memory/memory_system.h"
#include "core/pipeline_counters.h"
#include "core/stage/stager.h"
#include "core/thread_pool.h"

namespace {

namespace fs = std::filesystem;
using ferry::core::NumaPlacement;
using ferry::core::numa_placement_for;
using ferry::core::parse_cpu_list;

// A sysfs tree with the given nodes online and each node's CPU list.
class FakeSysfs {
 public:
  FakeSysfs(const std::string& online, const std::vector<std::pair<int, std::string>>& cpulists) {
    root_ = fs::temp_directory_path() / ("ferry-sysfs-" + std::to_string(getpid()) + "-" + std::to_string(++count_));
    const fs::path nodes = root_ / "devices/system/node";
    fs::create_directories(nodes);
    std::ofstream(nodes / "online") << online << "\n";
    for (const auto& [node, cpus] : cpulists) {
      fs::create_directories(nodes / ("node" + std::to_string(node)));
      std::ofstream(nodes / ("node" + std::to_string(node)) / "cpulist") << cpus << "\n";
    }
  }
  ~FakeSysfs() { fs::remove_all(root_); }
  std::string root() const { return root_.string(); }

 private:
  static inline int count_ = 0;
  fs::path root_;
};

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::set<int> this_threads_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
  std::set<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.insert(c);
  return cpus;
}

// How many of this process's threads may run on `cpu` alone (/proc/self/task/*/status).
int threads_bound_to(int cpu) {
  int bound = 0;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("Cpus_allowed_list:", 0) == 0) {
        const std::string list = line.substr(line.find(':') + 1);
        if (parse_cpu_list(list.substr(list.find_first_not_of(" \t"))) == std::vector<int>{cpu}) ++bound;
      }
  }
  return bound;
}

TEST(NumaPlacement, ParsesSysfsCpuLists) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list("2,1,1-2"), (std::vector<int>{1, 2}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("\n").empty());
  EXPECT_TRUE(parse_cpu_list("3-1").empty());
  EXPECT_TRUE(parse_cpu_list("a-b").empty());
  EXPECT_TRUE(parse_cpu_list("1,,2").empty());
  EXPECT_TRUE(parse_cpu_list("-1").empty());
  EXPECT_TRUE(parse_cpu_list("0-99999999").empty()) << "a range no machine has is garbage";
}

TEST(NumaPlacement, PlacesOnTheGpusNodeOnlyWhereThereAreSeveral) {
  const std::vector<int> allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  const int last = allowed.back();
  FakeSysfs two("0-1", {{0, "0"}, {1, std::to_string(last)}});
  const NumaPlacement p = numa_placement_for(1, two.root());
  EXPECT_TRUE(p.placed());
  EXPECT_EQ(p.node, 1);
  EXPECT_EQ(p.cpus, std::vector<int>{last});

  // A node of CPUs this process may not use: memory is placed, threads stay unbound.
  FakeSysfs foreign("0-1", {{0, "0"}, {1, "100000"}});
  const NumaPlacement q = numa_placement_for(1, foreign.root());
  EXPECT_EQ(q.node, 1);
  EXPECT_TRUE(q.cpus.empty());

  FakeSysfs one("0", {{0, "0-3"}});
  EXPECT_FALSE(numa_placement_for(0, one.root()).placed()) << "one node: nothing to choose";
  EXPECT_FALSE(numa_placement_for(-1, two.root()).placed()) << "the GPU's node is unknown";
  EXPECT_FALSE(numa_placement_for(3, two.root()).placed()) << "a node that is not online";
  EXPECT_FALSE(numa_placement_for(0, "/nonexistent-sysfs").placed());
}

TEST(NumaPlacement, ThreadPoolWorkersRunTheStartHook) {
  std::atomic<int> started{0};
  {
    ferry::core::ThreadPool pool(4, [&] { started.fetch_add(1); });
    std::atomic<int> covered{0};
    pool.parallel_for(0, 64, [&](std::int64_t b, std::int64_t e) { covered.fetch_add(static_cast<int>(e - b)); });
    EXPECT_EQ(covered.load(), 64);
  }  // joined: every worker has started by now
  EXPECT_EQ(started.load(), 3) << "every worker (the caller is not one)";
}

// The staged pipeline on the host runtime with a placement on one CPU: its
// completion thread (where callbacks run) and its staging workers are bound there.
TEST(NumaPlacement, StagerThreadsRunOnThePlacedCpus) {
  using namespace ferry::core;
  const std::vector<int> allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  const int cpu = allowed.back();
  ContextOptions options;
  options.device_kind = DeviceKind::Cpu;
  options.staging_threads = 3;
  auto runtime = std::make_shared<HostRuntime>();
  MemorySystem memory(runtime, options);
  Converter converter(memory, 1);
  PipelineCounters counters;
  Stager::Parts parts;
  parts.kind = DeviceKind::Cpu;
  parts.options = options;
  parts.memory = &memory;
  parts.converter = &converter;
  parts.counters = &counters;
  parts.convert_on_host = false;
  parts.placement.node = 1;
  parts.placement.cpus = {cpu};
  Stager stager(std::move(parts));
  EXPECT_EQ(stager.placement().node, 1);

  // 64 samples of 64 KiB: staged in chunks by the staging pool's threads.
  std::vector<std::uint8_t> pixels(64 * 128 * 128 * 4, 7);
  SourceDesc source;
  source.data = pixels.data();
  source.bytes = pixels.size();
  source.n = 64, source.h = 128, source.w = 128, source.c = 4;
  Transform transform;
  transform.out_dtype = DType::UInt8;
  transform.out_layout = Layout::NHWC;
  SubmitOptions submit;
  submit.chunk_bytes = 64 << 10;
  std::set<int> callback_cpus;
  std::atomic<bool> called{false};
  submit.on_complete = [&](ferry::Status) {
    callback_cpus = this_threads_cpus();
    called = true;
  };
  auto batch = stager.prepare(source, transform, nullptr, submit);
  stager.launch(batch);
  stager.wait(*batch);
  for (int i = 0; i < 100000 && !called; ++i) usleep(100);  // up to 10 s: a loaded 2-core CI machine
  ASSERT_TRUE(called.load());
  EXPECT_EQ(callback_cpus, std::set<int>{cpu}) << "the completion thread is bound to the node's CPUs";
  stager.release(*batch);
  EXPECT_GE(threads_bound_to(cpu), 4) << "the staging thread, its pool's 2 workers and the completion thread";
}

}  // namespace
