// Host registration on a real GPU: explicit registrations and the cache.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "c_api/struct_convert.h"
#include "core/device/make_runtime.h"
#include "core/memory/memory_system.h"
#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

namespace {

bool is_registered(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

struct PageBuffer {
  explicit PageBuffer(size_t n) : bytes(n) {
    EXPECT_EQ(posix_memalign(&data, 4096, n), 0);
    std::memset(data, 3, n);
  }
  ~PageBuffer() { std::free(data); }
  char* at(size_t offset) const { return static_cast<char*>(data) + offset; }
  void* data = nullptr;
  size_t bytes;
};

// Owns a context for one test: an ASSERT that returns early still destroys it,
// so its registrations never outlive the test (a registration left on freed
// memory makes the driver refuse the next test's buffers at the same address).
struct ContextGuard {
  ~ContextGuard() {
    if (ctx != nullptr) EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  }
  ferry_context_t ctx = nullptr;
};

struct DeviceBuffer {
  explicit DeviceBuffer(size_t n) { EXPECT_EQ(cudaMalloc(&data, n), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(data); }
  void* data = nullptr;
};

// A copy from registered memory must stay inside ONE registration: CUDA
// resolves a registered source pointer to its registration, and a copy that
// runs past its end fails with cudaErrorInvalidValue even when the next bytes
// are registered too. So ferry's registry (and its pipeline) only treats a
// range as pinned when one entry contains it (HostRegistry::containing).
TEST(MemoryRegistryGpu, ExplicitRegistrationPinsAndOverlapsAreRefused) {
  FERRY_REQUIRE_GPU();
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CUDA;
  ContextGuard guard;
  ASSERT_EQ(ferry_context_create(&guard.ctx, &o), FERRY_OK) << ferry_last_error();
  ferry_context_t ctx = guard.ctx;
  PageBuffer buf(8u << 20);
  EXPECT_FALSE(is_registered(buf.data));
  ASSERT_EQ(ferry_memory_register_host(ctx, buf.data, 4u << 20), FERRY_OK) << ferry_last_error();
  EXPECT_TRUE(is_registered(buf.data));
  EXPECT_EQ(ferry_memory_register_host(ctx, buf.at(4096), 4096), FERRY_ERR_ALREADY_EXISTS);
  EXPECT_EQ(ferry_memory_register_host(ctx, buf.at((4u << 20) - 10), 100), FERRY_ERR_ALREADY_EXISTS);  // shares a page
  ASSERT_EQ(ferry_memory_register_host(ctx, buf.at(4u << 20), 4u << 20), FERRY_OK) << ferry_last_error();
  {
    DeviceBuffer d(8u << 20);
    ASSERT_NE(d.data, nullptr);
    // Each registration copies on its own, also a piece from its middle.
    EXPECT_EQ(cudaMemcpy(d.data, buf.data, 4u << 20, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d.data, buf.at(4u << 20), 4u << 20, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d.data, buf.at(1u << 20), 1u << 20, cudaMemcpyHostToDevice), cudaSuccess);
    // One copy across both adjacent registrations: CUDA refuses it.
    const cudaError_t across = cudaMemcpy(d.data, buf.data, 8u << 20, cudaMemcpyHostToDevice);
    (void)cudaGetLastError();
    EXPECT_EQ(across, cudaErrorInvalidValue) << cudaGetErrorName(across);
    EXPECT_FALSE(ferry_memory_register_host(ctx, buf.data, 8u << 20) == FERRY_OK);  // nor does ferry merge them
  }
  ASSERT_EQ(ferry_memory_unregister_host(ctx, buf.data), FERRY_OK);
  EXPECT_FALSE(is_registered(buf.data));
  EXPECT_TRUE(is_registered(buf.at(4u << 20)));  // the neighbour stays
  ASSERT_EQ(ferry_memory_unregister_host(ctx, buf.at(4u << 20)), FERRY_OK);
  EXPECT_FALSE(is_registered(buf.at(4u << 20)));
  // Memory registered outside ferry: refused clearly.
  ASSERT_EQ(cudaHostRegister(buf.data, 4096, cudaHostRegisterDefault), cudaSuccess);
  EXPECT_EQ(ferry_memory_register_host(ctx, buf.data, 4096), FERRY_ERR_ALREADY_EXISTS);
  EXPECT_NE(std::string(ferry_last_error()).find("outside ferry"), std::string::npos) << ferry_last_error();
  cudaHostUnregister(buf.data);
  ferry_stats s;
  ferry_stats_init(&s, sizeof s);
  ASSERT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
  EXPECT_GE(s.cuda_host_register_calls, 3u);
}

TEST(MemoryRegistryGpu, CacheRegistersEvictsAndUnregistersOnDestroy) {
  FERRY_REQUIRE_GPU();
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.registry_cache_bytes = 8u << 20;
  PageBuffer a(6u << 20), b(6u << 20);
  ASSERT_FALSE(is_registered(a.data)) << "left registered by an earlier test";
  ASSERT_FALSE(is_registered(b.data)) << "left registered by an earlier test";
  try {
    ferry::core::MemorySystem memory(ferry::core::make_runtime(ferry::core::DeviceKind::Cuda, 0), ferry::api::to_core(o));
    auto& r = memory.registry();
    ASSERT_TRUE(r.lookup_or_register(a.data, a.bytes, /*pin=*/true));
    EXPECT_TRUE(is_registered(a.data));
    EXPECT_FALSE(r.lookup_or_register(b.data, b.bytes));  // a is pinned: no room
    r.unpin(a.data, a.bytes);
    EXPECT_TRUE(r.lookup_or_register(b.data, b.bytes));   // evicts a
    EXPECT_FALSE(is_registered(a.data));
    EXPECT_TRUE(is_registered(b.data));
    EXPECT_TRUE(r.contains(b.at(100), 1000));
    EXPECT_FALSE(r.lookup_or_register(a.data, 9u << 20));  // larger than the cap: declined
    ASSERT_EQ(cudaHostRegister(a.data, 4096, cudaHostRegisterDefault), cudaSuccess);
    EXPECT_FALSE(r.lookup_or_register(a.data, 4096));  // registered by someone else: declined
    cudaHostUnregister(a.data);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "exception: " << e.what();
  }
  EXPECT_FALSE(is_registered(b.data));  // the context unregistered its cache
}

// The contract of FERRY_SOURCE_REGISTER: unregister a buffer before freeing
// it, once the batches reading it are waited for. Unregistering right after
// wait must work: wait itself lets go of the source's registration, not only
// ferry's completion thread some time later (which made the unregister a
// FERRY_ERR_BUSY, and a caller that freed the buffer anyway left pages
// registered under the next allocation: found by the fuzz inputs on CUDA).
TEST(MemoryRegistryGpu, UnregisterRightAfterWaitSucceeds) {
  FERRY_REQUIRE_GPU();
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CUDA;
  ContextGuard guard;
  ASSERT_EQ(ferry_context_create(&guard.ctx, &o), FERRY_OK) << ferry_last_error();
  PageBuffer buf(3u << 20);
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.data = buf.data, src.bytes = buf.bytes, src.n = 4, src.h = 256, src.w = 1024, src.c = 3;
  ferry_submit_options opts;
  ferry_submit_options_init(&opts, sizeof opts);
  opts.source_policy = FERRY_SOURCE_REGISTER;
  for (int i = 0; i < 50; ++i) {
    ferry_batch_t b = nullptr;
    ASSERT_EQ(ferry_batch_submit(&b, guard.ctx, &src, nullptr, nullptr, &opts), FERRY_OK) << ferry_last_error();
    ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
    ASSERT_TRUE(is_registered(buf.data)) << "round " << i;
    ASSERT_EQ(ferry_memory_unregister_host(guard.ctx, buf.data), FERRY_OK)
        << "round " << i << ": " << ferry_last_error();
    EXPECT_FALSE(is_registered(buf.data));
    ASSERT_EQ(ferry_batch_release(b), FERRY_OK);
  }
}

}  // namespace
