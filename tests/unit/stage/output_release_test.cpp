// A batch released after wait gives its ferry-allocated output back at once,
// ahead of the rest (Stager::release), while the completion thread may not
// have finished it yet. A tensor reference racing that release
// (ferry_tensor_retain: the batch's lock, then Batch::output_block_locked)
// must answer Status::InvalidHandle, never a reference that holds nothing:
// the block is the cache's again, so a trim could free it under the reader.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "c_api/struct_convert.h"
#include "core/context_options.h"
#include "core/convert/converter.h"
#include "core/device/host_runtime.h"
#include "core/memory/memory_system.h"
#include "core/stage/stager.h"
#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry;
using namespace ferry::test;

TEST(OutputRelease, ReferenceRacingAnEarlyReleaseIsRefused) {
  core::ContextOptions options;
  options.device_kind = core::DeviceKind::Cpu;
  core::MemorySystem memory(std::make_shared<core::HostRuntime>(), options);
  core::Converter converter(memory, 1);
  core::PipelineCounters counters;
  core::Stager::Parts parts;
  parts.options = options;
  parts.memory = &memory;
  parts.converter = &converter;
  parts.counters = &counters;
  core::Stager stager(std::move(parts));

  auto src = make_source(nullptr, SourceKind::kPacked, 2, 8, 8, 3);
  auto tr = make_transform(TransformKind::kDefault, 2, 8, 8);
  auto submit = [&](std::function<void(Status)> on_complete) {
    core::SubmitOptions opts;
    opts.on_complete = std::move(on_complete);
    auto batch = stager.prepare(api::to_core(src->source), api::to_core(tr->t), nullptr, opts);
    stager.launch(batch);
    return batch;
  };
  // The first batch's hook holds the completion thread: the next batch is
  // seen complete by wait, not finished.
  std::atomic<bool> held{false}, let_go{false};
  auto first = submit([&](Status) {
    held = true;
    while (!let_go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  for (int i = 0; i < 5000 && !held; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(held.load()) << "the first batch's hook never ran";

  auto batch = submit(nullptr);
  stager.wait(*batch);
  const std::uint64_t in_use = memory.device_cache().stats().in_use_bytes;
  stager.release(*batch);  // the handle's release: its output goes back now
  EXPECT_LT(memory.device_cache().stats().in_use_bytes, in_use) << "the output did not go back early";
  {
    // What a ferry_tensor_retain that took the handle before the release does now.
    std::lock_guard<std::mutex> lock(batch->mutex);
    try {
      const std::shared_ptr<core::OutputBlock> block = batch->output_block_locked();
      ADD_FAILURE() << "a reference to " << batch->submitted.info.data << " that holds "
                    << (block ? "a block" : "nothing") << ", after the block went back";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidHandle);
    }
  }
  let_go = true;
  stager.release(*first);
}

}  // namespace
