// Contexts and devices through the C ABI, on whatever machine runs the tests.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "c_api/struct_versions.h"
#include "ferry/ferry.h"

namespace {

std::string last_error() { return ferry_last_error(); }

ferry_context_options cpu_options() {
  ferry_context_options o;
  EXPECT_EQ(ferry_context_options_init(&o, sizeof o), FERRY_OK);
  o.device_kind = FERRY_DEVICE_CPU;
  return o;
}

}  // namespace

TEST(ContextApi, OptionsInitFillsDefaults) {
  ferry_context_options o;
  std::memset(&o, 0xAB, sizeof o);
  ASSERT_EQ(ferry_context_options_init(&o, sizeof o), FERRY_OK);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.device_kind, FERRY_DEVICE_AUTO);
  EXPECT_EQ(o.stream_count, 4);
  EXPECT_EQ(o.pinned_wait_at_cap, 1);
  EXPECT_EQ(o.max_batches_in_flight, 4);
  EXPECT_EQ(o.pinned_method, FERRY_PINNED_REGISTER);
  EXPECT_EQ(o.device_timing, FERRY_DEVICE_TIMING_AUTO);
}

TEST(ContextApi, PinnedMethodIsAnOptionTheCpuBackendAccepts) {
  for (ferry_pinned_method method : {FERRY_PINNED_REGISTER, FERRY_PINNED_HOST_ALLOC}) {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CPU;
    o.pinned_method = method;
    ferry_context_t ctx = nullptr;
    ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
    void* p = nullptr;
    EXPECT_EQ(ferry_memory_alloc_host(&p, ctx, 4096), FERRY_OK) << ferry_last_error();
    EXPECT_EQ(ferry_memory_free_host(ctx, p), FERRY_OK);
    EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  }
}

TEST(ContextApi, OptionsInitRejectsNullAndBadSize) {
  EXPECT_EQ(ferry_context_options_init(nullptr, sizeof(ferry_context_options)), FERRY_ERR_INVALID_ARGUMENT);
  ferry_context_options o;
  EXPECT_EQ(ferry_context_options_init(&o, 0), FERRY_ERR_STRUCT_SIZE);
  EXPECT_NE(last_error().find("struct_size is 0"), std::string::npos) << last_error();
}

TEST(ContextApi, CpuContextReportsCpu) {
  ferry_context_options o = cpu_options();
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << last_error();
  ferry_device_kind kind = FERRY_DEVICE_AUTO;
  int index = 7;
  ASSERT_EQ(ferry_context_get_device(&kind, &index, ctx), FERRY_OK);
  EXPECT_EQ(kind, FERRY_DEVICE_CPU);
  EXPECT_EQ(index, -1);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(ContextApi, AutoResolvesToAWorkingDevice) {
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, nullptr), FERRY_OK) << last_error();
  ferry_device_kind kind = FERRY_DEVICE_AUTO;
  int index = 7;
  ASSERT_EQ(ferry_context_get_device(&kind, &index, ctx), FERRY_OK);
  int gpus = 0;
  ASSERT_EQ(ferry_device_count(&gpus), FERRY_OK);
  EXPECT_EQ(kind, gpus > 0 ? FERRY_DEVICE_CUDA : FERRY_DEVICE_CPU);
  EXPECT_EQ(index, gpus > 0 ? 0 : -1);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(ContextApi, ExplicitCudaWithoutGpuFailsWithoutFallback) {
  int gpus = 0;
  ASSERT_EQ(ferry_device_count(&gpus), FERRY_OK);
  ferry_context_options o = cpu_options();
  o.device_kind = FERRY_DEVICE_CUDA;
  o.device_index = gpus;  // one past the count: never there
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_NO_DEVICE);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_NE(last_error().find("device_index is " + std::to_string(gpus)), std::string::npos) << last_error();
}

TEST(ContextApi, BadOptionsEachGetTheirStatus) {
  ferry_context_t ctx = nullptr;
  ferry_context_options o = cpu_options();
  o.device_kind = static_cast<ferry_device_kind>(42);
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_UNSUPPORTED);
  EXPECT_NE(last_error().find("device_kind is 42"), std::string::npos) << last_error();

  o = cpu_options();
  o.device_index = -3;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("device_index is -3"), std::string::npos) << last_error();

  o = cpu_options();
  o.stream_count = 0;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("stream_count is 0"), std::string::npos) << last_error();

  o = cpu_options();
  o.struct_size = 3;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_STRUCT_SIZE);
  EXPECT_NE(last_error().find("struct_size is 3"), std::string::npos) << last_error();
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(ferry_context_create(nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
}

TEST(ContextApi, OlderSmallerOptionsStructGetsDefaultsForTheRest) {
  ferry_context_options o = cpu_options();
  o.stream_count = 2;
  o.struct_size = sizeof(ferry::api::v1::context_options);  // a ferry 0.1 caller
  o.max_unreleased_batches = 0;  // beyond the caller's struct: must be ignored, not read
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << last_error();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(ContextApi, SizeEndingInsideAFieldIsRefused) {
  ferry_context_options o = cpu_options();
  o.struct_size = offsetof(ferry_context_options, stream_count) + sizeof(int);
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_STRUCT_SIZE);
  EXPECT_NE(last_error().find("released layout"), std::string::npos) << last_error();
  EXPECT_EQ(ctx, nullptr);
}

TEST(ContextApi, NewerLargerOptionsStructNeedsZeroTail) {
  struct Newer {
    ferry_context_options base;
    std::uint64_t future_field;
  } n{};
  ASSERT_EQ(ferry_context_options_init(&n.base, sizeof n), FERRY_OK);
  n.base.device_kind = FERRY_DEVICE_CPU;
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &n.base), FERRY_OK) << last_error();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  n.future_field = 1;
  EXPECT_EQ(ferry_context_create(&ctx, &n.base), FERRY_ERR_STRUCT_SIZE);
  EXPECT_NE(last_error().find("does not know"), std::string::npos) << last_error();
}

