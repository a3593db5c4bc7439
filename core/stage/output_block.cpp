#include "core/stage/output_block.h"

#include <algorithm>

#include "core/stage/stager.h"

namespace ferry::core {

OutputBlock::OutputBlock(std::shared_ptr<OutputHome> home, void* data, StreamHandle home_stream)
    : home_(std::move(home)), data_(data), home_stream_(home_stream) {
  std::lock_guard<std::mutex> lock(home_->mutex);
  home_->live.insert(this);
}

OutputBlock::~OutputBlock() {
  std::lock_guard<std::mutex> lock(home_->mutex);
  home_->live.erase(this);
  if (home_->stager != nullptr) {
    home_->stager->return_output(data_, home_stream_, consumers_);
  } else if (home_->orphans != nullptr) {
    home_->orphans->release(data_);
  }
}

void OutputBlock::add_consumer(StreamHandle stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(consumers_.begin(), consumers_.end(), stream) == consumers_.end()) consumers_.push_back(stream);
}

}  // namespace ferry::core
