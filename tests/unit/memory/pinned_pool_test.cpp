// PinnedPool on the fake backend: reuse, event-gated reuse, cap, wait, prealloc, trim, threads.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "core/memory/pinned_pool.h"
#include "tests/support/fake_runtime.h"

namespace ferry::core {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;
StreamHandle stream(std::uintptr_t n) { return reinterpret_cast<StreamHandle>(n); }

Status status_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
    return Status::Ok;
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
}

struct PinnedPoolTest : ::testing::Test {
  PinnedPool make(std::size_t cap = 64 * MiB, bool wait = true, std::size_t prealloc = 0, unsigned arenas = 1) {
    PinnedPool::Options o;
    o.cap_bytes = cap;
    o.wait_at_cap = wait;
    o.prealloc_bytes = prealloc;
    o.arenas = arenas;
    return PinnedPool(backend, events, o);
  }
  test::FakeRuntime backend;
  EventPool events{backend};
};

TEST_F(PinnedPoolTest, ReusesFreedBlocksWithoutNewAllocations) {
  PinnedPool pool = make();
  void* a = pool.allocate(4 * MiB);
  pool.free(a);
  EXPECT_EQ(pool.allocate(4 * MiB), a);
  EXPECT_EQ(backend.pinned_allocs, 1u);
  void* small = pool.allocate(1000);  // carved from the same 20 MiB segment
  EXPECT_EQ(backend.pinned_allocs, 1u);
  EXPECT_TRUE(pool.contains(small, 1000));
  EXPECT_TRUE(pool.contains(a, 4 * MiB));
  int local = 0;
  EXPECT_FALSE(pool.contains(&local, sizeof local));
  EXPECT_EQ(pool.stats().hits, 2u);
  EXPECT_EQ(pool.stats().misses, 1u);
}

TEST_F(PinnedPoolTest, BlockFreedOnAStreamWaitsForItsEvent) {
  PinnedPool pool = make();
  StreamHandle s = stream(0x10);
  void* a = pool.allocate(12 * MiB);
  pool.free_on_stream(a, s);
  EXPECT_EQ(pool.pending_count(), 1u);
  void* b = pool.allocate(12 * MiB);  // the copy from a may be in flight
  EXPECT_NE(b, a);
  backend.complete_stream(s);
  void* c = pool.allocate(12 * MiB);
  EXPECT_EQ(c, a);
  EXPECT_EQ(backend.synchronizes, 0u);  // queried, never waited
  EXPECT_EQ(pool.pending_count(), 0u);
  EXPECT_EQ(pool.check_invariants(), "");
}

TEST_F(PinnedPoolTest, AtTheCapWaitsForABlockInFlight) {
  PinnedPool pool = make(/*cap=*/24 * MiB, /*wait=*/true);
  void* a = pool.allocate(12 * MiB);
  void* b = pool.allocate(12 * MiB);
  pool.free_on_stream(a, stream(0x10));
  void* c = pool.allocate(12 * MiB);  // at the cap: waits for a's event
  EXPECT_EQ(c, a);
  EXPECT_EQ(backend.synchronizes, 1u);
  EXPECT_LE(pool.stats().in_use_bytes + pool.stats().cached_bytes, 24 * MiB);
  pool.free(b);
  pool.free(c);
}

TEST_F(PinnedPoolTest, AtTheCapWithoutWaitingFailsClearly) {
  PinnedPool pool = make(24 * MiB, /*wait=*/false);
  void* a = pool.allocate(12 * MiB);
  void* b = pool.allocate(12 * MiB);
  pool.free_on_stream(a, stream(0x10));
  std::string msg;
  EXPECT_EQ(status_of([&] { pool.allocate(12 * MiB); }, &msg), Status::OutOfMemory);
  EXPECT_NE(msg.find("pinned_cache_bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pinned_wait_at_cap is 0"), std::string::npos) << msg;
  backend.complete_stream(stream(0x10));
  EXPECT_EQ(pool.allocate(12 * MiB), a);  // usable after
  pool.free(b);
}

TEST_F(PinnedPoolTest, AtTheCapWithNothingInFlightFailsAtOnce) {
  PinnedPool pool = make(24 * MiB, true);
  void* a = pool.allocate(24 * MiB);
  std::string msg;
  EXPECT_EQ(status_of([&] { pool.allocate(512); }, &msg), Status::OutOfMemory);
  EXPECT_NE(msg.find("waiting cannot help"), std::string::npos) << msg;
  EXPECT_EQ(status_of([&] { pool.allocate(25 * MiB); }, &msg), Status::OutOfMemory);  // over the cap
  pool.free(a);
}

TEST_F(PinnedPoolTest, AtTheCapGivesBackFreeSegmentsToMakeRoom) {
  PinnedPool pool = make(24 * MiB, false);
  pool.free(pool.allocate(20 * MiB));  // a cached 20 MiB segment
  void* big = pool.allocate(22 * MiB);  // needs it gone first
  EXPECT_NE(big, nullptr);
  EXPECT_EQ(backend.pinned_used(), 22 * MiB);
  pool.free(big);
}

TEST_F(PinnedPoolTest, PreallocationServesEverySizeAndTrimGivesItBack) {
  PinnedPool pool = make(256 * MiB, true, /*prealloc=*/100 * MiB);
  EXPECT_EQ(backend.pinned_allocs, 1u);
  void* a = pool.allocate(512);
  void* b = pool.allocate(30 * MiB);
  EXPECT_EQ(backend.pinned_allocs, 1u);
  EXPECT_EQ(pool.trim(), 0u);  // in use
  pool.free(a);
  pool.free(b);
  EXPECT_EQ(pool.trim(), 100 * MiB);
  EXPECT_EQ(backend.pinned_used(), 0u);
  std::string msg;
  EXPECT_EQ(status_of([&] { make(10 * MiB, true, 20 * MiB); }, &msg), Status::InvalidArgument);
  EXPECT_NE(msg.find("pinned_prealloc_bytes"), std::string::npos);
}

