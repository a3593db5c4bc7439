// The CUDA runtime seam on a real device: streams and events order work,
// timing events time it, copies in both directions, pointer kinds, and the
// one device guard (DeviceScope) restores the caller's device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <vector>

#include "core/device/cuda/cuda_runtime.h"
#include "core/device/device_scope.h"
#include "gpu_test_util.h"

namespace {

using ferry::core::DeviceScope;
using ferry::core::HostMemoryKind;

TEST(CudaRuntime, StreamsEventsAndCopiesOrderWork) {
  FERRY_REQUIRE_GPU();
  auto rt = ferry::core::make_cuda_runtime(0, ferry::core::PinnedMethod::kRegister);
  EXPECT_EQ(rt->device(), 0);
  EXPECT_TRUE(rt->has_streams());
  DeviceScope scope(*rt);
  const std::size_t bytes = 4 << 20;
  void* device = rt->device_malloc(bytes);
  ASSERT_NE(device, nullptr);
  void* pinned = rt->pinned_alloc(bytes);
  ASSERT_NE(pinned, nullptr);
  std::vector<unsigned char> pageable(bytes);
  for (std::size_t i = 0; i < bytes; ++i) pageable[i] = static_cast<unsigned char>(i * 7);
  EXPECT_EQ(rt->pointer_kind(pageable.data()), HostMemoryKind::kPageable);
  EXPECT_EQ(rt->pointer_kind(pinned), HostMemoryKind::kPinned);
  EXPECT_EQ(rt->pointer_kind(device), HostMemoryKind::kDevice);

  void* a = rt->stream_create(false);
  void* b = rt->stream_create(true);
  void* start = rt->event_create(true);
  void* copied = rt->event_create(true);
  void* plain = rt->event_create(false);
  std::memcpy(pinned, pageable.data(), bytes);
  rt->event_record(start, a);
  rt->copy(device, pinned, bytes, a);  // H2D on a
  rt->event_record(copied, a);
  rt->stream_wait(b, copied);          // b waits for a's copy
  rt->event_synchronize(copied);
  // Cleared only once the copy that reads it is done (cleared before, the copy
  // could read zeros: seen once on an H200).
  std::memset(pinned, 0, bytes);
  rt->copy_2d(pinned, 512, device, 512, 512, bytes / 512, b);  // D2H on b, as rows
  rt->event_record(plain, b);
  rt->event_synchronize(plain);
  EXPECT_TRUE(rt->event_query(plain));
  EXPECT_EQ(std::memcmp(pinned, pageable.data(), bytes), 0);
  EXPECT_GE(rt->elapsed_ms(start, copied), 0.0f);

  int priority = 0, least = 0, greatest = 0;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  ASSERT_EQ(cudaStreamGetPriority(static_cast<cudaStream_t>(b), &priority), cudaSuccess);
  EXPECT_EQ(priority, greatest);

  for (void* e : {start, copied, plain}) rt->event_destroy(e);
  rt->stream_destroy(a);
  rt->stream_destroy(b);
  rt->pinned_free(pinned, bytes);
  rt->device_free(device);
}

TEST(CudaRuntime, DeviceScopeRestoresTheCallersDevice) {
  FERRY_REQUIRE_GPU();
  const int count = ferry::test::gpu_count();
  auto rt = ferry::core::make_cuda_runtime(0, ferry::core::PinnedMethod::kRegister);
  ASSERT_EQ(cudaSetDevice(count - 1), cudaSuccess);
  {
    DeviceScope scope(*rt);
    int now = -1;
    ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
    EXPECT_EQ(now, 0);
  }
  int after = -1;
  ASSERT_EQ(cudaGetDevice(&after), cudaSuccess);
  EXPECT_EQ(after, count - 1);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);  // later tests in this process expect device 0
}

}  // namespace
