// StreamEpochs on the fake backend: a poll asks the newest event first, and
// one query answers for every event recorded before it on the stream.
#include <gtest/gtest.h>

#include "core/device/event_pool.h"
#include "core/memory/stream_epochs.h"
#include "tests/support/fake_runtime.h"

namespace ferry::core {
namespace {

StreamKey key_of(std::uintptr_t n) { return static_cast<StreamKey>(n); }

struct StreamEpochsTest : ::testing::Test {
  test::FakeRuntime backend;
  EventPool events{backend};
  // Frees one block on `stream` and records the event that closes its epoch; returns its tag.
  std::uint64_t free_and_record(StreamEpochs& epochs, StreamKey stream) {
    const std::uint64_t tag = epochs.note_free(stream);
    epochs.record(stream);
    return tag;
  }
};

TEST_F(StreamEpochsTest, OneQueryWhenTheNewestEventCompleted) {
  StreamEpochs epochs(events);
  const StreamKey s = key_of(0x10);
  std::uint64_t last = 0;
  for (int i = 0; i < 5; ++i) last = free_and_record(epochs, s);
  ASSERT_EQ(epochs.outstanding_events(s), 5u);
  backend.complete_stream(reinterpret_cast<StreamHandle>(s));
  const std::size_t before = backend.queries;
  EXPECT_EQ(epochs.poll(s), last + 1);  // every block tagged up to the last free is safe
  EXPECT_EQ(backend.queries - before, 1u);
  EXPECT_EQ(epochs.outstanding_events(s), 0u);
  EXPECT_EQ(backend.synchronizes, 0u);
}

TEST_F(StreamEpochsTest, AnIncompleteNewestEventLeavesTheCompletedOlderOnesToTheWalk) {
  StreamEpochs epochs(events);
  const StreamKey s = key_of(0x10);
  std::uint64_t done = 0;
  for (int i = 0; i < 3; ++i) done = free_and_record(epochs, s);
  backend.complete_stream(reinterpret_cast<StreamHandle>(s));  // these three completed ...
  const std::uint64_t busy = free_and_record(epochs, s);       // ... this one not yet
  const std::size_t before = backend.queries;
  EXPECT_EQ(epochs.poll(s), done + 1);  // not busy + 1
  EXPECT_LT(done, busy);
  EXPECT_EQ(backend.queries - before, 1u + 4u);  // the newest, then the walk: three complete, one not
  EXPECT_EQ(epochs.outstanding_events(s), 1u);
  backend.complete_stream(reinterpret_cast<StreamHandle>(s));
  EXPECT_EQ(epochs.poll(s), busy + 1);
  EXPECT_EQ(epochs.outstanding_events(s), 0u);
}

TEST_F(StreamEpochsTest, StreamsArePolledApart) {
  StreamEpochs epochs(events);
  const StreamKey a = key_of(0x10), b = key_of(0x20);
  free_and_record(epochs, a);
  free_and_record(epochs, a);
  free_and_record(epochs, b);
  free_and_record(epochs, b);
  backend.complete_stream(reinterpret_cast<StreamHandle>(b));
  EXPECT_EQ(epochs.poll(a), 0u);  // nothing on a completed: no block of a is safe
  EXPECT_EQ(epochs.outstanding_events(a), 2u);
  EXPECT_GT(epochs.poll(b), 0u);
  EXPECT_EQ(epochs.outstanding_events(b), 0u);
}

}  // namespace
}  // namespace ferry::core