TEST_F(PinnedPoolTest, BadFreesChangeNothing) {
  PinnedPool pool = make();
  void* a = pool.allocate(4096);
  int local = 0;
  EXPECT_EQ(status_of([&] { pool.free(&local); }), Status::NotFound);
  EXPECT_EQ(status_of([&] { pool.free(static_cast<char*>(a) + 512); }), Status::NotFound);
  pool.free_on_stream(a, stream(0x10));
  EXPECT_EQ(status_of([&] { pool.free(a); }), Status::NotFound);  // twice, while pending
  EXPECT_EQ(status_of([&] { pool.free_on_stream(a, stream(0x10)); }), Status::NotFound);
  EXPECT_EQ(status_of([&] { pool.allocate(0); }), Status::InvalidArgument);
  EXPECT_EQ(status_of([&] { pool.allocate(SIZE_MAX); }), Status::Overflow);
  EXPECT_EQ(pool.check_invariants(), "");
  EXPECT_EQ(events.created(), events.idle() + pool.pending_count());  // no event leaked
}

TEST_F(PinnedPoolTest, DestructorWaitsForBlocksInFlightAndFreesAll) {
  {
    PinnedPool pool = make(64 * MiB, true, 0, 4);
    pool.free_on_stream(pool.allocate(4 * MiB), stream(0x10));
    (void)pool.allocate(8 * MiB);  // never freed by the caller
  }
  EXPECT_EQ(backend.synchronizes, 1u);
  EXPECT_EQ(backend.pinned_used(), 0u);
  EXPECT_EQ(backend.bad_frees, 0u);
}

TEST_F(PinnedPoolTest, ManyThreadsUnderACap) {
  PinnedPool pool = make(/*cap=*/160 * MiB, true, 0, 4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::size_t sizes[] = {512, 4096, 300000, 2 * MiB, 5 * MiB};
        void* p = pool.allocate(sizes[(i + t) % 5]);
        if (i % 4 == 0) {
          pool.free_on_stream(p, stream(0x10 + static_cast<std::uintptr_t>(t)));
        } else {
          pool.free(p);
        }
        if (i % 50 == 0) backend.complete_all();
      }
    });
  for (auto& t : threads) t.join();
  backend.complete_all();
  EXPECT_EQ(pool.stats().in_use_bytes, 0u);
  EXPECT_LE(backend.pinned_used(), 160 * MiB);
  EXPECT_EQ(pool.check_invariants(), "");
  pool.trim();
  EXPECT_EQ(pool.pending_count(), 0u);
  EXPECT_EQ(backend.pinned_used(), 0u);
}

TEST(ArenaSlots, LiveThreadsHoldDistinctSlotsAndExitedOnesAreReused) {
  const unsigned mine = thread_arena_slot();
  EXPECT_EQ(thread_arena_slot(), mine);  // stable for a thread's life
  constexpr int kThreads = 8;
  std::vector<unsigned> slots(kThreads);
  std::atomic<int> started{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      slots[t] = thread_arena_slot();
      started.fetch_add(1);
      while (!go.load()) std::this_thread::yield();  // all alive at once
    });
  while (started.load() < kThreads) std::this_thread::yield();
  go = true;
  for (auto& t : threads) t.join();
  std::vector<unsigned> all = slots;
  all.push_back(mine);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end()) << "two live threads share a slot";
  unsigned reused = 0;
  std::thread([&] { reused = thread_arena_slot(); }).join();  // the exited threads' slots are free again
  EXPECT_NE(std::find(slots.begin(), slots.end(), reused), slots.end()) << reused;
}

TEST_F(PinnedPoolTest, EachThreadServesItselfAndAtTheCapTakesOtherArenasBlocks) {
  PinnedPool pool = make(/*cap=*/2 * MiB, true, 0, /*arenas=*/64);
  std::thread([&] { pool.free(pool.allocate(4096)); }).join();  // a 2 MiB segment in that thread's arena
  EXPECT_EQ(backend.pinned_allocs, 1u);
  void* p = pool.allocate(4096);  // another arena, no room under the cap to grow: takes that block
  EXPECT_EQ(backend.pinned_allocs, 1u);
  pool.free(p);
  EXPECT_EQ(pool.stats().hits, 1u);
  EXPECT_EQ(pool.stats().misses, 1u);
  EXPECT_EQ(pool.check_invariants(), "");
}

TEST_F(PinnedPoolTest, UnderTheCapThreadsGrowTheirOwnArenasInsteadOfSharingOne) {
  PinnedPool pool = make(/*cap=*/64 * MiB, true, 0, /*arenas=*/64);
  std::atomic<int> holding{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      void* first = pool.allocate(4096);
      holding.fetch_add(1);
      while (holding.load() < 4) std::this_thread::yield();  // all 4 threads alive at once
      pool.free(first);
      for (int i = 1; i < 100; ++i) pool.free(pool.allocate(4096));
    });
  for (auto& t : threads) t.join();
  // One segment per thread, though one 2 MiB segment could hold all four
  // blocks: each thread locks only its own arena in steady state.
  EXPECT_EQ(backend.pinned_allocs, 4u);
  EXPECT_EQ(pool.stats().hits + pool.stats().misses, 400u);
  EXPECT_EQ(pool.stats().in_use_bytes, 0u);
  EXPECT_EQ(pool.stats().peak_bytes >= 4096u, true);
  EXPECT_EQ(pool.check_invariants(), "");
}

}  // namespace
}  // namespace ferry::core
