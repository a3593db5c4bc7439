// core::ThreadPool: coverage of every index exactly once, exceptions,
// concurrent and nested parallel_for calls, jobs started ahead (start_for).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
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

// start_for: the caller goes on while the workers run the job; a job started
// behind another runs once that one's chunks are taken, so workers flow from
// one to the next (the staging pipeline's gathers, a chunk ahead).
TEST(ThreadPool, StartedJobsRunWhileTheCallerGoesOnAndWaitCoversThem) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> first(1000), second(1000);
  const std::function<void(std::int64_t, std::int64_t)> a = [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) first[static_cast<std::size_t>(i)]++;
  };
  const std::function<void(std::int64_t, std::int64_t)> c = [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) second[static_cast<std::size_t>(i)]++;
  };
  ThreadPool::Started one = pool.start_for(0, 1000, a);
  ThreadPool::Started two = pool.start_for(0, 1000, c, 7);
  EXPECT_TRUE(one.pending());
  one.wait();
  EXPECT_FALSE(one.pending());
  for (auto& h : first) ASSERT_EQ(h.load(), 1);
  two.wait();
  for (auto& h : second) ASSERT_EQ(h.load(), 1);
  one.wait();  // a second wait does nothing
  ThreadPool::Started empty = pool.start_for(5, 5, a);
  EXPECT_FALSE(empty.pending());
}

TEST(ThreadPool, AStartedJobsErrorComesFromWaitAndItsDestructorWaitsQuietly) {
  ThreadPool pool(3);
  const std::function<void(std::int64_t, std::int64_t)> throwing = [](std::int64_t b, std::int64_t) {
    if (b == 0) throw std::runtime_error("chunk 0");
  };
  ThreadPool::Started failed = pool.start_for(0, 64, throwing);
  EXPECT_THROW(failed.wait(), std::runtime_error);
  std::atomic<int> done{0};
  const std::function<void(std::int64_t, std::int64_t)> slow = [&](std::int64_t b, std::int64_t e) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    done += static_cast<int>(e - b);
  };
  {
    ThreadPool::Started dropped = pool.start_for(0, 32, throwing);
    ThreadPool::Started waited_by_destructor = pool.start_for(0, 32, slow);
  }  // neither waited: the destructors wait, the error is dropped
  EXPECT_EQ(done.load(), 32);
  ThreadPool::Started moved = pool.start_for(0, 16, slow);
  moved = pool.start_for(0, 16, slow);  // the job it held is waited for as it is replaced
  EXPECT_GE(done.load(), 48);           // (the new one may have begun)
  moved.wait();
  EXPECT_EQ(done.load(), 64);
}
