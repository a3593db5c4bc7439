// StreamOrderedPool on the fake backend: the orders in which events complete,
// host reuse only after completion, the cap and its waits, trim, a failing
// upstream, invariants.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"
#include "core/memory/pinned_pool.h"
#include "core/memory/stream_ordered_pool.h"
#include "tests/support/fake_runtime.h"

namespace ferry::core {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;
StreamHandle stream(std::uintptr_t n) { return reinterpret_cast<StreamHandle>(n); }

struct StreamOrderedPoolTest : ::testing::Test {
  StreamOrderedPool::Options options(std::size_t cap = 64 * MiB, bool wait = true) {
    StreamOrderedPool::Options o;
    o.cap_bytes = cap;
    o.wait_at_cap = wait;
    o.arenas = 1;
    o.policy = SizePolicy::pinned();
    return o;
  }
  test::FakeRuntime backend;
  EventPool events{backend};
  PinnedSegments upstream{backend};
};

TEST_F(StreamOrderedPoolTest, HostRequestsGetABlockOnlyOnceItsStreamCompleted) {
  StreamOrderedPool pool(upstream, events, options());
  void* a = pool.allocate(12 * MiB);
  void* b = pool.allocate(12 * MiB);
  pool.free(a, stream(0x10));
  pool.free(b, stream(0x20));
  backend.complete_stream(stream(0x20));  // the later free completes first
  EXPECT_EQ(pool.allocate(12 * MiB), b);
  void* c = pool.allocate(12 * MiB);
  EXPECT_NE(c, a);  // 0x10 may still read a
  backend.complete_stream(stream(0x10));
  EXPECT_EQ(pool.allocate(12 * MiB), a);
  EXPECT_EQ(backend.synchronizes, 0u);  // queried, never waited
  EXPECT_EQ(pool.check_invariants(), "");
}

TEST_F(StreamOrderedPoolTest, OnOneStreamOnlyTheEpochsWhoseEventCompletedAreReused) {
  StreamOrderedPool pool(upstream, events, options());
  void* a = pool.allocate(12 * MiB);
  void* b = pool.allocate(12 * MiB);
  pool.free(a, stream(0x10));
  backend.complete_stream(stream(0x10));  // a's event completed ...
  pool.free(b, stream(0x10));             // ... b's, recorded later, not
  EXPECT_EQ(pool.outstanding_events(), 2u);
  EXPECT_EQ(pool.allocate(12 * MiB), a);
  EXPECT_NE(pool.allocate(12 * MiB), b);
  EXPECT_EQ(pool.outstanding_events(), 1u);
}

TEST_F(StreamOrderedPoolTest, AStreamReusesItsOwnFreesAtOnceAHostRequestNever) {
  StreamOrderedPool pool(upstream, events, options());
  void* a = pool.allocate(12 * MiB, stream(0x10));
  pool.free(a, stream(0x10));
  EXPECT_NE(pool.allocate(12 * MiB), a);                // written by the host: must wait
  EXPECT_EQ(pool.allocate(12 * MiB, stream(0x10)), a);  // in stream order: safe at once
  EXPECT_EQ(pool.check_invariants(), "");
}

TEST_F(StreamOrderedPoolTest, AtTheCapWaitsForTheOldestEventInFlight) {
  StreamOrderedPool pool(upstream, events, options(/*cap=*/24 * MiB));
  void* a = pool.allocate(12 * MiB);
  void* b = pool.allocate(12 * MiB);
  pool.free(a, stream(0x20));  // recorded first, on the stream of higher address
  pool.free(b, stream(0x10));
  EXPECT_EQ(pool.allocate(12 * MiB), a);
  EXPECT_EQ(backend.synchronizes, 1u);  // one event, a's: b's stream still runs
  EXPECT_EQ(pool.outstanding_events(), 1u);
  EXPECT_LE(pool.held_bytes(), 24 * MiB);
}

TEST_F(StreamOrderedPoolTest, TryAllocateAtTheCapWithNothingInFlightReturnsNull) {
  StreamOrderedPool pool(upstream, events, options(/*cap=*/24 * MiB));
  void* a = pool.allocate(24 * MiB);
  EXPECT_EQ(pool.try_allocate(512), nullptr);
  pool.free(a);
  EXPECT_EQ(pool.try_allocate(512), a);  // the split head of the same segment
  pool.raise_cap(48 * MiB);
  EXPECT_NE(pool.try_allocate(24 * MiB), nullptr);  // room to grow now
  EXPECT_EQ(pool.cap_bytes(), 48 * MiB);
  pool.raise_cap(8 * MiB);  // a cap never falls
  EXPECT_EQ(pool.cap_bytes(), 48 * MiB);
}

TEST_F(StreamOrderedPoolTest, TrimGivesBackOnlySegmentsWhoseWorkCompleted) {
  StreamOrderedPool pool(upstream, events, options());
  void* a = pool.allocate(12 * MiB);
  void* b = pool.allocate(12 * MiB);
  pool.free(a, stream(0x10));
  pool.free(b);
  EXPECT_EQ(pool.trim(), 12 * MiB);  // b's segment only
  backend.complete_stream(stream(0x10));
  EXPECT_EQ(pool.trim(), 12 * MiB);
  EXPECT_EQ(pool.held_bytes(), 0u);
  EXPECT_EQ(backend.pinned_used(), 0u);
  EXPECT_EQ(pool.outstanding_events(), 0u);
  EXPECT_EQ(events.created(), events.idle());  // every event back in the pool
  EXPECT_EQ(pool.check_invariants(), "");
}

TEST_F(StreamOrderedPoolTest, EveryFreeOnAStreamRecordsItsEventThen) {
  StreamOrderedPool pool(upstream, events, options());
  void* a = pool.allocate(12 * MiB, stream(0x10));
  pool.free(a, stream(0x10));
  EXPECT_EQ(backend.records, 1u);
  backend.complete_stream(stream(0x10));  // the work before the free finished
  // Another stream, or host code, wants memory later: the event recorded at
  // the free is complete, so the block is reused rather than the pool grown.
  // (An event recorded only now would still be pending.)
  EXPECT_EQ(pool.allocate(12 * MiB), a);
  EXPECT_EQ(backend.records, 1u);
  EXPECT_EQ(backend.pinned_allocs, 1u);
}

TEST_F(StreamOrderedPoolTest, FreesOnACallersStreamDoNotPileUpEvents) {
  StreamOrderedPool pool(upstream, events, options());
  backend.complete_all();
  for (int i = 0; i < 200; ++i) {
    pool.free(pool.allocate(4096, stream(0x10)), stream(0x10));
    backend.complete_stream(stream(0x10));
  }
  EXPECT_LE(pool.outstanding_events(), 65u);  // polled as they go, without any host allocation
}

TEST_F(StreamOrderedPoolTest, AFailingUpstreamLeavesThePoolAsItWas) {
  PinnedPool::Options small;
  small.cap_bytes = 8 * MiB;
  small.wait_at_cap = false;
  small.arenas = 1;
  PinnedPool pinned(backend, events, small);
  PinnedPoolBlocks blocks(pinned);
  StreamOrderedPool pool(blocks, events, options(/*cap=*/64 * MiB));
  EXPECT_THROW(pool.allocate(12 * MiB), Error);  // the pinned pool refuses: its cap
  EXPECT_EQ(pool.held_bytes(), 0u);
  EXPECT_EQ(pool.check_invariants(), "");
  void* a = pool.allocate(4 * MiB);  // a smaller request still fits upstream
  EXPECT_TRUE(pinned.contains(a, 4 * MiB));
  pool.free(a, stream(0x10));
}

TEST_F(StreamOrderedPoolTest, DestructorWaitsForRecordedEventsAndGivesEverySegmentBack) {
  {
    StreamOrderedPool pool(upstream, events, options());
    pool.free(pool.allocate(4 * MiB), stream(0x10));
    pool.free(pool.allocate(4 * MiB), stream(0x20));
    (void)pool.allocate(4 * MiB);  // never freed
  }
  EXPECT_EQ(backend.synchronizes, 2u);  // one per stream: the last event covers the earlier ones
  EXPECT_EQ(backend.pinned_used(), 0u);
  EXPECT_EQ(backend.bad_frees, 0u);
  EXPECT_EQ(events.created(), events.idle());
}

}  // namespace
}  // namespace ferry::core
