// Where a context runs and where its memory lives.
#pragma once

namespace ferry::core {

// Auto: the first working CUDA device, else the CPU. A value read from a
// caller is any int until validated (the underlying type is fixed, so holding
// one is defined behaviour).
enum class DeviceKind : int { Auto = 0, Cpu = 1, Cuda = 2 };

}  // namespace ferry::core
