// ferry/memory.h through the C ABI on the CPU backend: real allocations, bad input.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "c_api/struct_versions.h"
#include "ferry/ferry.h"

namespace {

class MemoryApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ferry_context_options o;
    ASSERT_EQ(ferry_context_options_init(&o, sizeof o), FERRY_OK);
    o.device_kind = FERRY_DEVICE_CPU;
    o.pinned_cache_bytes = 64u << 20;
    o.pinned_wait_at_cap = 0;
    o.max_staging_bytes = 8u << 20;  // the staging ring comes out of the pinned cap
    customize(o);
    ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  }
  void TearDown() override { EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK); }
  virtual void customize(ferry_context_options&) {}
  static std::string error() { return ferry_last_error(); }
  ferry_stats stats() {
    ferry_stats s;
    EXPECT_EQ(ferry_stats_init(&s, sizeof s), FERRY_OK);
    EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_OK) << error();
    return s;
  }
  ferry_context_t ctx = nullptr;
};

TEST_F(MemoryApiTest, HostAllocIsRealAlignedMemoryAndIsReused) {
  void* p = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&p, ctx, 1000), FERRY_OK) << error();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u);
  std::memset(p, 0xab, 1000);
  ASSERT_EQ(ferry_memory_free_host(ctx, p), FERRY_OK);
  void* q = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&q, ctx, 1000), FERRY_OK);
  EXPECT_EQ(q, p);
  ASSERT_EQ(ferry_memory_free_host_on_stream(ctx, q, nullptr), FERRY_OK);  // CPU: complete already
  const ferry_stats s = stats();
  EXPECT_EQ(s.pinned_hits, 1u);
  EXPECT_EQ(s.pinned_misses, 1u);
  EXPECT_EQ(s.pinned_in_use_bytes, 0u);
  EXPECT_EQ(s.pinned_cached_bytes, 2u << 20);
  EXPECT_EQ(s.pinned_peak_bytes, 1024u);
  EXPECT_EQ(s.cuda_host_alloc_calls, 0u);  // no CUDA on the CPU backend
}

TEST_F(MemoryApiTest, DeviceAllocOnTheCpuIsHostMemory) {
  void* p = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&p, ctx, 3u << 20, nullptr), FERRY_OK) << error();
  std::memset(p, 1, 3u << 20);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u);
  EXPECT_EQ(stats().device_in_use_bytes, 3u << 20);
  ASSERT_EQ(ferry_memory_free_device(ctx, p, reinterpret_cast<ferry_cuda_stream>(0x1234)), FERRY_OK);  // streams ignored
  void* q = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&q, ctx, 3u << 20, reinterpret_cast<ferry_cuda_stream>(0x999)), FERRY_OK);
  EXPECT_EQ(q, p);
  ASSERT_EQ(ferry_memory_free_device(ctx, q, nullptr), FERRY_OK);
  ASSERT_EQ(ferry_memory_trim(ctx, FERRY_MEMORY_ALL), FERRY_OK);
  EXPECT_EQ(stats().device_cached_bytes, 0u);
}

