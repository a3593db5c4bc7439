// The CUDA RAII types on a real device: streams, events, the device guard.
#include <gtest/gtest.h>

#include "core/cuda/cuda_event.h"
#include "core/cuda/cuda_stream.h"
#include "core/cuda/device_guard.h"
#include "gpu_test_util.h"

TEST(CudaRaii, StreamAndEventOrderWork) {
  FERRY_REQUIRE_GPU();
  ferry::cuda::CudaStream stream;
  ferry::cuda::CudaEvent event;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(p, 7, 1 << 20, stream.get()), cudaSuccess);
  event.record(stream.get());
  event.synchronize();
  EXPECT_TRUE(event.query());
  unsigned char host[16];
  ASSERT_EQ(cudaMemcpy(host, p, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(host[15], 7);
  cudaFree(p);
  ferry::cuda::CudaStream moved = std::move(stream);
  EXPECT_NE(moved.get(), nullptr);
  EXPECT_EQ(stream.get(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
}

TEST(CudaRaii, DeviceGuardRestoresTheCallersDevice) {
  FERRY_REQUIRE_GPU();
  const int count = ferry::test::gpu_count();
  ASSERT_EQ(cudaSetDevice(count - 1), cudaSuccess);
  {
    ferry::cuda::DeviceGuard guard(0);
    int now = -1;
    ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
    EXPECT_EQ(now, 0);
  }
  int after = -1;
  ASSERT_EQ(cudaGetDevice(&after), cudaSuccess);
  EXPECT_EQ(after, count - 1);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);  // later tests in this process expect device 0
}

TEST(CudaRaii, HighPriorityStreamIsCreated) {
  FERRY_REQUIRE_GPU();
  int least = 0, greatest = 0;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  ferry::cuda::CudaStream stream(greatest);
  int priority = 0;
  ASSERT_EQ(cudaStreamGetPriority(stream.get(), &priority), cudaSuccess);
  EXPECT_EQ(priority, greatest);
}
