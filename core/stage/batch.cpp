// Batch's own life: registered with its stager's link from birth to death,
// and what its hold answers once the resources are gone.
#include "core/stage/batch.h"
#include "core/stage/stager.h"

namespace ferry::core {

Batch::Batch(std::shared_ptr<StagerLink> link) : link_(std::move(link)) {
  std::lock_guard<std::mutex> lock(link_->mutex);
  link_->live.insert(this);
}

Batch::~Batch() {
  std::lock_guard<std::mutex> lock(link_->mutex);
  // Nobody else holds the batch now: its own lock is not needed. A detached
  // batch's stager is gone and gave everything back before it went.
  if (link_->stager != nullptr && hold_.last_reference_gone()) link_->stager->give_back(*this);
  link_->live.erase(this);
}

void Batch::expect_held_locked() const {
  switch (hold_.state()) {
    case BatchHold::State::kHeld:
    case BatchHold::State::kReleased:
      return;
    case BatchHold::State::kGivenBack:
      fail(Status::InvalidHandle, "batch was released");
    case BatchHold::State::kDetached:
      fail(Status::InvalidHandle, "batch belongs to a context that was destroyed");
  }
}

std::shared_ptr<OutputBlock> Batch::output_block_locked() const {
  expect_held_locked();
  // Released, not yet finished: its ferry output may have gone back already.
  // A reference racing that release holds nothing: the block is the cache's
  // again, to be handed out or trimmed while the reference still reads it.
  if (submitted.owns_output && output_block_ == nullptr) fail(Status::InvalidHandle, "batch was released");
  return output_block_;
}

}  // namespace ferry::core
