// Batch's own life: registered with its stager's link from birth to death.
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

}  // namespace ferry::core
