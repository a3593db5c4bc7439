// Resident datasets in the C ABI (ferry/dataset.h): their structs, handles,
// and the gather, which submits an ordinary batch with a resident source.
// The work is core::ResidentDataset's (core/dataset/resident_dataset.h).
#include <cstring>

#include "c_api/api_guard.h"
#include "c_api/batch_launch.h"
#include "c_api/handle_table.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/dataset/resident_dataset.h"
#include "ferry/dataset.h"

using namespace ferry;

namespace ferry::api {
namespace {

ferry_dataset_options c_options_of(const core::DatasetOptions& d) {
  auto o = sized<ferry_dataset_options>();
  o.placement = static_cast<ferry_dataset_placement>(d.placement);
  o.rank = d.rank;
  o.world_size = d.world_size;
  o.part_bytes = d.part_bytes;
  o.source_policy = static_cast<ferry_source_policy>(d.source_policy);
  return o;
}

core::DatasetOptions dataset_options_of(const ferry_dataset_options& o) {
  core::DatasetOptions d;
  d.placement = static_cast<core::DatasetPlacement>(enum_field_value(o.placement));
  d.rank = o.rank;
  d.world_size = o.world_size;
  d.part_bytes = o.part_bytes;
  d.source_policy = static_cast<core::SourcePolicy>(enum_field_value(o.source_policy));
  return d;
}

const ferry_dataset_options& options_defaults() {
  static const ferry_dataset_options defaults = c_options_of(core::DatasetOptions{});
  return defaults;
}

const ferry_dataset_info& info_defaults() {
  static const ferry_dataset_info defaults = [] {
    auto i = sized<ferry_dataset_info>();
    i.layout = FERRY_LAYOUT_NHWC;
    i.device_kind = FERRY_DEVICE_CPU;
    i.device_index = -1;
    i.world_size = 1;
    return i;
  }();
  return defaults;
}

ferry_dataset_info info_of(const core::ResidentDataset& d, const core::Context& context) {
  auto i = sized<ferry_dataset_info>();
  i.count = d.count();
  i.source_count = d.source_count();
  i.h = d.h(), i.w = d.w(), i.c = d.c();
  i.layout = static_cast<ferry_layout>(d.layout());
  i.variable_sizes = d.variable_sizes() ? 1 : 0;
  i.bytes = d.bytes();
  i.device_kind = static_cast<ferry_device_kind>(context.kind());
  i.device_index = context.device_index();
  i.placement = static_cast<ferry_dataset_placement>(d.options().placement);
  i.rank = d.options().rank;
  i.world_size = d.options().world_size;
  i.epoch_size = d.epoch_size();
  i.upload_seconds = d.upload_seconds();
  return i;
}

// Both gathers: the indices in host memory (checked here), or in the
// context's memory (in_memory: read by the device, clamped).
void gather(ferry_batch_t* out, ferry_dataset_t dataset, const int64_t* indices, int64_t n,
            const ferry_transform* transform, const ferry_output* output, const ferry_submit_options* options,
            bool in_memory) {
  require(out, "out");
  require(indices, "indices");
  DatasetCall call = call_dataset(dataset);
  const core::Transform tr = to_core(read_optional_struct(transform, "transform", c_defaults<ferry_transform>()));
  core::OutputDesc dst;
  if (output != nullptr) dst = to_core(read_struct(output, "output", c_defaults<ferry_output>()));
  const ferry_submit_options c_opts = read_optional_struct(options, "options", c_defaults<ferry_submit_options>());
  FERRY_EXPECT(enum_field_value(c_opts.source_policy) == 0, Status::InvalidArgument, "options->source_policy is ",
               enum_field_value(c_opts.source_policy), ": a gather has no host source; leave it FERRY_SOURCE_AUTO (0)");
  FERRY_EXPECT(c_opts.chunk_bytes == 0, Status::InvalidArgument, "options->chunk_bytes is ", c_opts.chunk_bytes,
               ": a gather is one conversion, not cut in chunks; leave it 0");
  core::ResidentDataset::Gather gather;
  core::SubmitOptions submit = to_core(c_opts);
  if (in_memory) {
    call.dataset->gather_source_in_memory(indices, n, call.context->is_cuda(), gather, submit.resident);
  } else {
    call.dataset->gather_source(indices, n, gather);
    submit.resident = call.dataset->resident();
  }
  submit.resident_source = call.dataset->storage_owner();
  *out = launch_batch(*call.context, call.dataset.parent(), gather.source, tr, output != nullptr ? &dst : nullptr,
                      c_opts, submit);
}

}  // namespace
}  // namespace ferry::api

extern "C" {

FERRY_API ferry_status ferry_dataset_options_init(ferry_dataset_options* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::options_defaults(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_info_init(ferry_dataset_info* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::info_defaults(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_create(ferry_dataset_t* out, ferry_context_t ctx, const ferry_source* source,
                                            const ferry_dataset_options* options) {
  FERRY_API_BEGIN
  api::require(out, "out");
  auto context = api::get_context(ctx);
  const core::SourceDesc src = api::to_core(api::read_struct(source, "source", api::c_defaults<ferry_source>()));
  const core::DatasetOptions opts = api::dataset_options_of(
      api::read_optional_struct(options, "options", api::options_defaults()));
  auto dataset = std::make_shared<core::ResidentDataset>(*context, src, opts);
  *out = api::handle_of<ferry_dataset_t>(api::dataset_table().insert(std::move(dataset), api::handle_id(ctx)));
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_destroy(ferry_dataset_t dataset) {
  FERRY_API_BEGIN
  if (dataset == nullptr) return FERRY_OK;
  // The memory goes back with the last owner: this handle, or a gather in flight.
  api::dataset_table().take(api::handle_id(dataset), "dataset");
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_get_info(ferry_dataset_info* out, ferry_dataset_t dataset) {
  FERRY_API_BEGIN
  api::read_struct(out, "out", api::info_defaults());  // checks out->struct_size
  api::DatasetCall call = api::call_dataset(dataset);
  api::write_struct(out, api::info_of(*call.dataset, *call.context), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_source_index(int64_t* out, ferry_dataset_t dataset, int64_t index) {
  FERRY_API_BEGIN
  api::require(out, "out");
  api::DatasetCall call = api::call_dataset(dataset);
  *out = call.dataset->source_index(index);
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_epoch(int64_t* out, int64_t count, ferry_dataset_t dataset, uint64_t seed,
                                           uint64_t epoch, int shuffle) {
  FERRY_API_BEGIN
  api::require(out, "out");
  api::DatasetCall call = api::call_dataset(dataset);
  FERRY_EXPECT(shuffle == 0 || shuffle == 1, Status::InvalidArgument, "shuffle is ", shuffle, ": must be 0 or 1");
  call.dataset->epoch(out, count, seed, epoch, shuffle == 1);
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_gather(ferry_batch_t* out, ferry_dataset_t dataset, const int64_t* indices,
                                            int64_t n, const ferry_transform* transform, const ferry_output* output,
                                            const ferry_submit_options* options) {
  FERRY_API_BEGIN
  api::gather(out, dataset, indices, n, transform, output, options, false);
  FERRY_API_END
}

FERRY_API ferry_status ferry_dataset_gather_device(ferry_batch_t* out, ferry_dataset_t dataset,
                                                   const int64_t* indices, int64_t n,
                                                   const ferry_transform* transform, const ferry_output* output,
                                                   const ferry_submit_options* options) {
  FERRY_API_BEGIN
  api::gather(out, dataset, indices, n, transform, output, options, true);
  FERRY_API_END
}

}  // extern "C"
