// BatchQueue: the blocking queue between the pipeline's threads (submit ->
// staging thread, staging -> completion thread). Batches of higher priority
// go before those of lower priority; equal priorities keep their order.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

namespace ferry::core {

class Batch;

class BatchQueue {
 public:
  void push(std::shared_ptr<Batch> batch, int priority) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = items_.end();
      while (it != items_.begin() && std::prev(it)->priority < priority) --it;
      items_.insert(it, Item{std::move(batch), priority});
    }
    ready_.notify_one();
  }
  // The next batch, or null once the queue is closed and empty.
  std::shared_ptr<Batch> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return nullptr;
    std::shared_ptr<Batch> batch = std::move(items_.front().batch);
    items_.pop_front();
    return batch;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  struct Item {
    std::shared_ptr<Batch> batch;
    int priority;
  };
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Item> items_;
  bool closed_ = false;
};

}  // namespace ferry::core
