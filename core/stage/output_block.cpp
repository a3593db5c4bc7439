#include "core/stage/output_block.h"

#include "core/stage/stager.h"

namespace ferry::core {

OutputBlock::OutputBlock(std::shared_ptr<OutputHome> home, void* data, StreamHandle home_stream)
    : home_(std::move(home)), data_(data), home_stream_(home_stream) {}

OutputBlock::~OutputBlock() {
  if (!shared_.load(std::memory_order_acquire)) {
    if (Stager* stager = home_->stager.load(std::memory_order_acquire)) {
      stager->return_output(data_, home_stream_, consumers_, consumers_waited_for_end_);
      return;
    }
  }
  std::lock_guard<std::mutex> lock(home_->mutex);
  home_->shared.erase(this);
  if (Stager* stager = home_->stager.load(std::memory_order_acquire)) {
    stager->return_output(data_, home_stream_, consumers_, consumers_waited_for_end_);
  } else if (home_->orphans != nullptr) {
    home_->orphans->release(data_);
  }
}

void OutputBlock::share() {
  if (shared_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(home_->mutex);
  home_->shared.insert(this);
  shared_.store(true, std::memory_order_release);
}

void OutputBlock::set_consumers(const std::vector<StreamHandle>& streams, bool waited_for_end) {
  std::lock_guard<std::mutex> lock(mutex_);
  consumers_ = streams;
  consumers_waited_for_end_ = waited_for_end;
}

}  // namespace ferry::core
