// The staging ring on the fake runtime, whose copies finish only when a test
// says so: a buffer is reused only after its copy, the ring waits for the
// oldest copy rather than grow past the buffers it wants, and its steady
// state takes no new pinned memory.
#include <gtest/gtest.h>

#include "core/memory/pinned_pool.h"
#include "core/stage/staging_ring.h"
#include "tests/support/fake_runtime.h"

namespace ferry::core {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;
StreamHandle stream(std::uintptr_t n) { return reinterpret_cast<StreamHandle>(n); }

TEST(StageStagingRingInFlight, ReusesABufferAfterItsCopyAndWaitsForTheOldestCopy) {
  test::FakeRuntime backend;
  EventPool events{backend};
  PinnedPool pinned(backend, events, PinnedPool::Options{});
  {
    StagingRing ring(pinned, events, 256 * MiB, /*slots_wanted=*/3);
    void* a = ring.acquire(4 * MiB);
    EXPECT_EQ(ring.held_bytes(), 12 * MiB);  // three buffers' worth at once
    ring.release_after_copy(a, stream(0x10));
    void* b = ring.acquire(4 * MiB);
    EXPECT_NE(b, a);  // the copy from a may still run
    ring.release_after_copy(b, stream(0x20));
    void* c = ring.acquire(4 * MiB);
    ring.release_after_copy(c, stream(0x10));
    // Three copies in flight in three buffers: the fourth waits for the oldest, a's.
    void* d = ring.acquire(4 * MiB);
    EXPECT_EQ(d, a);
    EXPECT_EQ(backend.synchronizes, 1u);
    EXPECT_EQ(ring.held_bytes(), 12 * MiB);
    ring.release_after_copy(d, stream(0x10));
    const std::size_t allocs = backend.pinned_allocs;
    for (int i = 0; i < 300; ++i) {
      ring.release_after_copy(ring.acquire(4 * MiB - 512 * (i % 3)), stream(0x10 + 0x10 * (i % 2)));
      if (i % 5 == 0) backend.complete_all();
    }
    EXPECT_EQ(backend.pinned_allocs, allocs);  // the steady state: no new pinned memory
    EXPECT_EQ(ring.held_bytes(), 12 * MiB);
    EXPECT_EQ(backend.unexpected_calls, 0u);
    // A trim gives back what no copy reads: nothing while a copy is in flight, all once it completed.
    void* e = ring.acquire(4 * MiB);
    ring.release_after_copy(e, stream(0x30));
    EXPECT_EQ(ring.trim(), 0u);
    backend.complete_all();
    EXPECT_EQ(ring.trim(), 12 * MiB);
    EXPECT_EQ(ring.held_bytes(), 0u);
    EXPECT_EQ(pinned.stats().in_use_bytes, 0u);
    EXPECT_NE(ring.acquire(4 * MiB), nullptr);  // and takes memory again when asked
  }
  EXPECT_EQ(pinned.stats().in_use_bytes, 0u);  // the ring gave its buffers back
  EXPECT_EQ(pinned.check_invariants(), "");
}

}  // namespace
}  // namespace ferry::core