TEST(ContextApi, DestroyedForeignAndNullHandlesAreRejected) {
  ferry_context_options o = cpu_options();
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK);
  ASSERT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  ferry_device_kind kind;
  int index;
  EXPECT_EQ(ferry_context_get_device(&kind, &index, ctx), FERRY_ERR_INVALID_HANDLE);
  EXPECT_NE(last_error().find("not a live ferry_context_t"), std::string::npos) << last_error();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_ERR_INVALID_HANDLE);  // double destroy
  int not_a_context = 0;
  EXPECT_EQ(ferry_context_get_device(&kind, &index, reinterpret_cast<ferry_context_t>(&not_a_context)),
            FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_context_get_device(&kind, &index, nullptr), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_context_destroy(nullptr), FERRY_OK);
}

TEST(ContextApi, NullOutParametersAreRejected) {
  ferry_context_options o = cpu_options();
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK);
  int index;
  ferry_device_kind kind;
  EXPECT_EQ(ferry_context_get_device(nullptr, &index, ctx), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("out_kind is NULL"), std::string::npos);
  EXPECT_EQ(ferry_context_get_device(&kind, nullptr, ctx), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_device_count(nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(ContextApi, DevicePropertiesValidateIndexAndStruct) {
  int gpus = 0;
  ASSERT_EQ(ferry_device_count(&gpus), FERRY_OK);
  ferry_device_properties p;
  ASSERT_EQ(ferry_device_properties_init(&p, sizeof p), FERRY_OK);
  EXPECT_EQ(ferry_device_get_properties(&p, -1), FERRY_ERR_OUT_OF_RANGE);
  EXPECT_NE(last_error().find("device is -1"), std::string::npos);
  const ferry_status past = ferry_device_get_properties(&p, gpus);
  EXPECT_TRUE(past == FERRY_ERR_OUT_OF_RANGE || past == FERRY_ERR_NO_DEVICE) << ferry_status_string(past);
  EXPECT_NE(last_error().find("device is " + std::to_string(gpus)), std::string::npos) << last_error();
  EXPECT_EQ(ferry_device_get_properties(nullptr, 0), FERRY_ERR_INVALID_ARGUMENT);
  p.struct_size = 0;
  EXPECT_EQ(ferry_device_get_properties(&p, 0), FERRY_ERR_STRUCT_SIZE);
}

TEST(ContextApi, ManyThreadsCreateUseAndDestroyAtOnce) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        ferry_context_options o = cpu_options();
        ferry_context_t ctx = nullptr;
        if (ferry_context_create(&ctx, &o) != FERRY_OK) ++failures;
        ferry_device_kind kind;
        int index;
        if (ferry_context_get_device(&kind, &index, ctx) != FERRY_OK) ++failures;
        if (ferry_context_destroy(ctx) != FERRY_OK) ++failures;
        if (ferry_context_get_device(&kind, &index, ctx) != FERRY_ERR_INVALID_HANDLE) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ContextApi, RacingDestroysSucceedExactlyOnce) {
  for (int round = 0; round < 20; ++round) {
    ferry_context_options o = cpu_options();
    ferry_context_t ctx = nullptr;
    ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK);
    std::atomic<int> ok{0}, invalid{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        const ferry_status s = ferry_context_destroy(ctx);
        (s == FERRY_OK ? ok : invalid)++;
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(ok.load(), 1);
    EXPECT_EQ(invalid.load(), 3);
  }
}

TEST(ContextApi, DestroyWhileOtherThreadsCallIsSafe) {
  // Threads allocate and free through a context while another destroys it:
  // every call either works or reports the handle as gone; none touches a
  // destroyed context, and destroy returns after the calls inside it.
  for (int round = 0; round < 10; ++round) {
    ferry_context_options o = cpu_options();
    ferry_context_t ctx = nullptr;
    ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK);
    std::atomic<bool> go{false};
    std::atomic<int> unexpected{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        while (!go.load()) std::this_thread::yield();
        for (int i = 0; i < 2000; ++i) {
          void* p = nullptr;
          const ferry_status s = ferry_memory_alloc_device(&p, ctx, 4096, nullptr);
          if (s == FERRY_ERR_INVALID_HANDLE) return;
          if (s != FERRY_OK) {
            ++unexpected;
            return;
          }
          const ferry_status f = ferry_memory_free_device(ctx, p, nullptr);
          if (f != FERRY_OK && f != FERRY_ERR_INVALID_HANDLE) ++unexpected;
          if (f == FERRY_ERR_INVALID_HANDLE) return;
        }
      });
    }
    go = true;
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 3)));
    EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK) << ferry_last_error();
    for (auto& t : threads) t.join();
    EXPECT_EQ(unexpected.load(), 0);
  }
}
