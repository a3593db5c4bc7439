// PoolUpstream: where a StreamOrderedPool gets its segments from, and gives
// them back to. The pool's ordering logic is the same for every kind of
// memory; only this differs (RMM's pool_memory_resource<Upstream>, with a
// virtual call instead of a template: one call per segment, never per block).
//
//   DeviceSegments     device memory of the runtime (cudaMalloc)
//   PinnedSegments     page-locked host memory of the runtime (cudaHostAlloc,
//                      or malloc + cudaHostRegister)
//   PinnedPoolBlocks   blocks of a PinnedPool: a bounded pool inside the
//                      context's pinned memory (the staging ring)
#pragma once

#include <cstddef>

#include "core/device/device_runtime.h"

namespace ferry::core {

class PinnedPool;

class PoolUpstream {
 public:
  virtual ~PoolUpstream() = default;
  // A new segment of `bytes`, or nullptr when the upstream has no memory
  // left (the pool then gives its cached segments back and retries once).
  // May also throw; the pool then leaves its state as it was.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* segment, std::size_t bytes) noexcept = 0;
  // What allocate calls, for messages: "cudaMalloc", "cudaHostRegister", ...
  virtual const char* method() const noexcept = 0;
};

class DeviceSegments final : public PoolUpstream {
 public:
  explicit DeviceSegments(DeviceRuntime& runtime) : runtime_(runtime) {}
  void* allocate(std::size_t bytes) override { return runtime_.device_malloc(bytes); }
  void deallocate(void* segment, std::size_t) noexcept override { runtime_.device_free(segment); }
  const char* method() const noexcept override { return runtime_.device_method(); }

 private:
  DeviceRuntime& runtime_;
};

class PinnedSegments final : public PoolUpstream {
 public:
  explicit PinnedSegments(DeviceRuntime& runtime) : runtime_(runtime) {}
  void* allocate(std::size_t bytes) override { return runtime_.pinned_alloc(bytes); }
  void deallocate(void* segment, std::size_t bytes) noexcept override { runtime_.pinned_free(segment, bytes); }
  const char* method() const noexcept override { return runtime_.pinned_method(); }

 private:
  DeviceRuntime& runtime_;
};

// Blocks of a PinnedPool as segments: what the pool throws (its cap reached
// and nothing to wait for) passes through, so the message names its cap.
class PinnedPoolBlocks final : public PoolUpstream {
 public:
  explicit PinnedPoolBlocks(PinnedPool& pool) : pool_(pool) {}
  void* allocate(std::size_t bytes) override;
  void deallocate(void* segment, std::size_t bytes) noexcept override;
  const char* method() const noexcept override { return "the pinned pool"; }

 private:
  PinnedPool& pool_;
};

}  // namespace ferry::core