TEST_F(MemoryApiTest, ZeroAndOverflowingSizes) {
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(ferry_memory_alloc_host(&p, ctx, 0), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error().find("bytes is 0"), std::string::npos) << error();
  EXPECT_EQ(ferry_memory_alloc_device(&p, ctx, 0, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_memory_alloc_host(&p, ctx, SIZE_MAX), FERRY_ERR_OVERFLOW);
  EXPECT_NE(error().find("bytes"), std::string::npos) << error();
  EXPECT_EQ(ferry_memory_alloc_device(&p, ctx, SIZE_MAX - 4000, nullptr), FERRY_ERR_OVERFLOW);
  EXPECT_EQ(p, reinterpret_cast<void*>(0x1));  // out untouched on error
  EXPECT_EQ(ferry_memory_alloc_host(&p, ctx, 65u << 20), FERRY_ERR_OUT_OF_MEMORY);  // over pinned_cache_bytes
  EXPECT_NE(error().find("pinned_cache_bytes"), std::string::npos) << error();
  EXPECT_EQ(ferry_memory_alloc_device(&p, ctx, std::size_t{1} << 50, nullptr), FERRY_ERR_OUT_OF_MEMORY);
  EXPECT_NE(error().find("bytes is 1125899906842624"), std::string::npos) << error();
  EXPECT_EQ(ferry_memory_alloc_host(nullptr, ctx, 10), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error().find("out"), std::string::npos);
  EXPECT_EQ(ferry_memory_alloc_device(nullptr, ctx, 10, nullptr), FERRY_ERR_INVALID_ARGUMENT);
}

TEST_F(MemoryApiTest, FreeingForeignPointersOrTwice) {
  int local = 0;
  EXPECT_EQ(ferry_memory_free_host(ctx, &local), FERRY_ERR_NOT_FOUND);
  EXPECT_NE(error().find("ptr is"), std::string::npos) << error();
  EXPECT_EQ(ferry_memory_free_device(ctx, &local, nullptr), FERRY_ERR_NOT_FOUND);
  EXPECT_EQ(ferry_memory_free_host_on_stream(ctx, &local, nullptr), FERRY_ERR_NOT_FOUND);
  void* p = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&p, ctx, 4096), FERRY_OK);
  ASSERT_EQ(ferry_memory_free_host(ctx, p), FERRY_OK);
  EXPECT_EQ(ferry_memory_free_host(ctx, p), FERRY_ERR_NOT_FOUND);
  EXPECT_NE(error().find("freed already"), std::string::npos) << error();
  void* d = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&d, ctx, 4096, nullptr), FERRY_OK);
  EXPECT_EQ(ferry_memory_free_host(ctx, d), FERRY_ERR_NOT_FOUND);  // the wrong allocator
  ASSERT_EQ(ferry_memory_free_device(ctx, d, nullptr), FERRY_OK);
  EXPECT_EQ(ferry_memory_free_device(ctx, d, nullptr), FERRY_ERR_NOT_FOUND);
  EXPECT_EQ(ferry_memory_free_host(ctx, nullptr), FERRY_OK);  // like free(NULL)
  EXPECT_EQ(ferry_memory_free_device(ctx, nullptr, nullptr), FERRY_OK);
  const ferry_stats s = stats();
  EXPECT_EQ(s.pinned_in_use_bytes, 0u);
  EXPECT_EQ(s.device_in_use_bytes, 0u);
}

TEST_F(MemoryApiTest, RegistrationRules) {
  std::vector<char> buffer(1 << 20);
  EXPECT_EQ(ferry_memory_register_host(ctx, nullptr, 100), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error().find("ptr is NULL"), std::string::npos);
  EXPECT_EQ(ferry_memory_register_host(ctx, buffer.data(), 0), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_memory_register_host(ctx, reinterpret_cast<void*>(UINTPTR_MAX - 100), 1000), FERRY_ERR_OVERFLOW);
  ASSERT_EQ(ferry_memory_register_host(ctx, buffer.data(), buffer.size()), FERRY_OK) << error();
  EXPECT_EQ(ferry_memory_register_host(ctx, buffer.data() + 100, 100), FERRY_ERR_ALREADY_EXISTS);
  EXPECT_NE(error().find("ptr is"), std::string::npos);
  EXPECT_EQ(stats().registered_bytes, buffer.size());
  EXPECT_EQ(ferry_memory_unregister_host(ctx, buffer.data() + 100), FERRY_ERR_NOT_FOUND);
  EXPECT_EQ(ferry_memory_unregister_host(ctx, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_memory_unregister_host(ctx, buffer.data()), FERRY_OK);
  EXPECT_EQ(ferry_memory_unregister_host(ctx, buffer.data()), FERRY_ERR_NOT_FOUND);
  EXPECT_EQ(stats().registered_bytes, 0u);
  EXPECT_EQ(stats().registered_peak_bytes, buffer.size());
}

TEST_F(MemoryApiTest, TrimKindsAndBadHandles) {
  EXPECT_EQ(ferry_memory_trim(ctx, 0), FERRY_ERR_UNSUPPORTED);
  EXPECT_NE(error().find("kinds is 0"), std::string::npos) << error();
  EXPECT_EQ(ferry_memory_trim(ctx, 8), FERRY_ERR_UNSUPPORTED);
  EXPECT_EQ(ferry_memory_trim(ctx, FERRY_MEMORY_PINNED | FERRY_MEMORY_DEVICE), FERRY_OK);
  void* p = nullptr;
  EXPECT_EQ(ferry_memory_alloc_host(&p, nullptr, 10), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_memory_alloc_device(&p, reinterpret_cast<ferry_context_t>(0x77777), 10, nullptr),
            FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_memory_trim(nullptr, FERRY_MEMORY_ALL), FERRY_ERR_INVALID_HANDLE);
  ferry_stats s;
  EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_ERR_STRUCT_SIZE);  // struct_size unset (garbage)
  s.struct_size = 3;
  EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_ERR_STRUCT_SIZE);
  EXPECT_EQ(ferry_stats_get(nullptr, ctx), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_stats_init(nullptr, sizeof s), FERRY_ERR_INVALID_ARGUMENT);
}

