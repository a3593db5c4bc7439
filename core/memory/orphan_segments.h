// OrphanSegments: device memory that outlives its context.
//
// A batch's output can be held outside ferry (a DLPack tensor, a Java or C#
// view: ferry_tensor_retain) after its context is destroyed. The
// context's device cache then frees every segment except those holding such
// blocks; it hands those segments to this registry, which frees each one when
// its last held block is released. The registry keeps the backend alive for
// that, so it may outlive the whole context.
//
// The order of events at destroy: the stager marks the blocks still held
// (hold), then the device cache, destroyed after it, offers every segment
// (adopt). A block released in between is simply no longer held.
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "core/device/device_runtime.h"

namespace ferry::core {

class OrphanSegments {
 public:
  explicit OrphanSegments(std::shared_ptr<DeviceRuntime> backend) : backend_(std::move(backend)) {}
  ~OrphanSegments();  // frees what is left (only at process exit can blocks still be held)
  OrphanSegments(const OrphanSegments&) = delete;
  OrphanSegments& operator=(const OrphanSegments&) = delete;

  // The block at `ptr` stays held by someone outside the context being destroyed.
  void hold(const void* ptr);
  // The holder let go of `ptr`; frees its segment if it was the segment's last held block.
  void release(const void* ptr) noexcept;
  // The device cache's segment [base, base + size): true if it holds a held
  // block and is now this registry's to free; false if the caller frees it.
  bool adopt(std::uintptr_t base, std::size_t size);

  std::size_t held_blocks() const;      // for statistics and tests
  std::size_t adopted_bytes() const;    // bytes of segments waiting for their holders

 private:
  struct Segment {
    std::size_t size = 0;
    std::size_t held = 0;  // held blocks inside it
  };

  std::shared_ptr<DeviceRuntime> backend_;
  mutable std::mutex mutex_;
  std::set<std::uintptr_t> held_;                    // held blocks, adopted or not yet
  std::map<std::uintptr_t, std::uintptr_t> owner_;   // adopted held block -> its segment's base
  std::map<std::uintptr_t, Segment> segments_;       // adopted segments by base
};

}  // namespace ferry::core
