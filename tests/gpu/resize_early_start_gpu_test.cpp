// Pipelined resample launches back to back on one stream, which start early
// behind the launch before them (programmatic dependent launch,
// ResampleParams::early_start; sm_90 on): a launch must still read what the
// one before wrote (read after write), must not overwrite what the one
// before still reads (write after read), and its outputs must land after
// the earlier launch's (write after write). Batches of one geometry on
// device data (no table), bilinear, so that every call is a pipelined
// launch right behind the previous one; each result equal to the CPU
// backend's, byte for byte.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/support/test_context.h"

using namespace ferry::test;

namespace {

constexpr std::int64_t kImages = 64, kSide = 400, kOut = 224, kSecond = 160;

ferry_source images(const void* data, std::int64_t side) {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = data, s.n = kImages, s.h = side, s.w = side, s.c = 3;
  s.bytes = static_cast<std::size_t>(kImages * side * side * 3);
  return s;
}

// Bilinear to side x side: u8 NHWC, or normalized f16 NCHW.
ferry_transform resized(std::int64_t side, bool f16) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.interpolation = FERRY_INTERP_LINEAR;
  t.resize_w = t.resize_h = static_cast<std::int32_t>(side);
  if (f16) {
    t.out_dtype = FERRY_DTYPE_FLOAT16;
    t.mean[0] = 0.485f, t.mean[1] = 0.456f, t.mean[2] = 0.406f;
    t.std[0] = 0.229f, t.std[1] = 0.224f, t.std[2] = 0.225f;
  } else {
    t.out_dtype = FERRY_DTYPE_UINT8, t.out_layout = FERRY_LAYOUT_NHWC;
  }
  return t;
}

std::size_t output_bytes(const ferry_source& s, const ferry_transform& t) {
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &s, &t), FERRY_OK) << ferry_last_error();
  return info.bytes;
}

// `from` (on `ctx`'s side) resized by t into `to` of `bytes`; "" or what failed.
std::string apply(ferry_context_t ctx, const ferry_source& from, const ferry_transform& t, void* to, std::size_t bytes,
                  cudaStream_t stream) {
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = to, o.bytes = bytes;
  return ferry_transform_apply(ctx, &from, &t, &o, stream) == FERRY_OK ? "" : ferry_last_error();
}

// The first byte where the device buffer differs from `want`, or "".
std::string compare(const void* device, const std::vector<std::uint8_t>& want, const char* what) {
  std::vector<std::uint8_t> got(want.size());
  if (cudaMemcpy(got.data(), device, got.size(), cudaMemcpyDeviceToHost) != cudaSuccess) return "copy back failed";
  for (std::size_t b = 0; b < want.size(); ++b)
    if (got[b] != want[b])
      return std::string(what) + ": byte " + std::to_string(b) + " is " + std::to_string(got[b]) + ", cpu " +
             std::to_string(want[b]);
  return "";
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
  }
  ~DeviceBuffer() { cudaFree(p); }
};

}  // namespace

TEST(ResizeGpu, LaunchesThatStartEarlyKeepTheOrderOfTheirStream) {
  FERRY_REQUIRE_GPU();
  ferry_context_t cpu = make_test_context(FERRY_DEVICE_CPU, 4), gpu = make_test_context(FERRY_DEVICE_CUDA, 4);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

  // Two sets of images, on the host and on the device.
  const std::size_t source_bytes = static_cast<std::size_t>(kImages * kSide * kSide * 3);
  std::vector<std::uint8_t> first(source_bytes), second(source_bytes);
  std::mt19937 rng(1402);
  for (std::uint8_t& b : first) b = static_cast<std::uint8_t>(rng());
  for (std::uint8_t& b : second) b = static_cast<std::uint8_t>(rng());
  DeviceBuffer d_first(source_bytes), d_second(source_bytes);
  ASSERT_NE(d_first.p, nullptr);
  ASSERT_NE(d_second.p, nullptr);
  ASSERT_EQ(cudaMemcpy(d_first.p, first.data(), source_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_second.p, second.data(), source_bytes, cudaMemcpyHostToDevice), cudaSuccess);

  // A chain: first -> x (u8 224), x -> y (f16 160), then second -> x again.
  const ferry_transform to_x = resized(kOut, false), to_y = resized(kSecond, true);
  const std::size_t x_bytes = output_bytes(images(first.data(), kSide), to_x);
  const std::size_t y_bytes = output_bytes(images(first.data(), kOut), to_y);
  std::vector<std::uint8_t> want_x_first(x_bytes), want_x_second(x_bytes), want_y(y_bytes);
  ASSERT_EQ(apply(cpu, images(first.data(), kSide), to_x, want_x_first.data(), x_bytes, nullptr), "");
  ASSERT_EQ(apply(cpu, images(second.data(), kSide), to_x, want_x_second.data(), x_bytes, nullptr), "");
  ASSERT_EQ(apply(cpu, images(want_x_first.data(), kOut), to_y, want_y.data(), y_bytes, nullptr), "");
  // Write after write: first -> z, then second -> z (f16 224).
  const ferry_transform to_z = resized(kOut, true);
  const std::size_t z_bytes = output_bytes(images(first.data(), kSide), to_z);
  std::vector<std::uint8_t> want_z(z_bytes);
  ASSERT_EQ(apply(cpu, images(second.data(), kSide), to_z, want_z.data(), z_bytes, nullptr), "");

  DeviceBuffer x(x_bytes), y(y_bytes), z(z_bytes);
  ASSERT_NE(x.p, nullptr);
  ASSERT_NE(y.p, nullptr);
  ASSERT_NE(z.p, nullptr);
  for (int round = 0; round < 200; ++round) {  // a missing wait showed in about one round of 50
    ASSERT_EQ(cudaMemset(x.p, 0xCD, x_bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(y.p, 0xCD, y_bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(z.p, 0xCD, z_bytes), cudaSuccess);
    ASSERT_EQ(apply(gpu, images(d_first.p, kSide), to_x, x.p, x_bytes, stream), "");
    ASSERT_EQ(apply(gpu, images(x.p, kOut), to_y, y.p, y_bytes, stream), "");       // reads x as written
    ASSERT_EQ(apply(gpu, images(d_second.p, kSide), to_x, x.p, x_bytes, stream), "");  // after y has read it
    ASSERT_EQ(apply(gpu, images(d_first.p, kSide), to_z, z.p, z_bytes, stream), "");
    ASSERT_EQ(apply(gpu, images(d_second.p, kSide), to_z, z.p, z_bytes, stream), "");  // lands last
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(compare(y.p, want_y, "y, read after write and before the next write"), "") << "round " << round;
    ASSERT_EQ(compare(x.p, want_x_second, "x, written again"), "") << "round " << round;
    ASSERT_EQ(compare(z.p, want_z, "z, written twice"), "") << "round " << round;
  }
  cudaStreamDestroy(stream);
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

#else
TEST(ResizeGpu, LaunchesThatStartEarlyKeepTheOrderOfTheirStream) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
