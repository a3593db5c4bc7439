// A small fixed pool of worker threads with one primitive, parallel_for,
// blocking or started ahead (start_for, then wait). Used by the CPU
// conversion and the staging pipeline.
//
// Thread safety: every member function may be called from any thread,
// concurrently; parallel_for may also be called from inside a parallel_for
// body (nested calls cannot deadlock: the calling thread always runs chunks
// of its own job itself, so a job never waits on a thread that waits on it).
// A Started job belongs to the thread that started it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ferry::core {

class ThreadPool {
  struct Job;  // one parallel_for's chunks and state (thread_pool.cpp)

 public:
  // threads: how many threads run a parallel_for, the caller included (so
  // threads - 1 workers are started). 0 means the machine's hardware threads.
  // on_worker_start, if set, runs first on each worker (to place it on CPUs).
  explicit ThreadPool(int threads = 0, std::function<void()> on_worker_start = {});
  ~ThreadPool();  // joins the workers; no parallel_for may be running
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const noexcept { return size_; }

  // Calls fn(chunk_begin, chunk_end) over disjoint chunks covering [begin, end),
  // on the pool's threads and the calling thread, and returns when all are done.
  // Chunks hold at least `grain` indices (the last may hold fewer). If a call of
  // fn throws, the remaining unstarted chunks are skipped and the first
  // exception is rethrown here, after every started chunk has finished.
  void parallel_for(std::int64_t begin, std::int64_t end,
                    const std::function<void(std::int64_t, std::int64_t)>& fn,
                    std::int64_t grain = 1);

  // A parallel_for whose chunks the workers take once those of the jobs
  // queued before it are claimed, while the caller goes on: the staging
  // pipeline starts a chunk's gather before it queues the previous chunk's
  // copy, so the workers never wait at a chunk's end. wait() runs its
  // unclaimed chunks on the calling thread, waits for the rest and rethrows
  // the first exception; destruction without wait() waits (and drops the
  // exception). fn must outlive the wait.
  class Started {
   public:
    Started() = default;
    Started(Started&&) noexcept = default;
    Started& operator=(Started&& other) noexcept;
    ~Started();
    void wait();
    bool pending() const noexcept { return job_ != nullptr; }

   private:
    friend class ThreadPool;
    ThreadPool* pool_ = nullptr;
    std::shared_ptr<Job> job_;
  };
  Started start_for(std::int64_t begin, std::int64_t end, const std::function<void(std::int64_t, std::int64_t)>& fn,
                    std::int64_t grain = 1);

 private:
  void finish(Job& job);  // Started::wait: the caller's chunks, then the others'; rethrows
  void worker_loop();
  static void run_chunks(Job& job);

  int size_ = 1;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ferry::core
