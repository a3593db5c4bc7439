// core::ThreadPool: coverage of every index exactly once, exceptions,
// concurrent and nested parallel_for calls.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/thread_pool.h"

using ferry::core::ThreadPool;

TEST(ThreadPool, CoversEveryIndexOnceWithGrain) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.size(), 4);
  for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::atomic<std::int64_t> smallest_chunk{1 << 30};
    pool.parallel_for(0, n, [&](std::int64_t b, std::int64_t e) {
      if (e != n) {
        std::int64_t cur = smallest_chunk.load();
        while (e - b < cur && !smallest_chunk.compare_exchange_weak(cur, e - b)) {}
      }
      for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    }, 5);
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    if (n > 20) EXPECT_GE(smallest_chunk.load(), 5);
  }
}

TEST(ThreadPool, DefaultSizeIsTheMachinesThreads) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.size(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(ThreadPool, RethrowsTheFirstExceptionAfterStartedChunksFinish) {
  ThreadPool pool(3);
  std::atomic<int> running{0};
  EXPECT_THROW(pool.parallel_for(0, 64, [&](std::int64_t b, std::int64_t) {
    running++;
    if (b == 0) throw std::runtime_error("chunk 0");
    running--;
  }), std::runtime_error);
  EXPECT_EQ(running.load(), 1);  // only the throwing chunk left the counter up
  std::atomic<int> sum{0};       // the pool still works afterwards
  pool.parallel_for(0, 10, [&](std::int64_t b, std::int64_t e) { sum += static_cast<int>(e - b); });
  EXPECT_EQ(sum.load(), 10);
}

TEST(ThreadPool, ConcurrentAndNestedCalls) {
  ThreadPool pool(3);
  std::atomic<std::int64_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int r = 0; r < 50; ++r) {
        pool.parallel_for(0, 8, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i)
            pool.parallel_for(0, 10, [&](std::int64_t bb, std::int64_t ee) { total += ee - bb; });
        });
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), 4 * 50 * 8 * 10);
}
