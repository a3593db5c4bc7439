// StreamPool and EventPool on the fake backend.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

#include <map>
#include <set>
#include <thread>
#include <vector>

#include "core/device/event_pool.h"
#include "core/device/stream_pool.h"
#include "tests/support/fake_runtime.h"

namespace ferry::core {
namespace {

TEST(MemoryStreamPool, RoundRobinOverAFixedSet) {
  test::FakeRuntime backend;
  StreamPool pool(backend, 4, false);
  EXPECT_EQ(pool.size(), 4u);
  std::vector<StreamHandle> got;
  for (int i = 0; i < 8; ++i) got.push_back(pool.acquire());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], got[i + 4]);
  EXPECT_EQ(std::set<StreamHandle>(got.begin(), got.end()).size(), 4u);
  EXPECT_TRUE(pool.contains(got[0]));
  EXPECT_FALSE(pool.contains(reinterpret_cast<StreamHandle>(0x5)));
  EXPECT_EQ(backend.high_priority_streams, 0u);
}

TEST(MemoryStreamPool, HighPriorityAndBadCounts) {
  test::FakeRuntime backend;
  StreamPool pool(backend, 2, true);
  EXPECT_EQ(backend.high_priority_streams, 2u);
  EXPECT_TRUE(pool.high_priority());
  for (int bad : {0, -1, 65}) {
    try {
      StreamPool p(backend, bad, false);
      ADD_FAILURE() << "count " << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("stream_count"), std::string::npos);
    }
  }
}

TEST(MemoryStreamPool, ThreadsShareItEvenly) {
  test::FakeRuntime backend;
  StreamPool pool(backend, 4, false);
  std::vector<std::thread> threads;
  std::vector<std::vector<StreamHandle>> seen(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) seen[t].push_back(pool.acquire());
    });
  for (auto& t : threads) t.join();
  std::map<StreamHandle, int> counts;
  for (auto& v : seen)
    for (StreamHandle s : v) ++counts[s];
  ASSERT_EQ(counts.size(), 4u);
  for (auto& [s, n] : counts) EXPECT_EQ(n, 2000);  // exactly round-robin
}

TEST(MemoryEventPool, SteadyStateCreatesNoEvents) {
  test::FakeRuntime backend;
  {
    EventPool pool(backend);
    for (int i = 0; i < 100; ++i) {
      EventLease a(pool), b(pool);
      EXPECT_NE(a.get(), b.get());
    }
    EXPECT_EQ(pool.created(), 2u);
    EXPECT_EQ(pool.idle(), 2u);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 1000; ++i) {
          EventHandle e = pool.acquire();
          backend.event_record(e, nullptr);
          pool.release(e);
        }
      });
    for (auto& t : threads) t.join();
    EXPECT_LE(pool.created(), 10u);  // at most one per thread beyond the two
    EXPECT_EQ(pool.idle(), pool.created());
  }
  EXPECT_EQ(backend.live_events(), 0u);  // the pool destroyed them all
}

}  // namespace
}  // namespace ferry::core
