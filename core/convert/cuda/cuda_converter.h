// The CUDA half of ferry::core::Converter: builds the kernel parameters for
// a call, uploads a per-sample table when the call needs one, and launches
// ONE kernel on the caller's stream.
//
// Per-sample tables (sample pointers, folded mean/std, windows, mirror) go
// through a per-stream slot: a pinned host ring (4 buffers, each reused only
// after the event recorded behind its copy has completed) and one device
// buffer, written by cudaMemcpyAsync on the same stream as the kernel, so
// stream order protects it; it grows geometrically with cudaMallocAsync /
// cudaFreeAsync on that stream. No device-wide sync and no cudaMalloc per
// call. At most max_streams slots are kept; the least recently used is freed
// (after its last kernel finished) when a new stream needs one.
//
// Thread-safe: calls on the same stream serialize on that stream's slot (the
// table copy and the kernel that reads it must stay adjacent); calls on
// different streams run concurrently.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/convert/convert_plan.h"
#include "core/device/device_runtime.h"
#include "core/device/cuda/cuda_event.h"

namespace ferry::core {

class CudaConverter {
 public:
  explicit CudaConverter(DeviceRuntime& runtime);
  ~CudaConverter();
  CudaConverter(const CudaConverter&) = delete;
  CudaConverter& operator=(const CudaConverter&) = delete;

  // As Converter::convert (core/convert/converter.h), on the device.
  void convert(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
               void* output_base, void* stream);

  int sm_count() const noexcept { return sm_count_; }
  static constexpr int max_streams = 64;

 private:
  struct PinnedBuffer {
    void* host = nullptr;
    std::size_t capacity = 0;
    cuda::CudaEvent copied;  // recorded after the copy that reads `host`
    bool pending = false;
  };
  struct StreamSlot {
    ~StreamSlot();  // waits for the slot's last kernel, then frees its buffers
    std::mutex mutex;
    cudaStream_t stream = nullptr;
    void* device = nullptr;
    std::size_t capacity = 0;
    std::array<PinnedBuffer, 4> ring;
    int next = 0;
    cuda::CudaEvent done;  // recorded after the slot's last kernel
    bool used = false;
    std::uint64_t last_use = 0;
  };

  std::shared_ptr<StreamSlot> slot_for(cudaStream_t stream);
  const void* upload(StreamSlot& slot, const void* table, std::size_t bytes);

  DeviceRuntime& runtime_;
  int device_ = 0;
  int sm_count_ = 1;
  // The vector kernel's grid cap, filled on first use (racing writers store the same value).
  int max_vector_blocks(DType dtype, int c, bool out_nhwc);

  int max_blocks_[2][5] = {};  // [runs][dtype]
  int max_vector_blocks_[5][5][2] = {};  // [dtype][c][out_nhwc]
  std::mutex mutex_;           // guards slots_ and tick_
  std::unordered_map<cudaStream_t, std::shared_ptr<StreamSlot>> slots_;
  std::uint64_t tick_ = 0;
};

}  // namespace ferry::core
