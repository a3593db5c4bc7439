// Stager: construction, its staging and completion threads, destruction.
#include "core/stage/stager.h"

#include <algorithm>
#include <thread>

#include "core/error.h"

namespace ferry::core {
namespace {

// The completion thread runs callbacks; a blocking submit from there could
// wait for a place only that thread can give back.
thread_local bool tl_on_completion_thread = false;

}  // namespace

Stager::Stager(Parts parts)
    : parts_(std::move(parts)),
      memory_(*parts_.memory),
      converter_(*parts_.converter),
      counters_(*parts_.counters),
      runtime_(memory_.runtime()),
      streams_(memory_.stream_pool()),
      link_(std::make_shared<StagerLink>()),
      output_home_(std::make_shared<OutputHome>()),
      gate_(parts_.options.max_batches_in_flight, parts_.counters->busy_ns),
      staging_pool_(parts_.convert_on_host ? 1 : staging_thread_count(parts_.options.staging_threads),
                    [placement = parts_.placement] { bind_this_thread(placement); }) {
  link_->stager = this;
  output_home_->stager.store(this, std::memory_order_release);
  output_home_->orphans = memory_.orphans();
  if (!parts_.convert_on_host) {
    ring_ = std::make_unique<StagingRing>(memory_.pinned_pool(), memory_.event_pool(),
                                          parts_.options.max_staging_bytes, streams_.streams().size() + 2);
    inputs_ = std::make_unique<StreamInputs>(memory_.device_cache(), streams_.streams());
    // The stream of the tails read in place (stager_tail.cpp), theirs alone:
    // on a stream of the pool, a frame's tail would queue behind whatever
    // other batch's copies went there.
    if (runtime_.has_streams() && runtime_.kernels_read_pinned_memory()) tail_stream_ = runtime_.stream_create(true);
  }
  staging_thread_ = std::thread([this] { staging_loop(); });
  completion_thread_ = std::thread([this] { completion_loop(); });
}

Stager::~Stager() {
  gate_.close();
  to_stage_.close();  // the staging thread drains what was submitted, then stops
  staging_thread_.join();
  gate_.wait_idle();
  to_complete_.close();
  completion_thread_.join();
  {
    std::lock_guard<std::mutex> lock(link_->mutex);
    for (Batch* b : link_->live) {
      std::unique_lock<std::mutex> batch_lock(b->mutex);
      const bool give = b->detach_locked(batch_lock);
      batch_lock.unlock();
      if (give) give_back(*b);
    }
    link_->live.clear();
    link_->stager = nullptr;
  }
  {
    // Outputs still held by tensor references outlive the context: the device
    // cache, destroyed next, leaves their segments to the orphan registry.
    std::lock_guard<std::mutex> lock(output_home_->mutex);
    for (OutputBlock* block : output_home_->shared) output_home_->orphans->hold(block->data());
    output_home_->stager.store(nullptr, std::memory_order_release);
  }
  inputs_.reset();
  ring_.reset();
  if (tail_stream_ != nullptr) runtime_.stream_destroy(tail_stream_);
}

bool Stager::on_completion_thread() noexcept { return tl_on_completion_thread; }

void Stager::staging_loop() {
  bind_this_thread(parts_.placement);
  try {
    runtime_.enter_device();  // this thread works on the context's device from now on
  } catch (...) {
    // Each batch reports the device's failure when it uses it.
  }
  while (std::shared_ptr<Batch> batch = to_stage_.pop()) run(*batch);
}

void Stager::completion_loop() {
  tl_on_completion_thread = true;
  bind_this_thread(parts_.placement);
  try {
    runtime_.enter_device();
  } catch (...) {
  }
  while (std::shared_ptr<Batch> batch = to_complete_.pop()) finish(batch);
}

}  // namespace ferry::core
