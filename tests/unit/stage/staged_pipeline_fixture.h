// The staged pipeline's unit-test fixture: core::Stager over the host
// runtime (memcpy where the CUDA engine queues DMA), whose device allocations
// fail on demand, with helpers to submit and to check a batch against the
// reference conversion. Shared by pipeline_test.cpp and
// pipeline_sample_sizes_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/context_options.h"
#include "core/convert/converter.h"
#include "core/device/host_runtime.h"
#include "core/memory/memory_system.h"
#include "core/stage/stager.h"
#include "tests/support/stage_test_util.h"

namespace ferry::test {

// The host runtime, with device allocations that fail on demand, counting its copies.
class FailingBackend final : public core::HostRuntime {
 public:
  std::atomic<int> device_allocs_left{1 << 30};
  std::atomic<int> copies{0};
  // Device memory comes poisoned: a kernel's read of bytes nothing wrote shows in its output.
  void* device_malloc(std::size_t bytes) override {
    void* p = device_allocs_left.fetch_sub(1) > 0 ? HostRuntime::device_malloc(bytes) : nullptr;
    if (p != nullptr) std::memset(p, 0xA5, bytes);
    return p;
  }
  void copy(void* dst, const void* src, std::size_t bytes, core::StreamHandle stream) override {
    copies.fetch_add(1);
    HostRuntime::copy(dst, src, bytes, stream);
  }
};

class StagedPipeline : public ::testing::Test {
 protected:
  void build(std::uint64_t max_staging_bytes = 256 << 10, int max_in_flight = 3) {
    options_ = core::ContextOptions{};
    options_.device_kind = core::DeviceKind::Cpu;
    options_.staging_threads = 3;
    options_.max_staging_bytes = std::max<std::uint64_t>(max_staging_bytes, 1 << 20);
    options_.max_batches_in_flight = max_in_flight;
    auto backend = std::make_shared<FailingBackend>();
    backend_ = backend.get();
    memory_ = std::make_unique<core::MemorySystem>(backend, options_);
    converter_ = std::make_unique<core::Converter>(*memory_, 2);
    core::Stager::Parts parts;
    parts.kind = core::DeviceKind::Cpu;
    parts.options = options_;
    parts.memory = memory_.get();
    parts.converter = converter_.get();
    parts.counters = &counters_;
    parts.convert_on_host = false;  // the staged pipeline, as on a GPU
    stager_ = std::make_unique<core::Stager>(std::move(parts));
  }
  void TearDown() override {
    stager_.reset();
    converter_.reset();
    memory_.reset();
  }

  std::shared_ptr<core::Batch> submit(const ferry_source& s, const ferry_transform& t, const ferry_output* o,
                                      ferry_source_policy policy = FERRY_SOURCE_AUTO, std::uint64_t chunk = 0) {
    core::SubmitOptions opts;
    opts.source_policy = static_cast<core::SourcePolicy>(policy);
    opts.chunk_bytes = chunk;
    core::OutputDesc out;
    if (o != nullptr) out = api::to_core(*o);
    auto batch = stager_->prepare(api::to_core(s), api::to_core(t), o != nullptr ? &out : nullptr, opts);
    stager_->launch(batch);
    return batch;
  }

  void expect_matches(core::Batch& b, const ferry_source& s, const ferry_transform& t) {
    ferry_output packed;
    ferry_output_init(&packed, sizeof packed);
    const auto expected = expected_output(s, t, packed, b.submitted.info.bytes);
    EXPECT_EQ(first_difference(static_cast<const std::uint8_t*>(b.submitted.info.data), expected.data(), b.submitted.info.bytes), -1);
  }

  core::ContextOptions options_;
  FailingBackend* backend_ = nullptr;
  std::unique_ptr<core::MemorySystem> memory_;
  std::unique_ptr<core::Converter> converter_;
  core::PipelineCounters counters_;
  std::unique_ptr<core::Stager> stager_;
};

}  // namespace ferry::test
