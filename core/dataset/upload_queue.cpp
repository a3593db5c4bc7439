#include "core/dataset/upload_queue.h"

#include <chrono>
#include <thread>

#include "core/error.h"

namespace ferry::core {

UploadQueue::~UploadQueue() {
  while (!in_flight_.empty()) {
    try {
      retire_oldest();
    } catch (...) {
    }
  }
}

void UploadQueue::send(const SourceDesc& part, const Transform& transform, const OutputDesc& out,
                       const SubmitOptions& submit) {
  std::shared_ptr<Batch> batch;
  for (;;) {
    if (in_flight_.size() >= kInFlight) retire_oldest();
    try {
      batch = stager_.prepare(part, transform, &out, submit);
      break;
    } catch (const Error& e) {
      if (e.status() != Status::Busy) throw;
      if (!in_flight_.empty()) {
        retire_oldest();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
  }
  stager_.launch(batch);
  in_flight_.push_back(std::move(batch));
  ++sent_;
}

void UploadQueue::retire_through(std::size_t count) {
  while (retired_ < count && !in_flight_.empty()) retire_oldest();
}

void UploadQueue::retire_oldest() {
  std::shared_ptr<Batch> b = std::move(in_flight_.front());
  in_flight_.pop_front();
  ++retired_;
  struct Release {
    Stager& stager;
    Batch& batch;
    ~Release() {
      try {
        stager.release(batch);
      } catch (...) {
      }
    }
  } release{stager_, *b};
  stager_.wait(*b);
}

}  // namespace ferry::core