TEST_F(MemoryApiTest, StatsFromAnOlderSmallerStructAndReset) {
  void* p = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&p, ctx, 100), FERRY_OK);
  ferry_stats s;
  std::memset(&s, 0xff, sizeof s);
  const std::size_t older = sizeof(ferry::api::v1::stats);  // a ferry 0.1 caller
  ASSERT_EQ(ferry_stats_init(&s, older), FERRY_OK);
  ASSERT_EQ(ferry_stats_get(&s, ctx), FERRY_OK) << error();
  EXPECT_EQ(s.struct_size, older);
  EXPECT_EQ(s.pinned_in_use_bytes, 512u);
  EXPECT_EQ(s.batches_unreleased, ~std::uint64_t{0});  // beyond the caller's struct: untouched
  EXPECT_EQ(ferry_stats_init(&s, offsetof(ferry_stats, pinned_misses)), FERRY_ERR_STRUCT_SIZE);
  ASSERT_EQ(ferry_stats_reset(ctx), FERRY_OK);
  const ferry_stats after = stats();
  EXPECT_EQ(after.pinned_misses, 0u);
  EXPECT_EQ(after.pinned_in_use_bytes, 512u);  // gauges stay
  EXPECT_EQ(after.numa_node, -1) << "the CPU backend places nothing";
  EXPECT_EQ(after.numa_cpus, 0);
  EXPECT_EQ(ferry_memory_free_host(ctx, p), FERRY_OK);
}

TEST_F(MemoryApiTest, AtThePinnedCapWithoutWaitingFails) {
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&a, ctx, 40u << 20), FERRY_OK);
  EXPECT_EQ(ferry_memory_alloc_host(&b, ctx, 30u << 20), FERRY_ERR_OUT_OF_MEMORY);
  EXPECT_NE(error().find("cap"), std::string::npos) << error();
  ASSERT_EQ(ferry_memory_free_host(ctx, a), FERRY_OK);
  ASSERT_EQ(ferry_memory_alloc_host(&b, ctx, 30u << 20), FERRY_OK) << error();  // usable after
  ASSERT_EQ(ferry_memory_free_host(ctx, b), FERRY_OK);
}

TEST_F(MemoryApiTest, ThreadsAllocateAndFreeThroughTheAbi) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        void* h = nullptr;
        void* d = nullptr;
        const std::size_t n = 512u << ((i + t) % 12);
        ASSERT_EQ(ferry_memory_alloc_host(&h, ctx, n), FERRY_OK) << ferry_last_error();
        ASSERT_EQ(ferry_memory_alloc_device(&d, ctx, n, nullptr), FERRY_OK) << ferry_last_error();
        std::memset(h, t, n);
        std::memcpy(d, h, n);
        ASSERT_EQ(static_cast<unsigned char*>(d)[n - 1], static_cast<unsigned char>(t));
        ASSERT_EQ(ferry_memory_free_host(ctx, h), FERRY_OK);
        ASSERT_EQ(ferry_memory_free_device(ctx, d, nullptr), FERRY_OK);
      }
    });
  for (auto& t : threads) t.join();
  const ferry_stats s = stats();
  EXPECT_EQ(s.pinned_in_use_bytes, 0u);
  EXPECT_EQ(s.device_in_use_bytes, 0u);
}

}  // namespace
