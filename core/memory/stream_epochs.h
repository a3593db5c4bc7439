// StreamEpochs: when is memory freed on stream S safe on every other stream?
//
// A free on S is tagged with S's current epoch. Recording an event on S
// closes that epoch (the event covers every free tagged with it or earlier)
// and opens the next. When the event recorded at the close of epoch e has
// completed, every block tagged <= e is safe everywhere: safe_epoch(S) = e + 1.
//
// The owner records at each free: a caller may destroy its stream at any
// time, and an event recorded later (when another stream wants the memory)
// would also cover the work queued meanwhile, so it would seldom be complete
// when polled and memory whose work finished would look busy.
//
// Events on one stream complete in order, so a poll asks the newest
// outstanding event first (complete: all are), then the others front to
// back. Not thread-safe: the owner's arena lock guards it.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

#include "core/memory/block_arena.h"
#include "core/device/device_runtime.h"
#include "core/device/event_pool.h"

namespace ferry::core {

class StreamEpochs {
 public:
  explicit StreamEpochs(EventPool& events) : events_(events) {}
  ~StreamEpochs();  // gives every outstanding event back to the pool
  StreamEpochs(const StreamEpochs&) = delete;
  StreamEpochs& operator=(const StreamEpochs&) = delete;

  // The tag of a block freed now on `stream`.
  std::uint64_t note_free(StreamKey stream);
  // Records an event on `stream` covering every free so far (none if nothing is uncovered).
  void record(StreamKey stream);
  // Queries the outstanding events; returns the safe epoch (blocks tagged below it are safe).
  std::uint64_t poll(StreamKey stream);
  // Waits (event synchronize, never a device sync) until every free so far is safe.
  std::uint64_t wait(StreamKey stream);
  // Drops the bookkeeping of a stream with nothing outstanding (its blocks are gone).
  void forget_if_idle(StreamKey stream);
  // The event recorded first of those not yet seen complete, on any stream;
  // nullptr when none. Waiting on it frees the memory in flight longest.
  EventHandle oldest_outstanding() const;
  // Waits (event synchronize) for every event recorded so far; records none.
  void wait_all_recorded();

  std::size_t outstanding_events() const;
  std::size_t outstanding_events(StreamKey stream) const;
  std::size_t tracked_streams() const noexcept { return streams_.size(); }

 private:
  struct Recorded {
    std::uint64_t epoch;  // the epoch it closed
    std::uint64_t order;  // when it was recorded, over all streams
    EventHandle event;
  };
  struct PerStream {
    std::uint64_t epoch = 0;   // the open epoch: frees now are tagged with it
    bool dirty = false;        // the open epoch has frees no event covers yet
    std::uint64_t safe = 0;
    std::deque<Recorded> outstanding;
  };
  static StreamHandle handle(StreamKey key) { return reinterpret_cast<StreamHandle>(key); }

  EventPool& events_;
  std::unordered_map<StreamKey, PerStream> streams_;
  std::uint64_t recorded_ = 0;
};

}  // namespace ferry::core
