// UploadQueue: the batches of a resident dataset's upload in flight through
// the staging pipeline (one batch a part; its output is the part's place in
// device memory), a few at once, retired oldest first.
//
// Not thread-safe: one per upload, on the thread that creates the dataset.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>

#include "core/convert/descriptors.h"
#include "core/stage/stager.h"
#include "core/stage/submit_options.h"

namespace ferry::core {

class UploadQueue {
 public:
  // Upload batches in flight at once: enough to keep the bus busy while the
  // next part is staged, few enough to leave the context's places to others.
  static constexpr std::size_t kInFlight = 4;

  explicit UploadQueue(Stager& stager) : stager_(stager) {}
  // Waits for every batch still in flight (nothing may still write memory
  // that goes back after an error), errors swallowed.
  ~UploadQueue();
  UploadQueue(const UploadQueue&) = delete;
  UploadQueue& operator=(const UploadQueue&) = delete;

  // Launches one part, retiring the oldest first when kInFlight are in flight
  // (or when a context created with submit_nonblocking answers Busy).
  void send(const SourceDesc& part, const Transform& transform, const OutputDesc& out, const SubmitOptions& submit);
  // Waits for the oldest batches until `count` have been retired since this
  // queue was made; throws the first failure.
  void retire_through(std::size_t count);
  // Waits for every batch in flight; throws the first failure.
  void finish() { retire_through(sent_); }
  std::size_t sent() const noexcept { return sent_; }

 private:
  void retire_oldest();

  Stager& stager_;
  std::deque<std::shared_ptr<Batch>> in_flight_;
  std::size_t sent_ = 0, retired_ = 0;
};

}  // namespace ferry::core
