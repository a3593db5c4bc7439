// The staging pipeline under concurrency, on the CPU backend: several threads
// submitting to one context, several contexts at once, the in-flight bound
// with blocking submits, and a context destroyed with batches in flight.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry::test;

ferry_context_t cpu_context(int max_in_flight) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 2;
  o.max_batches_in_flight = max_in_flight;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  return ctx;
}

// Submits `rounds` batches (each of its own seed) and checks every output.
void submit_and_check(ferry_context_t ctx, int thread, int rounds, std::atomic<int>& failures) {
  for (int r = 0; r < rounds; ++r) {
    const std::int64_t n = 3 + (r % 4), h = 24 + thread, w = 20 + r;
    auto src = make_source(ctx, r % 2 ? SourceKind::kSamples : SourceKind::kPitched, n, h, w,
                           static_cast<std::uint32_t>(thread * 100 + r));
    auto tr = make_transform(r % 3 == 0 ? TransformKind::kDefault : TransformKind::kUint8Bgr, n, h, w);
    ferry_batch_t b = nullptr;
    if (ferry_batch_submit(&b, ctx, &src->source, &tr->t, nullptr, nullptr) != FERRY_OK ||
        ferry_batch_wait(b) != FERRY_OK) {
      ++failures;
      continue;
    }
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    ferry_batch_describe_output(&info, b);
    ferry_output packed;
    ferry_output_init(&packed, sizeof packed);
    const auto expected = expected_output(src->source, tr->t, packed, info.bytes);
    if (first_difference(static_cast<const std::uint8_t*>(info.data), expected.data(), info.bytes) != -1) ++failures;
    if (ferry_batch_release(b) != FERRY_OK) ++failures;
  }
}

TEST(StageConcurrency, SeveralThreadsSubmitToOneContext) {
  ferry_context_t ctx = cpu_context(2);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(submit_and_check, ctx, t, 12, std::ref(failures));
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ferry_stats stats;
  ferry_stats_init(&stats, sizeof stats);
  ASSERT_EQ(ferry_stats_get(&stats, ctx), FERRY_OK);
  EXPECT_EQ(stats.batches_submitted, 48u);
  EXPECT_EQ(stats.batches_completed, 48u);
  EXPECT_EQ(stats.batches_failed, 0u);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(StageConcurrency, SeveralContextsAtOnce) {
  std::atomic<int> failures{0};
  std::vector<ferry_context_t> contexts;
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) contexts.push_back(cpu_context(3));
  for (int t = 0; t < 3; ++t) threads.emplace_back(submit_and_check, contexts[t], t, 10, std::ref(failures));
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (ferry_context_t c : contexts) EXPECT_EQ(ferry_context_destroy(c), FERRY_OK);
}

TEST(StageConcurrency, BlockingSubmitNeverExceedsTheInFlightBound) {
  ferry_context_t ctx = cpu_context(2);
  auto src = make_source(ctx, SourceKind::kPacked, 32, 128, 128, 4);  // 1.5 MB: the staging thread
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> worst{0};
  std::thread monitor([&] {
    while (!stop) {
      ferry_stats s;
      ferry_stats_init(&s, sizeof s);
      if (ferry_stats_get(&s, ctx) == FERRY_OK) {
        const std::uint64_t in_flight = s.batches_submitted - s.batches_completed - s.batches_failed;
        std::uint64_t seen = worst.load();
        while (in_flight > seen && !worst.compare_exchange_weak(seen, in_flight)) {
        }
      }
    }
  });
  std::vector<ferry_batch_t> batches(12);
  for (auto& b : batches) ASSERT_EQ(ferry_batch_submit(&b, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
  for (auto& b : batches) {
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  }
  stop = true;
  monitor.join();
  EXPECT_LE(worst.load(), 2u);
  EXPECT_GE(worst.load(), 1u);
  src.reset();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(StageConcurrency, DestroyWithBatchesInFlight) {
  for (int round = 0; round < 3; ++round) {
    ferry_context_t ctx = cpu_context(4);
    auto src = make_source(ctx, SourceKind::kSamples, 24, 96, 96, 6);
    std::vector<ferry_batch_t> batches(4);
    for (auto& b : batches) ASSERT_EQ(ferry_batch_submit(&b, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
    EXPECT_EQ(ferry_batch_release(batches[0]), FERRY_OK);  // one released while in flight
    // A thread blocked in wait while the context goes: it wakes with a status, never a crash.
    std::atomic<int> waited{-1};
    std::thread waiter([&] { waited = ferry_batch_wait(batches[1]); });
    EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
    waiter.join();
    EXPECT_TRUE(waited.load() == FERRY_OK || waited.load() == FERRY_ERR_INVALID_HANDLE) << waited.load();
    for (std::size_t i = 1; i < batches.size(); ++i) {
      EXPECT_EQ(ferry_batch_query(batches[i]), FERRY_ERR_INVALID_HANDLE);
      EXPECT_EQ(ferry_batch_release(batches[i]), FERRY_ERR_INVALID_HANDLE);
    }
  }
}

// A completion callback releases a batch another thread is waiting on. The
// batch submitted after the callback's own cannot complete while the callback
// runs (the completion thread is in it), so a release that waited for the
// waiter's call would never return.
TEST(StageConcurrency, CallbackReleasesABatchAnotherThreadWaitsOn) {
  struct Shared {
    std::atomic<ferry_batch_t> target{nullptr};
    std::atomic<bool> waiter_in{false};
    std::atomic<int> release_status{-1};
  } shared;
  ferry_context_t ctx = cpu_context(4);
  auto src = make_source(ctx, SourceKind::kPacked, 32, 128, 128, 4);  // 1.5 MB: the staging thread
  ferry_submit_options o;
  ferry_submit_options_init(&o, sizeof o);
  o.user_data = &shared;
  o.callback = [](ferry_batch_t, ferry_status, void* user_data) {
    auto& s = *static_cast<Shared*>(user_data);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((s.target.load() == nullptr || !s.waiter_in.load()) && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the waiter is in ferry_batch_wait by now
    s.release_status = ferry_batch_release(s.target.load());
  };
  ferry_batch_t first = nullptr, target = nullptr;
  ASSERT_EQ(ferry_batch_submit(&first, ctx, &src->source, nullptr, nullptr, &o), FERRY_OK);
  ASSERT_EQ(ferry_batch_submit(&target, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
  std::atomic<int> waited{-1};
  std::thread waiter([&] {
    shared.waiter_in = true;
    waited = ferry_batch_wait(target);
  });
  shared.target = target;
  waiter.join();
  ASSERT_EQ(ferry_batch_wait(first), FERRY_OK) << ferry_last_error();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (shared.release_status.load() == -1 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::yield();
  EXPECT_EQ(shared.release_status.load(), FERRY_OK);
  EXPECT_TRUE(waited.load() == FERRY_OK || waited.load() == FERRY_ERR_INVALID_HANDLE) << waited.load();
  EXPECT_EQ(ferry_batch_query(target), FERRY_ERR_INVALID_HANDLE);  // released by the callback
  EXPECT_EQ(ferry_batch_release(first), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

}  // namespace
