// Comparing the GPU with the CPU backend: a batch's output through
// ferry_batch_submit copied back from the device, the CPU backend's output of
// the same conversion (its buffer poisoned first), and the first byte where
// two outputs differ. CUDA builds only.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "ferry/ferry.h"
#include "tests/gpu/window_case_check.h"
#include "tests/support/host_outputs.h"

namespace ferry::test {

// The batch's output through ferry_batch_submit on `ctx`, copied to the host.
inline std::vector<std::uint8_t> submitted_output(ferry_context_t ctx, const ferry_source& src, const ferry_transform& t,
                                           std::uint64_t chunk_bytes, std::string& problem) {
  ferry_submit_options options;
  ferry_submit_options_init(&options, sizeof options);
  options.chunk_bytes = chunk_bytes;
  ferry_batch_t batch = nullptr;
  if (ferry_batch_submit(&batch, ctx, &src, &t, nullptr, &options) != FERRY_OK) {
    problem = std::string("ferry_batch_submit: ") + ferry_last_error();
    return {};
  }
  std::vector<std::uint8_t> out;
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  if (ferry_batch_wait(batch) != FERRY_OK || ferry_batch_describe_output(&info, batch) != FERRY_OK) {
    problem = std::string("ferry_batch_wait: ") + ferry_last_error();
  } else {
    out.resize(info.bytes);
    if (cudaMemcpy(out.data(), info.data, info.bytes, cudaMemcpyDeviceToHost) != cudaSuccess) problem = "copy back";
  }
  ferry_batch_release(batch);
  return out;
}

inline std::vector<std::uint8_t> cpu_output(ferry_context_t cpu, const ferry_source& src, const ferry_transform& t) {
  return applied_on_host(cpu, src, t, poison);
}

inline std::string first_difference(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " and " + std::to_string(want.size());
  for (std::size_t b = 0; b < got.size(); ++b)
    if (got[b] != want[b])
      return "byte " + std::to_string(b) + " of " + std::to_string(got.size()) + ": gpu " + std::to_string(got[b]) +
             ", cpu " + std::to_string(want[b]);
  return "";
}

}  // namespace ferry::test
