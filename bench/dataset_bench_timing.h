// The timed rows of ferry_bench_dataset: ferry_dataset_create of a whole
// set (host clock, and the upload alone as the dataset reports it), and a
// gather case measured every way the gather table shows it (ferry's own
// timing of the kernel beside a copy moving as many bytes, the host's time
// in the call, a burst handed off to one stream, the pipelined rate).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/dataset_bench_cases.h"
#include "ferry/ferry.h"

namespace ferry::bench::dataset {

struct CreateTimes {
  double call_ms, upload_ms;  // the whole call; the upload alone (info.upload_seconds)
};

// Median of `reps` creates of `src` on b's context, after one warm-up. With
// `settle`, each create first waits for the driver's work after the previous
// one's free to pass (dataset_bench_timing.cpp says why); without, each
// follows the last destroy at once. With `cold`, the context's cached device
// blocks go back first (ferry_memory_trim), as in a new context: the block the
// upload's head goes ahead into (ResidentDataset::head_samples) is allocated too.
CreateTimes create_times(const Backend& b, const ferry_source& src, int reps, bool settle = true, bool cold = false);

#if FERRY_HAVE_CUDA
// Milliseconds (host clock, median of reps after one warm-up, each settled
// as create_times's) of what any upload into new device memory does:
// cudaMalloc `bytes`, a synchronous cudaMemcpy H2D from `pinned` into it,
// cudaFree.
double fresh_buffer_copy_ms(const Backend& b, const std::uint8_t* pinned, std::size_t bytes, int reps);

// Milliseconds (host clock, median of reps after one warm-up) of a cudaMemcpy
// H2D from `pageable` memory into device memory copied into before: the
// CUDA driver's own staging of pageable memory, the baseline of an upload
// from pageable memory, which no copy engine reads directly.
double pageable_copy_ms(const Backend& b, const std::uint8_t* pageable, std::size_t bytes, int reps);
#endif

// Milliseconds (host clock, median of reps after one warm-up) of `threads`
// threads memcpy-ing `bytes` from `from` to `to`, a share each: how fast this
// host moves pageable memory into pinned memory, which every byte of an
// upload from pageable memory must cross before a copy engine can read it.
double host_copy_ms(const std::uint8_t* from, std::uint8_t* to, std::size_t bytes, int threads, int reps);

struct GatherRow {
  std::string name;
  std::int64_t batch;
  std::size_t in_bytes, out_bytes;
  double kernel_ms, copy_ms, host_ms, burst_ms, pipelined_ms;
  bool augmented;
  double bare_ms = -1;  // the bare gather of the same batches' samples (GPU only)
};

// Gathers of `batch` indices from `order` on `ds`, with CIFAR's recipe (augmented) or without; the
// CPU backend's baseline reads `host_bytes`.
GatherRow measure_gather(Backend& b, ferry_dataset_t ds, const SetShape& s, const std::vector<std::int64_t>& order,
                         std::int64_t batch, bool augmented, const std::uint8_t* host_bytes, const Options& o);

}  // namespace ferry::bench::dataset
