// The caching device allocator and the pinned pool on a real GPU: cross-stream
// reuse proven with a slow kernel, OOM recovery, pinned memory that is really pinned.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

namespace {

// Fills `block`, spins for `spin_ns`, then counts the bytes that changed
// meanwhile: a non-zero count means someone else wrote the block while this
// stream still owned it.
__global__ void fill_spin_verify(unsigned char* block, size_t n, unsigned char value, long long spin_ns,
                                 unsigned long long* changed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (size_t i = first; i < n; i += stride) block[i] = value;
  __threadfence_system();
  long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    long long now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > spin_ns) break;
  }
  unsigned long long local = 0;
  for (size_t i = first; i < n; i += stride) local += block[i] != value;
  if (local != 0) atomicAdd(changed, local);
}

__global__ void fill(unsigned char* block, size_t n, unsigned char value) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) block[i] = value;
}

class MemoryGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FERRY_REQUIRE_GPU();
    // The caller's streams below are made on the current device: make it the context's.
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ferry_context_options o;
    ASSERT_EQ(ferry_context_options_init(&o, sizeof o), FERRY_OK);
    o.device_kind = FERRY_DEVICE_CUDA;
    ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&changed, sizeof *changed), cudaSuccess);
    ASSERT_EQ(cudaMemset(changed, 0, sizeof *changed), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // s1 and s2 do not wait for the legacy stream
  }
  void TearDown() override {
    if (ctx == nullptr) return;
    cudaDeviceSynchronize();
    EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFree(changed);
  }
  unsigned long long changed_bytes() {
    unsigned long long host = 0;
    EXPECT_EQ(cudaMemcpy(&host, changed, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
  ferry_stats stats() {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
    return s;
  }
  // Frees `p` on `free_stream` while a 300 ms kernel still owns it, then
  // allocates and overwrites on s2 at once; the kernel must see its bytes intact.
  void check_cross_stream(cudaStream_t free_stream) {
    const size_t n = 12u << 20;
    void* p = nullptr;
    ASSERT_EQ(ferry_memory_alloc_device(&p, ctx, n, free_stream), FERRY_OK) << ferry_last_error();
    fill_spin_verify<<<64, 256, 0, free_stream>>>(static_cast<unsigned char*>(p), n, 0xAA, 300'000'000, changed);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(ferry_memory_free_device(ctx, p, free_stream), FERRY_OK) << ferry_last_error();
    void* q = nullptr;
    ASSERT_EQ(ferry_memory_alloc_device(&q, ctx, n, s2), FERRY_OK) << ferry_last_error();
    EXPECT_NE(q, p) << "a block reached another stream while its stream's kernel still ran";
    fill<<<64, 256, 0, s2>>>(static_cast<unsigned char*>(q), n, 0x55);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(changed_bytes(), 0u);
    ASSERT_EQ(ferry_memory_free_device(ctx, q, s2), FERRY_OK);
    // Now that the work is done, the block is reusable on any stream.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    void* r = nullptr;
    ASSERT_EQ(ferry_memory_alloc_device(&r, ctx, n, s1), FERRY_OK);
    EXPECT_TRUE(r == p || r == q);
    ASSERT_EQ(ferry_memory_free_device(ctx, r, s1), FERRY_OK);
  }

  ferry_context_t ctx = nullptr;
  cudaStream_t s1 = nullptr, s2 = nullptr;
  unsigned long long* changed = nullptr;
};

TEST_F(MemoryGpuTest, CrossStreamReuseWaitsForACallerStream) { check_cross_stream(s1); }

TEST_F(MemoryGpuTest, CrossStreamReuseWaitsForTheLegacyStream) { check_cross_stream(nullptr); }

TEST_F(MemoryGpuTest, SameStreamReuseIsImmediateAndSafe) {
  const size_t n = 12u << 20;
  void* p = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&p, ctx, n, s1), FERRY_OK);
  fill_spin_verify<<<64, 256, 0, s1>>>(static_cast<unsigned char*>(p), n, 0xAA, 100'000'000, changed);
  ASSERT_EQ(ferry_memory_free_device(ctx, p, s1), FERRY_OK);
  void* q = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&q, ctx, n, s1), FERRY_OK);
  EXPECT_EQ(q, p);  // stream order makes this safe: the fill runs after the spin kernel
  fill<<<64, 256, 0, s1>>>(static_cast<unsigned char*>(q), n, 0x55);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  EXPECT_EQ(changed_bytes(), 0u);
  ASSERT_EQ(ferry_memory_free_device(ctx, q, s1), FERRY_OK);
}

