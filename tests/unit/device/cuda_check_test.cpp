// FERRY_CUDA_TRY says where and what: file:line, the call, the CUDA error's
// name. On a machine without a driver the runtime's first answer is error 35,
// which is exactly what a user of a GPU-less machine would see.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

using ferry::Status;

#if FERRY_HAVE_CUDA
#include "core/device/cuda/cuda_check.h"

TEST(CudaCheck, ThrowsWithFileLineCallAndErrorName) {
  try {
    FERRY_CUDA_TRY(cudaErrorInvalidValue);
    FAIL() << "FERRY_CUDA_TRY did not throw";
  } catch (const ferry::Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.status(), Status::Cuda);
    EXPECT_NE(what.find("cuda_check_test.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorInvalidValue"), std::string::npos) << what;
  }
}

TEST(CudaCheck, MapsAllocationAndDriverErrorsToTheirStatus) {
  EXPECT_EQ(ferry::cuda::status_of(cudaErrorMemoryAllocation), Status::OutOfMemory);
  EXPECT_EQ(ferry::cuda::status_of(cudaErrorInsufficientDriver), Status::NoDevice);
  EXPECT_EQ(ferry::cuda::status_of(cudaErrorNoDevice), Status::NoDevice);
  EXPECT_EQ(ferry::cuda::status_of(cudaErrorLaunchFailure), Status::Cuda);
}

TEST(CudaCheck, SuccessDoesNotThrow) { EXPECT_NO_THROW(FERRY_CUDA_TRY(cudaSuccess)); }
#else
TEST(CudaCheck, CpuOnlyBuild) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif

TEST(Error, FailBuildsTheMessageFromItsParts) {
  try {
    ferry::fail(Status::InvalidArgument, "n is ", -3, ": expected ", 1.5);
  } catch (const ferry::Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
    EXPECT_STREQ(e.what(), "n is -3: expected 1.5");
  }
}
