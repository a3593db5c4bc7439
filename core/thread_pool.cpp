#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>

namespace ferry::core {

// One parallel_for call: chunks are claimed with an atomic counter, so any
// number of threads can help without further locking.
struct ThreadPool::Job {
  const std::function<void(std::int64_t, std::int64_t)>* fn = nullptr;
  std::int64_t begin = 0, end = 0, chunk = 1, chunks = 0;
  std::atomic<std::int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards finished, error
  std::condition_variable done;
  std::int64_t finished = 0;
  std::exception_ptr error;
};

ThreadPool::ThreadPool(int threads, std::function<void()> on_worker_start) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  size_ = threads;
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i)
    workers_.emplace_back([this, on_worker_start] {
      if (on_worker_start) on_worker_start();
      worker_loop();
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_chunks(Job& job) {
  for (;;) {
    const std::int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.chunks) return;
    std::exception_ptr error;
    if (!job.failed.load(std::memory_order_relaxed)) {
      const std::int64_t b = job.begin + c * job.chunk;
      const std::int64_t e = std::min(job.end, b + job.chunk);
      try {
        (*job.fn)(b, e);
      } catch (...) {
        error = std::current_exception();
        job.failed.store(true, std::memory_order_relaxed);
      }
    }
    std::lock_guard<std::mutex> lock(job.mutex);
    if (error && !job.error) job.error = error;
    if (++job.finished == job.chunks) job.done.notify_all();
  }
}

void ThreadPool::worker_loop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = jobs_.front();
      // A job whose chunks are all claimed leaves the queue; its owner waits for it.
      if (job->next.load(std::memory_order_relaxed) >= job->chunks - 1) jobs_.pop_front();
    }
    run_chunks(*job);
  }
}

void ThreadPool::parallel_for(std::int64_t begin, std::int64_t end,
                              const std::function<void(std::int64_t, std::int64_t)>& fn,
                              std::int64_t grain) {
  start_for(begin, end, fn, grain).wait();
}

ThreadPool::Started ThreadPool::start_for(std::int64_t begin, std::int64_t end,
                                          const std::function<void(std::int64_t, std::int64_t)>& fn,
                                          std::int64_t grain) {
  Started started;
  if (end <= begin) return started;
  const std::int64_t count = end - begin;
  grain = std::max<std::int64_t>(grain, 1);
  // About four chunks per thread balances uneven rows without much overhead.
  const std::int64_t target_chunks = std::max<std::int64_t>(1, std::int64_t{size_} * 4);
  const std::int64_t chunk = std::max(grain, (count + target_chunks - 1) / target_chunks);
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->begin = begin;
  job->end = end;
  job->chunk = chunk;
  job->chunks = (count + chunk - 1) / chunk;
  if (job->chunks > 1 && !workers_.empty()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(job);
    }
    wake_.notify_all();
  }
  started.pool_ = this;
  started.job_ = std::move(job);
  return started;
}

void ThreadPool::finish(Job& job) {
  run_chunks(job);
  {
    std::unique_lock<std::mutex> lock(job.mutex);
    job.done.wait(lock, [&] { return job.finished == job.chunks; });
  }
  {
    // The job may still sit in the queue if no worker reached it: take it out.
    std::lock_guard<std::mutex> lock(mutex_);
    const auto is_this = [&](const std::shared_ptr<Job>& queued) { return queued.get() == &job; };
    jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(), is_this), jobs_.end());
  }
  if (job.error) std::rethrow_exception(job.error);
}

void ThreadPool::Started::wait() {
  if (job_ == nullptr) return;
  const std::shared_ptr<Job> job = std::move(job_);
  pool_->finish(*job);
}

ThreadPool::Started& ThreadPool::Started::operator=(Started&& other) noexcept {
  if (this != &other) {
    Started old(std::move(*this));  // waited for as it goes
    pool_ = other.pool_;
    job_ = std::move(other.job_);
  }
  return *this;
}

ThreadPool::Started::~Started() {
  try {
    wait();
  } catch (...) {
    // Dropped: an owner that wanted the error called wait().
  }
}

}  // namespace ferry::core
