// DeviceCache on the fake backend: stream order, event gating, OOM retry, cap, threads.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

#include <atomic>
#include <thread>
#include <vector>

#include "core/memory/device_cache.h"
#include "tests/support/fake_runtime.h"

namespace ferry::core {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

StreamHandle stream(std::uintptr_t n) { return reinterpret_cast<StreamHandle>(n); }

struct DeviceCacheTest : ::testing::Test {
  explicit DeviceCacheTest(std::size_t capacity = SIZE_MAX) : backend(capacity) {}
  DeviceCache make(std::size_t cap = 1ull << 40, unsigned arenas = 1) {
    DeviceCache::Options o;
    o.max_cached_bytes = cap;
    o.arenas = arenas;
    return DeviceCache(backend, events, o);
  }
  test::FakeRuntime backend;
  EventPool events{backend};
};

Status status_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
    return Status::Ok;
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
}

TEST_F(DeviceCacheTest, FreedBlockIsReusedAtOnceOnItsStream) {
  DeviceCache cache = make();
  void* a = cache.allocate(12 * MiB, stream(0x10));
  cache.free(a, stream(0x10));
  EXPECT_EQ(cache.allocate(12 * MiB, stream(0x10)), a);
  EXPECT_EQ(backend.device_mallocs, 1u);
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().misses, 1u);
}

