#include "core/memory/stream_epochs.h"

namespace ferry::core {

StreamEpochs::~StreamEpochs() {
  for (auto& [key, s] : streams_)
    for (const Recorded& r : s.outstanding) events_.release(r.event);
}

std::uint64_t StreamEpochs::note_free(StreamKey stream) {
  PerStream& s = streams_[stream];
  s.dirty = true;
  return s.epoch;
}

void StreamEpochs::record(StreamKey stream) {
  PerStream& s = streams_[stream];
  if (!s.dirty) return;
  EventLease event(events_);
  events_.backend().event_record(event.get(), handle(stream));
  s.outstanding.push_back({s.epoch, ++recorded_, event.get()});
  event.release();
  ++s.epoch;
  s.dirty = false;
}

std::uint64_t StreamEpochs::poll(StreamKey stream) {
  auto it = streams_.find(stream);
  if (it == streams_.end()) return 0;
  PerStream& s = it->second;
  // The newest event first: once it completed, so did every event recorded
  // before it on the stream, and one query answers for all of them. (Each
  // was queried in turn: an H100 host's one-image submits spent 6-8 us in
  // the device cache's reclaim, a third of them, with several streams'
  // events outstanding.)
  if (s.outstanding.size() > 1 && events_.backend().event_query(s.outstanding.back().event)) {
    s.safe = s.outstanding.back().epoch + 1;
    for (const Recorded& r : s.outstanding) events_.release(r.event);
    s.outstanding.clear();
    return s.safe;
  }
  while (!s.outstanding.empty() && events_.backend().event_query(s.outstanding.front().event)) {
    s.safe = s.outstanding.front().epoch + 1;
    events_.release(s.outstanding.front().event);
    s.outstanding.pop_front();
  }
  return s.safe;
}

std::uint64_t StreamEpochs::wait(StreamKey stream) {
  record(stream);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return 0;
  if (!it->second.outstanding.empty())
    events_.backend().event_synchronize(it->second.outstanding.back().event);
  return poll(stream);
}

void StreamEpochs::forget_if_idle(StreamKey stream) {
  auto it = streams_.find(stream);
  if (it != streams_.end() && it->second.outstanding.empty() && !it->second.dirty) streams_.erase(it);
}

EventHandle StreamEpochs::oldest_outstanding() const {
  const Recorded* oldest = nullptr;
  for (const auto& [key, s] : streams_)
    if (!s.outstanding.empty() && (oldest == nullptr || s.outstanding.front().order < oldest->order))
      oldest = &s.outstanding.front();
  return oldest == nullptr ? nullptr : oldest->event;
}

void StreamEpochs::wait_all_recorded() {
  for (const auto& [key, s] : streams_)
    if (!s.outstanding.empty()) events_.backend().event_synchronize(s.outstanding.back().event);
}

std::size_t StreamEpochs::outstanding_events(StreamKey stream) const {
  auto it = streams_.find(stream);
  return it == streams_.end() ? 0 : it->second.outstanding.size();
}

std::size_t StreamEpochs::outstanding_events() const {
  std::size_t n = 0;
  for (const auto& [key, s] : streams_) n += s.outstanding.size();
  return n;
}

}  // namespace ferry::core