TEST_F(MemoryGpuTest, OutOfMemoryIsReportedAndTheContextStaysUsable) {
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(ferry_memory_alloc_device(&p, ctx, total * 2, s1), FERRY_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(ferry_last_error()).find("bytes is"), std::string::npos) << ferry_last_error();
  // Cached memory is given back when cudaMalloc fails: 60% cached + 70% asked succeeds.
  const size_t a_bytes = free_bytes / 10 * 6, b_bytes = free_bytes / 10 * 7;
  void* a = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&a, ctx, a_bytes, s1), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_memory_free_device(ctx, a, s1), FERRY_OK);
  void* b = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&b, ctx, b_bytes, s2), FERRY_OK) << ferry_last_error();
  EXPECT_LT(stats().device_cached_bytes, a_bytes);
  ASSERT_EQ(ferry_memory_free_device(ctx, b, s2), FERRY_OK);
  void* small = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&small, ctx, 1 << 20, s1), FERRY_OK);
  ASSERT_EQ(cudaMemsetAsync(small, 1, 1 << 20, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  ASSERT_EQ(ferry_memory_free_device(ctx, small, s1), FERRY_OK);
  EXPECT_GE(stats().cuda_malloc_calls, 3u);
  EXPECT_EQ(ferry_memory_trim(ctx, FERRY_MEMORY_ALL), FERRY_OK);
}

TEST_F(MemoryGpuTest, PinnedMemoryIsPinnedForBothMethodsAndGatedByItsStream) {
  for (ferry_pinned_method method : {FERRY_PINNED_HOST_ALLOC, FERRY_PINNED_REGISTER}) {
    SCOPED_TRACE(static_cast<int>(method));
    ferry_context_t c = nullptr;
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CUDA;
    o.pinned_method = method;
    ASSERT_EQ(ferry_context_create(&c, &o), FERRY_OK) << ferry_last_error();
    const size_t n = 12u << 20;
    void* h = nullptr;
    ASSERT_EQ(ferry_memory_alloc_host(&h, c, n), FERRY_OK) << ferry_last_error();
    cudaPointerAttributes attr{};
    ASSERT_EQ(cudaPointerGetAttributes(&attr, h), cudaSuccess);
    EXPECT_EQ(attr.type, cudaMemoryTypeHost);  // page-locked, known to CUDA
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n), cudaSuccess);
    std::memset(h, 7, n);
    // A slow kernel, then a copy from h, both on s1; h is freed on s1 at once.
    fill_spin_verify<<<1, 32, 0, s1>>>(static_cast<unsigned char*>(d), 32, 1, 200'000'000, changed);
    ASSERT_EQ(cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s1), cudaSuccess);
    ASSERT_EQ(ferry_memory_free_host_on_stream(c, h, s1), FERRY_OK) << ferry_last_error();
    void* h2 = nullptr;
    ASSERT_EQ(ferry_memory_alloc_host(&h2, c, n), FERRY_OK);
    EXPECT_NE(h2, h) << "pinned block reused while a copy from it was queued";
    std::memset(h2, 9, n);
    ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
    std::vector<unsigned char> back(n);
    ASSERT_EQ(cudaMemcpy(back.data(), d, n, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(back[0], 7);
    EXPECT_EQ(back[n - 1], 7);
    void* h3 = nullptr;
    ASSERT_EQ(ferry_memory_alloc_host(&h3, c, n), FERRY_OK);
    EXPECT_EQ(h3, h);  // the copy completed: reused
    ASSERT_EQ(ferry_memory_free_host(c, h2), FERRY_OK);
    ASSERT_EQ(ferry_memory_free_host(c, h3), FERRY_OK);
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    ASSERT_EQ(ferry_stats_get(&s, c), FERRY_OK);
    EXPECT_GE(s.cuda_host_alloc_calls, 1u);
    EXPECT_GT(s.cuda_host_alloc_ns, 0u);
    cudaFree(d);
    EXPECT_EQ(ferry_context_destroy(c), FERRY_OK);
  }
}

}  // namespace
