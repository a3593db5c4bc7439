// OutputBlock: a batch's output that ferry allocated, owned jointly by the
// batch and by every tensor reference taken on it (ferry_tensor_retain).
//
// The last owner to let go gives the block back:
//   - while the context lives, to its device cache in stream order: after the
//     batch's own work (its home stream) and after every stream that was made
//     to wait for the output (those streams must still exist then);
//   - once the context is destroyed, to OrphanSegments, which frees the
//     block's segment when its last held block goes.
// So a tensor made from a batch stays valid after the batch is released and
// after its context is destroyed, for as long as its holder keeps it.
//
// Thread-safe; the destructor may run on any thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "core/device/device_runtime.h"
#include "core/memory/orphan_segments.h"

namespace ferry::core {

class Stager;
class OutputBlock;

// How outputs get home; outlives the stager. Lock order: a batch's mutex,
// then a StagerLink's, then this one.
struct OutputHome {
  std::mutex mutex;
  std::atomic<Stager*> stager{nullptr};     // null once the context is being destroyed
  std::shared_ptr<OrphanSegments> orphans;  // where blocks go after that
  std::unordered_set<OutputBlock*> shared;  // blocks a tensor reference holds (under mutex)
};

class OutputBlock {
 public:
  OutputBlock(std::shared_ptr<OutputHome> home, void* data, StreamHandle home_stream);
  ~OutputBlock();
  OutputBlock(const OutputBlock&) = delete;
  OutputBlock& operator=(const OutputBlock&) = delete;

  void* data() const noexcept { return data_; }
  // The streams that were made to wait for the output: the block goes back in
  // their order too. `waited_for_end`: each of them waited for the batch's
  // end (its done event), so their order covers the home stream's work.
  void set_consumers(const std::vector<StreamHandle>& streams, bool waited_for_end);
  // A tensor reference is about to hold the block, so it may outlive the
  // stager. Call it under the batch's mutex, before its resources can be
  // given back (the context's destruction takes that mutex too).
  void share();

 private:
  std::shared_ptr<OutputHome> home_;
  void* const data_;
  const StreamHandle home_stream_;
  std::mutex mutex_;
  std::vector<StreamHandle> consumers_;
  bool consumers_waited_for_end_ = false;
  // Set before any owner but its batch exists. A block only its batch held
  // goes back while the stager lives (the stager gives the batch's resources
  // back), with no lock taken: the per-batch path stays free of contention.
  std::atomic<bool> shared_{false};
};

}  // namespace ferry::core
