#include "core/memory/stream_epochs.h"

namespace ferry::core {

StreamEpochs::~StreamEpochs() {
  for (auto& [key, s] : streams_)
    for (auto& [epoch, event] : s.outstanding) events_.release(event);
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
  s.outstanding.emplace_back(s.epoch, event.get());
  event.release();
  ++s.epoch;
  s.dirty = false;
}

std::uint64_t StreamEpochs::poll(StreamKey stream) {
  auto it = streams_.find(stream);
  if (it == streams_.end()) return 0;
  PerStream& s = it->second;
  while (!s.outstanding.empty() && events_.backend().event_query(s.outstanding.front().second)) {
    s.safe = s.outstanding.front().first + 1;
    events_.release(s.outstanding.front().second);
    s.outstanding.pop_front();
  }
  return s.safe;
}

std::uint64_t StreamEpochs::wait(StreamKey stream) {
  record(stream);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return 0;
  if (!it->second.outstanding.empty())
    events_.backend().event_synchronize(it->second.outstanding.back().second);
  return poll(stream);
}

void StreamEpochs::forget_if_idle(StreamKey stream) {
  auto it = streams_.find(stream);
  if (it != streams_.end() && it->second.outstanding.empty() && !it->second.dirty) streams_.erase(it);
}

std::size_t StreamEpochs::outstanding_events() const {
  std::size_t n = 0;
  for (const auto& [key, s] : streams_) n += s.outstanding.size();
  return n;
}

}  // namespace ferry::core
