// The C ABI of ferry/stats.h: the memory gauges and counters from
// core/memory (MemorySystem), the pipeline's from core/pipeline_counters.h.
#include "c_api/api_guard.h"
#include "c_api/handle_table.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/context.h"
#include "core/memory/memory_system.h"
#include "ferry/stats.h"

using namespace ferry;

namespace {

void fill_pipeline(core::Stats& out, const core::PipelineCounters& c) {
  constexpr auto relaxed = std::memory_order_relaxed;
  out.batches_submitted = c.batches_submitted.load(relaxed);
  out.batches_completed = c.batches_completed.load(relaxed);
  out.batches_failed = c.batches_failed.load(relaxed);
  out.input_bytes = c.input_bytes.load(relaxed);
  out.output_bytes = c.output_bytes.load(relaxed);
  out.staging_ns = c.staging_ns.load(relaxed);
  out.h2d_ns = c.h2d_ns.load(relaxed);
  out.convert_ns = c.convert_ns.load(relaxed);
  out.busy_ns = c.busy_ns.load(relaxed);
  out.timed_chunks = c.timed_chunks.load(relaxed);
  // bytes per nanosecond is GB/s
  out.input_gbps = out.busy_ns == 0 ? 0.0 : static_cast<double>(out.input_bytes) / static_cast<double>(out.busy_ns);
}

}  // namespace

FERRY_API ferry_status ferry_stats_init(ferry_stats* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_stats>(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_stats_get(ferry_stats* out, ferry_context_t ctx) {
  FERRY_API_BEGIN
  api::read_struct(out, "out", api::c_defaults<ferry_stats>());  // checks out->struct_size
  core::Stats stats;
  auto context = api::get_context(ctx);
  context->memory().fill_stats(stats);
  fill_pipeline(stats, context->pipeline_counters());
  stats.batches_unreleased = context->stager().unreleased_batches();
  stats.numa_node = context->stager().placement().node;
  stats.numa_cpus = static_cast<int>(context->stager().placement().cpus.size());
  api::write_struct(out, api::to_c(stats), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_stats_reset(ferry_context_t ctx) {
  FERRY_API_BEGIN
  auto context = api::get_context(ctx);
  context->memory().reset_counters();
  context->pipeline_counters().reset();
  FERRY_API_END
}
