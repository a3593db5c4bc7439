// ferry::core::Converter: the context's conversion subsystem. It owns the CPU
// thread pool and, on a CUDA context, the kernel launcher.
//
// How the staging pipeline uses it: build one ConvertPlan per batch
// (make_convert_plan validates everything once), cut the batch into chunks of
// whole samples [first, first + count), stage each chunk anywhere with any
// strides, and call convert() per chunk with a SourceView of the staged copy.
// Per-sample parameters (mean/std, crop, mirror) are looked up by the GLOBAL
// sample index first + i; output goes to the global sample's slice of
// output_base. Nothing is re-validated per chunk.
#pragma once

#include <cstdint>
#include <memory>

#include "core/convert/convert_plan.h"
#include "core/memory/memory_system.h"
#include "core/thread_pool.h"

namespace ferry::core {

class CudaConverter;  // core/convert/cuda/cuda_converter.h; CUDA builds only

class Converter {
 public:
  // On the memory system's runtime: a CUDA runtime's device converts with
  // kernels (their tables from the memory system's pools), the host runtime on
  // the CPU pool. cpu_threads: the CPU pool's size, 0 = the hardware threads.
  Converter(MemorySystem& memory, int cpu_threads);
  ~Converter();
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;

  // Converts samples first .. first+count-1 of `plan` (source's local samples
  // 0 .. count-1) into output_base + g * plan.out_strides.n for each global
  // sample g. output_base is the whole output's base (sample 0), not the slice.
  //  - CPU: synchronous, on the pool; stream ignored.
  //  - CUDA: source and output are device-accessible memory; ONE kernel launch
  //    on `stream` (a cudaStream_t of the context's device, NULL = legacy
  //    default), asynchronous. `source.samples` is read before returning (so
  //    the array may be reused at once); per-sample tables reach the GPU by an
  //    async copy from a pinned-pool block into a device-cache block, without
  //    a device-wide sync and without a cudaMalloc per call.
  // Requires 0 <= first, count >= 0, first + count <= plan.n (else
  // Status::OutOfRange); count 0 does nothing. Thread-safe.
  // batch_table: the plan's per-sample table from upload_batch_table (NULL:
  // the call builds and uploads the rows of its own samples).
  void convert(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
               void* output_base, void* stream, const void* batch_table = nullptr);

  // The per-sample table of every sample of `plan`, built once and copied to
  // the device on `stream` from ferry's pools, for a batch converted in
  // several calls (the stager's chunks): each call then reads its rows from
  // it. The caller frees the block in the device cache on `stream` once every
  // kernel that reads it has completed, and makes calls on other streams wait
  // for `stream` first. NULL when the plan has no per-sample values, or on the CPU.
  void* upload_batch_table(const ConvertPlan& plan, void* stream);

  ThreadPool& cpu_pool() noexcept { return pool_; }
  bool is_cuda() const noexcept { return cuda_ != nullptr; }

 private:
  // Camera and video frames: decoded to R, G, B images in scratch memory,
  // then converted as 3-channel samples (core/convert/frame_decode.h).
  void convert_frames(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t count,
                      void* output_base, void* stream);

  ThreadPool pool_;
  std::unique_ptr<CudaConverter> cuda_;
};

}  // namespace ferry::core