TEST_F(DeviceCacheTest, OtherStreamWaitsForTheEventRecordedAtTheFree) {
  DeviceCache cache = make();
  StreamHandle s1 = stream(0x10), s2 = stream(0x20);
  void* a = cache.allocate(12 * MiB, s1);
  cache.free(a, s1);                       // a caller stream: the event is recorded now
  EXPECT_EQ(backend.records, 1u);
  void* b = cache.allocate(12 * MiB, s2);  // s1's work is still running: new memory
  EXPECT_NE(b, a);
  cache.free(b, s2);
  backend.complete_stream(s1);
  void* c = cache.allocate(12 * MiB, stream(0x30));  // now a is safe everywhere
  EXPECT_EQ(c, a);
  EXPECT_EQ(backend.synchronizes, 0u);  // never waited
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST_F(DeviceCacheTest, WorkQueuedAfterTheFreeDoesNotHoldTheBlock) {
  DeviceCache cache = make();
  StreamHandle s1 = stream(0x10);
  void* a = cache.allocate(12 * MiB, s1);
  cache.free(a, s1);
  backend.complete_stream(s1);  // work up to the free finished
  void* other = cache.allocate(12 * MiB, s1);  // reuses a on s1 at once ...
  EXPECT_EQ(other, a);
  cache.free(other, s1);  // ... and a new event covers the new free
  EXPECT_NE(cache.allocate(12 * MiB, stream(0x20)), a);
}

TEST_F(DeviceCacheTest, ABlockWhoseWorkFinishedServesALaterStreamWithoutGrowing) {
  // The steady state of a context: batches on the pool's streams in turn, each
  // output freed on its stream once done; the next batch's stream differs.
  DeviceCache cache = make();
  StreamHandle s1 = stream(0x10), s2 = stream(0x20);
  void* a = cache.allocate(12 * MiB, s1);
  cache.free(a, s1);
  backend.complete_stream(s1);
  EXPECT_EQ(cache.allocate(12 * MiB, s2), a);  // the event recorded at the free completed
  EXPECT_EQ(backend.device_mallocs, 1u);
}

TEST_F(DeviceCacheTest, TheNullStreamGetsAnEventAtEachFreeToo) {
  DeviceCache cache = make();
  for (int i = 0; i < 10; ++i) cache.free(cache.allocate(4096, nullptr), nullptr);
  EXPECT_EQ(backend.records, 10u);
  EXPECT_EQ(backend.device_mallocs, 1u);  // reused at once on its stream all the same
}

TEST_F(DeviceCacheTest, BadFreesChangeNothing) {
  DeviceCache cache = make();
  void* a = cache.allocate(4096, nullptr);
  std::string msg;
  EXPECT_EQ(status_of([&] { cache.free(reinterpret_cast<char*>(a) + 512, nullptr); }, &msg), Status::NotFound);
  EXPECT_NE(msg.find("ptr is"), std::string::npos) << msg;
  int local = 0;
  EXPECT_EQ(status_of([&] { cache.free(&local, nullptr); }), Status::NotFound);
  cache.free(a, nullptr);
  EXPECT_EQ(status_of([&] { cache.free(a, nullptr); }), Status::NotFound);  // twice
  EXPECT_EQ(status_of([&] { cache.allocate(0, nullptr); }), Status::InvalidArgument);
  EXPECT_EQ(status_of([&] { cache.allocate(SIZE_MAX, nullptr); }), Status::Overflow);
  EXPECT_EQ(cache.stats().in_use_bytes, 0u);
  EXPECT_EQ(cache.check_invariants(), "");
}

struct SmallDeviceTest : DeviceCacheTest {
  SmallDeviceTest() : DeviceCacheTest(100 * MiB) {}
};

TEST_F(SmallDeviceTest, OutOfMemoryFreesTheCacheRetriesThenFailsClearly) {
  DeviceCache cache = make();
  StreamHandle s1 = stream(0x10);
  void* a = cache.allocate(60 * MiB, s1);
  cache.free(a, s1);  // cached, and s1's work is still running
  // 60 cached + 60 new > 100: the cache waits for s1's event (not the device),
  // gives its blocks back and retries.
  void* b = cache.allocate(70 * MiB, stream(0x20));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(backend.synchronizes, 1u);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  std::string msg;
  EXPECT_EQ(status_of([&] { cache.allocate(50 * MiB, stream(0x20)); }, &msg), Status::OutOfMemory);
  EXPECT_NE(msg.find("bytes is 52428800"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in use"), std::string::npos) << msg;
  // still usable after the failure
  cache.free(b, stream(0x20));
  void* c = cache.allocate(50 * MiB, stream(0x20));
  EXPECT_NE(c, nullptr);
  cache.free(c, stream(0x20));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST_F(DeviceCacheTest, CachedBytesStayUnderTheCap) {
  DeviceCache cache = make(/*cap=*/30 * MiB);
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(cache.allocate(12 * MiB, nullptr));
  for (void* b : blocks) cache.free(b, nullptr);
  EXPECT_GT(cache.stats().cached_bytes, 30 * MiB);  // the GPU may still use them: kept for now
  backend.complete_all();
  cache.free(cache.allocate(512, nullptr), nullptr);  // the next free enforces the cap
  EXPECT_LE(cache.stats().cached_bytes, 30 * MiB);
  EXPECT_GT(backend.device_frees, 0u);
  EXPECT_EQ(cache.stats().in_use_bytes, 0u);
}

TEST_F(DeviceCacheTest, TrimGivesBackCompletedBlocksOnly) {
  DeviceCache cache = make();
  StreamHandle s1 = stream(0x10);
  void* a = cache.allocate(12 * MiB, s1);
  void* keep = cache.allocate(12 * MiB, s1);
  cache.free(a, s1);
  EXPECT_EQ(cache.trim(), 0u);  // s1's work may still use a
  backend.complete_stream(s1);
  EXPECT_EQ(cache.trim(), 12 * MiB);
  EXPECT_EQ(cache.stats().in_use_bytes, 12 * MiB);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  cache.free(keep, s1);
}

TEST_F(DeviceCacheTest, StatsAndPeak) {
  DeviceCache cache = make();
  void* a = cache.allocate(1000, nullptr);
  void* b = cache.allocate(3000, nullptr);
  EXPECT_EQ(cache.stats().in_use_bytes, 1024u + 3072u);
  cache.free(a, nullptr);
  cache.free(b, nullptr);
  AllocatorStats s = cache.stats();
  EXPECT_EQ(s.in_use_bytes, 0u);
  EXPECT_EQ(s.peak_bytes, 4096u);
  EXPECT_EQ(s.cached_bytes, 2 * MiB);
  EXPECT_EQ(s.backend_calls, 1u);
  cache.reset_counters();
  EXPECT_EQ(cache.stats().hits + cache.stats().misses + cache.stats().backend_calls, 0u);
  EXPECT_EQ(cache.stats().peak_bytes, 4096u);  // a gauge, not a counter
}

TEST_F(DeviceCacheTest, DestructorGivesEverythingBack) {
  {
    DeviceCache cache = make(1ull << 40, 4);
    (void)cache.allocate(12 * MiB, nullptr);  // still handed out
    cache.free(cache.allocate(4096, stream(0x10)), stream(0x10));
  }
  EXPECT_EQ(backend.device_used(), 0u);
  EXPECT_EQ(backend.bad_frees, 0u);
}

TEST_F(DeviceCacheTest, ManyThreadsAllocateAndFreeAtOnce) {
  DeviceCache cache = make(64 * MiB, 4);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      std::vector<std::pair<void*, StreamHandle>> mine;
      const StreamHandle streams[] = {nullptr, stream(0x10), stream(0x20), stream(0x30 + t)};
      for (int i = 0; i < 3000; ++i) {
        const std::size_t sizes[] = {512, 4096, 70000, 3 * MiB};
        const StreamHandle s = streams[(i + t) % 4];
        void* p = cache.allocate(sizes[(i * 7 + t) % 4], s);
        mine.emplace_back(p, s);
        if (mine.size() > 8 || i % 3 == 0) {
          cache.free(mine.front().first, mine.front().second);
          mine.erase(mine.begin());
        }
        if (i % 500 == 0) backend.complete_all();
      }
      for (auto& [p, s] : mine) cache.free(p, s);
      (void)failures;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(cache.stats().in_use_bytes, 0u);
  EXPECT_EQ(cache.check_invariants(), "");
  backend.complete_all();  // the GPU completes the events recorded at the frees ...
  cache.trim();            // ... and then everything goes back
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  EXPECT_EQ(backend.device_used(), 0u);
}

}  // namespace
}  // namespace ferry::core
