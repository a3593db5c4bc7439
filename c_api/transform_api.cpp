// The source, transform and output structs, and ferry_transform_apply, in the C ABI.
#include <cstdint>

#include "c_api/api_guard.h"
#include "c_api/handle_table.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/context.h"
#include "core/convert/convert_plan.h"
#include "core/convert/converter.h"
#include "ferry/transform.h"

using namespace ferry;

namespace {

bool ranges_overlap(const void* a, std::uint64_t a_bytes, const void* b, std::uint64_t b_bytes) {
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

// Checks what only the call itself can: the output pointer, the sample
// pointers, and that the output does not overwrite the source being read.
void check_call(const core::ConvertPlan& plan, const core::SourceDesc& s, const core::OutputDesc& o) {
  FERRY_EXPECT(o.data != nullptr, Status::InvalidArgument, "output.data is NULL");
  if (plan.variable_sizes()) {
    for (std::int64_t i = 0; i < plan.n; ++i)
      FERRY_EXPECT(!ranges_overlap(plan.sample_data[static_cast<std::size_t>(i)],
                                   plan.sample_sources[static_cast<std::size_t>(i)].extent, o.data, plan.out_extent),
                   Status::InvalidArgument, "output.data is ", o.data, ": the output overlaps source.sample_descs[",
                   i, "]");
    return;
  }
  if (s.samples == nullptr) {
    FERRY_EXPECT(!ranges_overlap(s.data, plan.source_extent, o.data, plan.out_extent), Status::InvalidArgument,
                 "output.data is ", o.data, ": the output overlaps the source at ", s.data);
    return;
  }
  for (std::int64_t i = 0; i < plan.n; ++i) {
    FERRY_EXPECT(s.samples[i] != nullptr, Status::InvalidArgument, "source.samples[", i, "] is NULL");
    FERRY_EXPECT(!ranges_overlap(s.samples[i], plan.source_sample_extent, o.data, plan.out_extent),
                 Status::InvalidArgument, "output.data is ", o.data, ": the output overlaps source.samples[", i,
                 "]");
  }
}

}  // namespace

extern "C" {

FERRY_API ferry_status ferry_source_init(ferry_source* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_source>(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_transform_init(ferry_transform* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_transform>(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_output_init(ferry_output* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_output>(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_tensor_info_init(ferry_tensor_info* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_tensor_info>(), "out");
  FERRY_API_END
}

// No context: the result lives nowhere yet, so device_kind is AUTO and
// device_index -1 ("not placed"); the caller sizes its buffer from bytes.
FERRY_API ferry_status ferry_transform_describe_output(ferry_tensor_info* out, const ferry_source* source,
                                                       const ferry_transform* transform) {
  FERRY_API_BEGIN
  api::require(out, "out");
  const core::SourceDesc s = api::to_core(api::read_struct(source, "source", api::c_defaults<ferry_source>()));
  const core::Transform t =
      api::to_core(api::read_optional_struct(transform, "transform", api::c_defaults<ferry_transform>()));
  const core::ConvertPlan plan = core::make_convert_plan(s, t, nullptr);
  api::write_struct(out, api::to_c(core::tensor_desc_of(plan, nullptr, core::DeviceKind::Auto, -1)), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_transform_apply(ferry_context_t ctx, const ferry_source* source,
                                             const ferry_transform* transform, const ferry_output* output,
                                             ferry_cuda_stream stream) {
  FERRY_API_BEGIN
  const auto context = api::get_context(ctx);
  const core::SourceDesc s = api::to_core(api::read_struct(source, "source", api::c_defaults<ferry_source>()));
  const core::Transform t =
      api::to_core(api::read_optional_struct(transform, "transform", api::c_defaults<ferry_transform>()));
  const core::OutputDesc o = api::to_core(api::read_struct(output, "output", api::c_defaults<ferry_output>()));
  core::ConvertPlan plan = core::make_convert_plan(s, t, &o);
  check_call(plan, s, o);
  // Calls back to back on one stream: each table's copy goes beside the
  // kernels before it, not between them (H200, 256 images resized: 10-16 us a call).
  plan.table_stream = core::TableStream::Upload;
  context->converter().convert(plan, core::source_view_of(plan, s), 0, plan.n, o.data, stream);
  FERRY_API_END
}

}  // extern "C"
