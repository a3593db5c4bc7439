// Batch's own life: registered with its stager's link from birth to death;
// StagerUse, a batch operation's hold on the stager.
#include "core/stage/batch.h"
#include "core/stage/stager.h"

namespace ferry::core {

Batch::Batch(std::shared_ptr<StagerLink> link) : link_(std::move(link)) {
  std::lock_guard<std::mutex> lock(link_->mutex);
  link_->live.insert(this);
}

Batch::~Batch() {
  std::lock_guard<std::mutex> lock(link_->mutex);
  if (link_->stager != nullptr && !detached) link_->stager->free_resources_locked(*this);
  link_->live.erase(this);
}

StagerUse::StagerUse(const Batch& batch) : link_(batch.link()) {
  std::lock_guard<std::mutex> lock(link_->mutex);
  FERRY_EXPECT(link_->stager != nullptr && !batch.detached, Status::InvalidHandle,
               "batch belongs to a context that was destroyed");
  stager_ = link_->stager;
  ++stager_->link_users_;
}

StagerUse::~StagerUse() {
  std::lock_guard<std::mutex> lock(link_->mutex);
  if (--stager_->link_users_ == 0) stager_->link_idle_.notify_all();
}

}  // namespace ferry::core
