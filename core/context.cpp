#include "core/context.h"

#include "core/context_options.h"
#include "core/device/make_runtime.h"
#include "core/device/device_query.h"
#include "core/device/numa_placement.h"
#include "core/error.h"

namespace ferry::core {
namespace {

// Resolves AUTO to the first working GPU, else the CPU; CUDA must work or fail loudly.
DeviceKind resolve_device(const ContextOptions& options, int& index) {
  switch (options.device_kind) {
    case DeviceKind::Cpu:
      index = -1;
      return DeviceKind::Cpu;
    case DeviceKind::Cuda:
      open_cuda_device(options.device_index);
      index = options.device_index;
      return DeviceKind::Cuda;
    case DeviceKind::Auto:
      break;
  }
  const int count = cuda_device_count();
  for (int d = 0; d < count; ++d) {
    try {
      open_cuda_device(d);
      index = d;
      return DeviceKind::Cuda;
    } catch (const Error&) {
      // A GPU that does not work is skipped by AUTO; an explicit request reports it.
    }
  }
  index = -1;
  return DeviceKind::Cpu;
}

}  // namespace

Context::Context(const ContextOptions& options) : options_(options) {
  validate_context_options(options_);
  kind_ = resolve_device(options_, device_index_);
  NumaPlacement placement;
  if (kind_ == DeviceKind::Cuda) {
    DeviceProperties properties;
    cuda_device_properties(properties, device_index_);
    placement = numa_placement_for(properties.numa_node);
  }
  runtime_ = make_runtime(kind_, device_index_, options_.pinned_method, placement.node);
  memory_ = std::make_unique<MemorySystem>(runtime_, options_);
  converter_ = std::make_unique<Converter>(*memory_, options_.cpu_threads);
  Stager::Parts stage;
  stage.kind = kind_;
  stage.device_index = device_index_;
  stage.options = options_;
  stage.memory = memory_.get();
  stage.converter = converter_.get();
  stage.counters = &pipeline_counters_;
  stage.convert_on_host = kind_ == DeviceKind::Cpu;
  stage.placement = std::move(placement);
  stager_ = std::make_unique<Stager>(std::move(stage));
}

Context::~Context() = default;

}  // namespace ferry::core
