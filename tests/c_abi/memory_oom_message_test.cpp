// Out-of-memory messages name what failed (issue 18, finding 6): on the CPU
// backend "device" and pinned memory are host memory, and no CUDA call is made.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ferry/ferry.h"

namespace {

ferry_context_options cpu_options() {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 1;
  return o;
}

void expect_host_memory_named(const std::string& message) {
  EXPECT_NE(message.find("aligned host memory (CPU backend) failed"), std::string::npos) << message;
  EXPECT_EQ(message.find("cuda"), std::string::npos) << message;
  EXPECT_EQ(message.find("page-lock"), std::string::npos) << message;
}

}  // namespace

TEST(MemoryOomMessage, DeviceAllocOnTheCpuBackendNamesHostMemory) {
  const ferry_context_options o = cpu_options();
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  void* p = nullptr;
  EXPECT_EQ(ferry_memory_alloc_device(&p, ctx, std::size_t{1} << 50, nullptr), FERRY_ERR_OUT_OF_MEMORY);
  expect_host_memory_named(ferry_last_error());
  ferry_context_destroy(ctx);
}

TEST(MemoryOomMessage, PinnedPreallocOnTheCpuBackendNamesHostMemory) {
  ferry_context_options o = cpu_options();
  o.pinned_cache_bytes = o.pinned_prealloc_bytes = std::uint64_t{1} << 50;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_OUT_OF_MEMORY);
  expect_host_memory_named(ferry_last_error());
}
