// ferry::core::Context: everything ferry owns for one device. A context
// handle of the C ABI names one of these (see c_api/handle_table.h).
//
// Subsystems are members, constructed in the order they depend on each other
// and destroyed in reverse: the stager first (it waits for batches in
// flight), then the caches, then the streams.
#pragma once

#include <memory>

#include "core/convert/converter.h"
#include "core/device/device_runtime.h"
#include "core/memory/memory_system.h"
#include "core/pipeline_counters.h"
#include "core/stage/stager.h"
#include "core/context_options.h"

namespace ferry::core {

class Context {
 public:
  // Resolves DeviceKind::Auto, opens the device, builds the subsystems.
  // Throws ferry::Error (Status::NoDevice for a CUDA device that is not there).
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const ContextOptions& options() const noexcept { return options_; }
  DeviceKind kind() const noexcept { return kind_; }  // CPU or CUDA, never AUTO
  int device_index() const noexcept { return device_index_; }  // -1 on the CPU
  bool is_cuda() const noexcept { return kind_ == DeviceKind::Cuda; }

  PipelineCounters& pipeline_counters() noexcept { return pipeline_counters_; }

  DeviceRuntime& runtime() noexcept { return *runtime_; }  // the device seam, shared by every subsystem
  MemorySystem& memory() noexcept { return *memory_; }  // streams, events, pinned, registry, device cache
  Converter& converter() noexcept { return *converter_; }  // conversion kernels + CPU thread pool
  Stager& stager() noexcept { return *stager_; }  // the staging pipeline (ferry_batch_*)

 private:
  ContextOptions options_;
  DeviceKind kind_ = DeviceKind::Cpu;
  int device_index_ = -1;
  PipelineCounters pipeline_counters_;
  // Subsystems, in construction order.
  std::shared_ptr<DeviceRuntime> runtime_;
  std::unique_ptr<MemorySystem> memory_;
  std::unique_ptr<Converter> converter_;
  // Last, so it is destroyed first: it waits for the batches in flight while
  // the memory and the converter they use still exist.
  std::unique_ptr<Stager> stager_;
};

}  // namespace ferry::core
