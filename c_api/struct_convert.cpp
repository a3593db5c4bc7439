#include "c_api/struct_convert.h"

#include "c_api/augment_convert.h"
#include "c_api/struct_io.h"

#include <algorithm>

namespace ferry::api {
namespace {

template <typename CoreEnum, typename CEnum>
CoreEnum enum_of(const CEnum& field) noexcept {
  return static_cast<CoreEnum>(enum_field_value(field));
}

// Same field layout, so the per-sample crop array is passed through as is.
static_assert(sizeof(ferry_rect) == sizeof(core::Rect) && offsetof(ferry_rect, x) == offsetof(core::Rect, x) &&
              offsetof(ferry_rect, y) == offsetof(core::Rect, y) &&
              offsetof(ferry_rect, w) == offsetof(core::Rect, w) && offsetof(ferry_rect, h) == offsetof(core::Rect, h));

static_assert(sizeof(ferry_rectf) == sizeof(core::RectF) && offsetof(ferry_rectf, x) == offsetof(core::RectF, x) &&
              offsetof(ferry_rectf, y) == offsetof(core::RectF, y) &&
              offsetof(ferry_rectf, w) == offsetof(core::RectF, w) && offsetof(ferry_rectf, h) == offsetof(core::RectF, h));

// Same field layout, so the per-sample description array is passed through as is.
static_assert(sizeof(ferry_sample_desc) == sizeof(core::SampleDesc) &&
              offsetof(ferry_sample_desc, data) == offsetof(core::SampleDesc, data) &&
              offsetof(ferry_sample_desc, bytes) == offsetof(core::SampleDesc, bytes) &&
              offsetof(ferry_sample_desc, h) == offsetof(core::SampleDesc, h) &&
              offsetof(ferry_sample_desc, w) == offsetof(core::SampleDesc, w) &&
              offsetof(ferry_sample_desc, stride_c) == offsetof(core::SampleDesc, stride_c) &&
              offsetof(ferry_sample_desc, stride_h) == offsetof(core::SampleDesc, stride_h) &&
              offsetof(ferry_sample_desc, stride_w) == offsetof(core::SampleDesc, stride_w));

}  // namespace

core::SourceDesc to_core(const ferry_source& s) {
  core::SourceDesc d;
  d.data = s.data;
  d.bytes = s.bytes;
  d.samples = s.samples;
  d.sample_bytes = s.sample_bytes;
  d.n = s.n, d.h = s.h, d.w = s.w, d.c = s.c;
  d.layout = enum_of<core::Layout>(s.layout);
  d.stride_n = s.stride_n, d.stride_c = s.stride_c, d.stride_h = s.stride_h, d.stride_w = s.stride_w;
  d.sample_descs = reinterpret_cast<const core::SampleDesc*>(s.sample_descs);
  d.format = enum_of<core::PixelFormat>(s.format);
  d.color_matrix = enum_of<core::ColorMatrix>(s.color_matrix);
  d.color_range = enum_of<core::ColorRange>(s.color_range);
  d.chroma_filter = enum_of<core::ChromaFilter>(s.chroma_filter);
  std::copy(s.plane_offset, s.plane_offset + 3, d.plane_offset);
  std::copy(s.plane_pitch, s.plane_pitch + 3, d.plane_pitch);
  return d;
}

ferry_source to_c(const core::SourceDesc& d) {
  auto s = sized<ferry_source>();
  s.data = d.data;
  s.bytes = d.bytes;
  s.samples = d.samples;
  s.sample_bytes = d.sample_bytes;
  s.n = d.n, s.h = d.h, s.w = d.w, s.c = d.c;
  s.layout = static_cast<ferry_layout>(d.layout);
  s.stride_n = d.stride_n, s.stride_c = d.stride_c, s.stride_h = d.stride_h, s.stride_w = d.stride_w;
  s.sample_descs = reinterpret_cast<const ferry_sample_desc*>(d.sample_descs);
  s.format = static_cast<ferry_pixel_format>(d.format);
  s.color_matrix = static_cast<ferry_color_matrix>(d.color_matrix);
  s.color_range = static_cast<ferry_color_range>(d.color_range);
  s.chroma_filter = static_cast<ferry_chroma_filter>(d.chroma_filter);
  std::copy(d.plane_offset, d.plane_offset + 3, s.plane_offset);
  std::copy(d.plane_pitch, d.plane_pitch + 3, s.plane_pitch);
  return s;
}

core::Transform to_core(const ferry_transform& t) {
  core::Transform d;
  d.out_dtype = enum_of<core::DType>(t.out_dtype);
  d.out_layout = enum_of<core::Layout>(t.out_layout);
  d.out_channels = t.out_channels;
  std::copy(t.channel_map, t.channel_map + 4, d.channel_map);
  d.pad_channels_to_4 = t.pad_channels_to_4;
  d.pad_value = t.pad_value;
  d.scale = t.scale;
  std::copy(t.mean, t.mean + 4, d.mean);
  std::copy(t.std, t.std + 4, d.std);
  d.per_sample_mean = t.per_sample_mean;
  d.per_sample_std = t.per_sample_std;
  d.crop = core::Rect{t.crop.x, t.crop.y, t.crop.w, t.crop.h};
  d.per_sample_crop = reinterpret_cast<const core::Rect*>(t.per_sample_crop);
  d.mirror = t.mirror;
  d.per_sample_mirror = t.per_sample_mirror;
  d.per_sample_count = t.per_sample_count;
  d.pad_outside = t.pad_outside;
  d.fill_value = t.fill_value;
  d.resize_w = t.resize_w, d.resize_h = t.resize_h;
  d.interpolation = enum_of<core::Interpolation>(t.interpolation);
  d.resize_mode = enum_of<core::ResizeMode>(t.resize_mode);
  d.resize_shorter = t.resize_shorter;
  d.letterbox_align = enum_of<core::LetterboxAlign>(t.letterbox_align);
  std::copy(t.letterbox_value, t.letterbox_value + 4, d.letterbox_value);
  d.window = core::RectF{t.window.x, t.window.y, t.window.w, t.window.h};
  d.per_sample_window = reinterpret_cast<const core::RectF*>(t.per_sample_window);
  read_augment(t.augment, d);
  return d;
}

ferry_transform to_c(const core::Transform& d) {
  auto t = sized<ferry_transform>();
  t.out_dtype = static_cast<ferry_dtype>(d.out_dtype);
  t.out_layout = static_cast<ferry_layout>(d.out_layout);
  t.out_channels = d.out_channels;
  std::copy(d.channel_map, d.channel_map + 4, t.channel_map);
  t.pad_channels_to_4 = d.pad_channels_to_4;
  t.pad_value = d.pad_value;
  t.scale = d.scale;
  std::copy(d.mean, d.mean + 4, t.mean);
  std::copy(d.std, d.std + 4, t.std);
  t.per_sample_mean = d.per_sample_mean;
  t.per_sample_std = d.per_sample_std;
  t.crop = ferry_rect{d.crop.x, d.crop.y, d.crop.w, d.crop.h};
  t.per_sample_crop = reinterpret_cast<const ferry_rect*>(d.per_sample_crop);
  t.mirror = d.mirror;
  t.per_sample_mirror = d.per_sample_mirror;
  t.per_sample_count = d.per_sample_count;
  t.pad_outside = d.pad_outside;
  t.fill_value = d.fill_value;
  t.resize_w = d.resize_w, t.resize_h = d.resize_h;
  t.interpolation = static_cast<ferry_interpolation>(d.interpolation);
  t.resize_mode = static_cast<ferry_resize_mode>(d.resize_mode);
  t.resize_shorter = d.resize_shorter;
  t.letterbox_align = static_cast<ferry_letterbox_align>(d.letterbox_align);
  std::copy(d.letterbox_value, d.letterbox_value + 4, t.letterbox_value);
  t.window = ferry_rectf{d.window.x, d.window.y, d.window.w, d.window.h};
  t.per_sample_window = reinterpret_cast<const ferry_rectf*>(d.per_sample_window);
  return t;
}

core::OutputDesc to_core(const ferry_output& o) {
  core::OutputDesc d;
  d.data = o.data;
  d.bytes = o.bytes;
  d.stride_n = o.stride_n, d.stride_c = o.stride_c, d.stride_h = o.stride_h, d.stride_w = o.stride_w;
  return d;
}

ferry_output to_c(const core::OutputDesc& d) {
  auto o = sized<ferry_output>();
  o.data = d.data;
  o.bytes = d.bytes;
  o.stride_n = d.stride_n, o.stride_c = d.stride_c, o.stride_h = d.stride_h, o.stride_w = d.stride_w;
  return o;
}

core::ContextOptions to_core(const ferry_context_options& o) {
  core::ContextOptions d;
  d.device_kind = enum_of<core::DeviceKind>(o.device_kind);
  d.device_index = o.device_index;
  d.stream_count = o.stream_count;
  d.high_priority_streams = o.high_priority_streams;
  d.pinned_cache_bytes = o.pinned_cache_bytes;
  d.pinned_prealloc_bytes = o.pinned_prealloc_bytes;
  d.pinned_wait_at_cap = o.pinned_wait_at_cap;
  d.registry_cache_bytes = o.registry_cache_bytes;
  d.device_cache_bytes = o.device_cache_bytes;
  d.staging_threads = o.staging_threads;
  d.cpu_threads = o.cpu_threads;
  d.chunk_bytes = o.chunk_bytes;
  d.max_batches_in_flight = o.max_batches_in_flight;
  d.max_staging_bytes = o.max_staging_bytes;
  d.submit_nonblocking = o.submit_nonblocking;
  d.max_unreleased_batches = o.max_unreleased_batches;
  d.pinned_method = enum_of<core::PinnedMethod>(o.pinned_method);
  d.device_timing = enum_of<core::DeviceTiming>(o.device_timing);
  return d;
}

ferry_context_options to_c(const core::ContextOptions& d) {
  auto o = sized<ferry_context_options>();
  o.device_kind = static_cast<ferry_device_kind>(d.device_kind);
  o.device_index = d.device_index;
  o.stream_count = d.stream_count;
  o.high_priority_streams = d.high_priority_streams;
  o.pinned_cache_bytes = d.pinned_cache_bytes;
  o.pinned_prealloc_bytes = d.pinned_prealloc_bytes;
  o.pinned_wait_at_cap = d.pinned_wait_at_cap;
  o.registry_cache_bytes = d.registry_cache_bytes;
  o.device_cache_bytes = d.device_cache_bytes;
  o.staging_threads = d.staging_threads;
  o.cpu_threads = d.cpu_threads;
  o.chunk_bytes = d.chunk_bytes;
  o.max_batches_in_flight = d.max_batches_in_flight;
  o.max_staging_bytes = d.max_staging_bytes;
  o.submit_nonblocking = d.submit_nonblocking;
  o.max_unreleased_batches = d.max_unreleased_batches;
  o.pinned_method = static_cast<ferry_pinned_method>(d.pinned_method);
  o.device_timing = static_cast<ferry_device_timing>(d.device_timing);
  return o;
}

core::SubmitOptions to_core(const ferry_submit_options& o) {
  core::SubmitOptions d;
  d.has_handoff = o.has_handoff_stream != 0;
  d.handoff_stream = o.handoff_stream;
  d.priority = o.priority;
  d.source_policy = enum_of<core::SourcePolicy>(o.source_policy);
  d.chunk_bytes = o.chunk_bytes;
  return d;
}

ferry_tensor_info to_c(const core::TensorDesc& d) {
  auto t = sized<ferry_tensor_info>();
  t.data = d.data;
  t.device_kind = static_cast<ferry_device_kind>(d.device_kind);
  t.device_index = d.device_index;
  t.dtype = static_cast<ferry_dtype>(d.dtype);
  t.layout = static_cast<ferry_layout>(d.layout);
  t.ndim = d.ndim;
  std::copy(d.shape, d.shape + 4, t.shape);
  std::copy(d.strides, d.strides + 4, t.strides);
  t.bytes = d.bytes;
  return t;
}

ferry_stats to_c(const core::Stats& d) {
  auto s = sized<ferry_stats>();
  s.pinned_in_use_bytes = d.pinned_in_use_bytes;
  s.pinned_cached_bytes = d.pinned_cached_bytes;
  s.pinned_peak_bytes = d.pinned_peak_bytes;
  s.pinned_hits = d.pinned_hits;
  s.pinned_misses = d.pinned_misses;
  s.registered_bytes = d.registered_bytes;
  s.registered_peak_bytes = d.registered_peak_bytes;
  s.registry_hits = d.registry_hits;
  s.registry_misses = d.registry_misses;
  s.device_in_use_bytes = d.device_in_use_bytes;
  s.device_cached_bytes = d.device_cached_bytes;
  s.device_peak_bytes = d.device_peak_bytes;
  s.device_hits = d.device_hits;
  s.device_misses = d.device_misses;
  s.cuda_malloc_calls = d.cuda_malloc_calls;
  s.cuda_malloc_ns = d.cuda_malloc_ns;
  s.cuda_host_alloc_calls = d.cuda_host_alloc_calls;
  s.cuda_host_alloc_ns = d.cuda_host_alloc_ns;
  s.cuda_host_register_calls = d.cuda_host_register_calls;
  s.cuda_host_register_ns = d.cuda_host_register_ns;
  s.batches_submitted = d.batches_submitted;
  s.batches_completed = d.batches_completed;
  s.batches_failed = d.batches_failed;
  s.input_bytes = d.input_bytes;
  s.output_bytes = d.output_bytes;
  s.staging_ns = d.staging_ns;
  s.h2d_ns = d.h2d_ns;
  s.convert_ns = d.convert_ns;
  s.busy_ns = d.busy_ns;
  s.input_gbps = d.input_gbps;
  s.batches_unreleased = d.batches_unreleased;
  s.numa_node = d.numa_node;
  s.numa_cpus = d.numa_cpus;
  s.resident_bytes = d.resident_bytes;
  s.resident_datasets = d.resident_datasets;
  s.timed_chunks = d.timed_chunks;
  return s;
}

ferry_device_properties to_c(const core::DeviceProperties& d) {
  auto p = sized<ferry_device_properties>();
  std::memcpy(p.name, d.name, sizeof p.name);
  p.index = d.index;
  p.compute_capability_major = d.compute_capability_major;
  p.compute_capability_minor = d.compute_capability_minor;
  p.total_memory_bytes = d.total_memory_bytes;
  p.multiprocessor_count = d.multiprocessor_count;
  p.async_engine_count = d.async_engine_count;
  p.pci_domain_id = d.pci_domain_id;
  p.pci_bus_id = d.pci_bus_id;
  p.pci_device_id = d.pci_device_id;
  p.numa_node = d.numa_node;
  p.pcie_generation = d.pcie_generation;
  p.pcie_link_width = d.pcie_link_width;
  return p;
}

template <>
ferry_source c_defaults() { return to_c(core::SourceDesc{}); }
template <>
ferry_transform c_defaults() { return to_c(core::Transform{}); }
template <>
ferry_output c_defaults() { return to_c(core::OutputDesc{}); }
template <>
ferry_context_options c_defaults() { return to_c(core::ContextOptions{}); }
template <>
ferry_tensor_info c_defaults() { return to_c(core::TensorDesc{}); }
template <>
ferry_stats c_defaults() { return to_c(core::Stats{}); }
template <>
ferry_device_properties c_defaults() {
  core::DeviceProperties p;
  p.index = -1;  // no device described yet
  return to_c(p);
}
template <>
ferry_submit_options c_defaults() {
  const core::SubmitOptions d;
  auto o = sized<ferry_submit_options>();
  o.handoff_stream = static_cast<ferry_cuda_stream>(d.handoff_stream);
  o.has_handoff_stream = d.has_handoff ? 1 : 0;
  o.priority = d.priority;
  o.source_policy = static_cast<ferry_source_policy>(d.source_policy);
  o.chunk_bytes = d.chunk_bytes;
  o.callback = nullptr;
  o.user_data = nullptr;
  return o;
}

}  // namespace ferry::api
