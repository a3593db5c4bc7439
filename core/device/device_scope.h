// DeviceScope: makes a runtime's device current for a scope (a caller's
// thread, a ferry thread), then restores the caller's device, so ferry never
// leaves a caller's thread on another GPU. The one device guard in ferry.
#pragma once

#include "core/device/device_runtime.h"

namespace ferry::core {

class DeviceScope {
 public:
  explicit DeviceScope(DeviceRuntime& runtime) : runtime_(runtime), previous_(runtime.enter_device()) {}
  ~DeviceScope() { runtime_.restore_device(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  DeviceRuntime& runtime_;
  int previous_;
};

}  // namespace ferry::core
