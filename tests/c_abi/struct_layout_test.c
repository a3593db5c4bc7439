/* Freezes every public struct's layout on x86-64 (LP64): its size and
 * alignment, and each field's offset and size. The numbers were printed once
 * from the headers and written here by hand; a failing line is an ABI break.
 * A struct may only grow at the end: add the new field's line, change its
 * STRUCT line, and freeze the previous size in c_api/struct_versions.h (the
 * released sizes ferry accepts in struct_size). Compiled as C11: the checks
 * are _Static_asserts, so a layout change fails the build; the test itself
 * only reports that it was checked. */
#include <stddef.h>
#include <stdio.h>

#include "ferry/ferry.h"

#if defined(__x86_64__) && defined(__LP64__)
#define FERRY_LAYOUT_FROZEN 1

#define STRUCT(type, size, align) \
  _Static_assert(sizeof(type) == (size) && _Alignof(type) == (align), #type ": size or alignment")
#define FIELD(type, field, offset, size)                                                      \
  _Static_assert(offsetof(type, field) == (offset) && sizeof(((type*)0)->field) == (size), \
                 #type "." #field ": offset or size")

/* device.h */
STRUCT(ferry_device_properties, 320, 8);
FIELD(ferry_device_properties, struct_size, 0, 8);
FIELD(ferry_device_properties, name, 8, 256);
FIELD(ferry_device_properties, index, 264, 4);
FIELD(ferry_device_properties, compute_capability_major, 268, 4);
FIELD(ferry_device_properties, compute_capability_minor, 272, 4);
FIELD(ferry_device_properties, total_memory_bytes, 280, 8);
FIELD(ferry_device_properties, multiprocessor_count, 288, 4);
FIELD(ferry_device_properties, async_engine_count, 292, 4);
FIELD(ferry_device_properties, pci_domain_id, 296, 4);
FIELD(ferry_device_properties, pci_bus_id, 300, 4);
FIELD(ferry_device_properties, pci_device_id, 304, 4);
FIELD(ferry_device_properties, numa_node, 308, 4);
FIELD(ferry_device_properties, pcie_generation, 312, 4);
FIELD(ferry_device_properties, pcie_link_width, 316, 4);

/* context.h */
STRUCT(ferry_context_options, 128, 8);
FIELD(ferry_context_options, struct_size, 0, 8);
FIELD(ferry_context_options, device_kind, 8, 4);
FIELD(ferry_context_options, device_index, 12, 4);
FIELD(ferry_context_options, stream_count, 16, 4);
FIELD(ferry_context_options, high_priority_streams, 20, 4);
FIELD(ferry_context_options, pinned_cache_bytes, 24, 8);
FIELD(ferry_context_options, pinned_prealloc_bytes, 32, 8);
FIELD(ferry_context_options, pinned_wait_at_cap, 40, 4);
FIELD(ferry_context_options, registry_cache_bytes, 48, 8);
FIELD(ferry_context_options, device_cache_bytes, 56, 8);
FIELD(ferry_context_options, staging_threads, 64, 4);
FIELD(ferry_context_options, cpu_threads, 68, 4);
FIELD(ferry_context_options, chunk_bytes, 72, 8);
FIELD(ferry_context_options, max_batches_in_flight, 80, 4);
FIELD(ferry_context_options, max_staging_bytes, 88, 8);
FIELD(ferry_context_options, submit_nonblocking, 96, 4);
FIELD(ferry_context_options, max_unreleased_batches, 104, 8);
FIELD(ferry_context_options, pinned_method, 112, 4);
FIELD(ferry_context_options, unused_0_2_padding, 116, 4);
FIELD(ferry_context_options, device_timing, 120, 4);

/* stats.h */
STRUCT(ferry_stats, 288, 8);
FIELD(ferry_stats, struct_size, 0, 8);
FIELD(ferry_stats, pinned_in_use_bytes, 8, 8);
FIELD(ferry_stats, pinned_cached_bytes, 16, 8);
FIELD(ferry_stats, pinned_peak_bytes, 24, 8);
FIELD(ferry_stats, pinned_hits, 32, 8);
FIELD(ferry_stats, pinned_misses, 40, 8);
FIELD(ferry_stats, registered_bytes, 48, 8);
FIELD(ferry_stats, registered_peak_bytes, 56, 8);
FIELD(ferry_stats, registry_hits, 64, 8);
FIELD(ferry_stats, registry_misses, 72, 8);
FIELD(ferry_stats, device_in_use_bytes, 80, 8);
FIELD(ferry_stats, device_cached_bytes, 88, 8);
FIELD(ferry_stats, device_peak_bytes, 96, 8);
FIELD(ferry_stats, device_hits, 104, 8);
FIELD(ferry_stats, device_misses, 112, 8);
FIELD(ferry_stats, cuda_malloc_calls, 120, 8);
FIELD(ferry_stats, cuda_malloc_ns, 128, 8);
FIELD(ferry_stats, cuda_host_alloc_calls, 136, 8);
FIELD(ferry_stats, cuda_host_alloc_ns, 144, 8);
FIELD(ferry_stats, cuda_host_register_calls, 152, 8);
FIELD(ferry_stats, cuda_host_register_ns, 160, 8);
FIELD(ferry_stats, batches_submitted, 168, 8);
FIELD(ferry_stats, batches_completed, 176, 8);
FIELD(ferry_stats, batches_failed, 184, 8);
FIELD(ferry_stats, input_bytes, 192, 8);
FIELD(ferry_stats, output_bytes, 200, 8);
FIELD(ferry_stats, staging_ns, 208, 8);
FIELD(ferry_stats, h2d_ns, 216, 8);
FIELD(ferry_stats, convert_ns, 224, 8);
FIELD(ferry_stats, busy_ns, 232, 8);
FIELD(ferry_stats, input_gbps, 240, 8);
FIELD(ferry_stats, batches_unreleased, 248, 8);
FIELD(ferry_stats, numa_node, 256, 4);
FIELD(ferry_stats, numa_cpus, 260, 4);
FIELD(ferry_stats, resident_bytes, 264, 8);
FIELD(ferry_stats, resident_datasets, 272, 8);
FIELD(ferry_stats, timed_chunks, 280, 8);

/* transform.h */
STRUCT(ferry_sample_desc, 56, 8);
FIELD(ferry_sample_desc, data, 0, 8);
FIELD(ferry_sample_desc, bytes, 8, 8);
FIELD(ferry_sample_desc, h, 16, 8);
FIELD(ferry_sample_desc, w, 24, 8);
FIELD(ferry_sample_desc, stride_c, 32, 8);
FIELD(ferry_sample_desc, stride_h, 40, 8);
FIELD(ferry_sample_desc, stride_w, 48, 8);
STRUCT(ferry_source, 184, 8);
FIELD(ferry_source, struct_size, 0, 8);
FIELD(ferry_source, data, 8, 8);
FIELD(ferry_source, bytes, 16, 8);
FIELD(ferry_source, samples, 24, 8);
FIELD(ferry_source, sample_bytes, 32, 8);
FIELD(ferry_source, n, 40, 8);
FIELD(ferry_source, h, 48, 8);
FIELD(ferry_source, w, 56, 8);
FIELD(ferry_source, c, 64, 8);
FIELD(ferry_source, layout, 72, 4);
FIELD(ferry_source, stride_n, 80, 8);
FIELD(ferry_source, stride_c, 88, 8);
FIELD(ferry_source, stride_h, 96, 8);
FIELD(ferry_source, stride_w, 104, 8);
FIELD(ferry_source, sample_descs, 112, 8);
FIELD(ferry_source, format, 120, 4);
FIELD(ferry_source, color_matrix, 124, 4);
FIELD(ferry_source, color_range, 128, 4);
FIELD(ferry_source, chroma_filter, 132, 4);
FIELD(ferry_source, plane_offset, 136, 24);
FIELD(ferry_source, plane_pitch, 160, 24);

STRUCT(ferry_rect, 32, 8);
FIELD(ferry_rect, x, 0, 8);
FIELD(ferry_rect, y, 8, 8);
FIELD(ferry_rect, w, 16, 8);
FIELD(ferry_rect, h, 24, 8);
STRUCT(ferry_rectf, 16, 4);
FIELD(ferry_rectf, x, 0, 4);
FIELD(ferry_rectf, y, 4, 4);
FIELD(ferry_rectf, w, 8, 4);
FIELD(ferry_rectf, h, 12, 4);

STRUCT(ferry_transform, 256, 8);
FIELD(ferry_transform, struct_size, 0, 8);
FIELD(ferry_transform, out_dtype, 8, 4);
FIELD(ferry_transform, out_layout, 12, 4);
FIELD(ferry_transform, out_channels, 16, 4);
FIELD(ferry_transform, channel_map, 20, 16);
FIELD(ferry_transform, pad_channels_to_4, 36, 4);
FIELD(ferry_transform, pad_value, 40, 4);
FIELD(ferry_transform, scale, 44, 4);
FIELD(ferry_transform, mean, 48, 16);
FIELD(ferry_transform, std, 64, 16);
FIELD(ferry_transform, per_sample_mean, 80, 8);
FIELD(ferry_transform, per_sample_std, 88, 8);
FIELD(ferry_transform, crop, 96, 32);
FIELD(ferry_transform, per_sample_crop, 128, 8);
FIELD(ferry_transform, mirror, 136, 4);
FIELD(ferry_transform, per_sample_mirror, 144, 8);
FIELD(ferry_transform, per_sample_count, 152, 8);
FIELD(ferry_transform, pad_outside, 160, 4);
FIELD(ferry_transform, fill_value, 164, 4);
FIELD(ferry_transform, resize_w, 168, 8);
FIELD(ferry_transform, resize_h, 176, 8);
FIELD(ferry_transform, interpolation, 184, 4);
FIELD(ferry_transform, resize_mode, 188, 4);
FIELD(ferry_transform, resize_shorter, 192, 8);
FIELD(ferry_transform, letterbox_align, 200, 4);
FIELD(ferry_transform, letterbox_value, 204, 16);
FIELD(ferry_transform, window, 220, 16);
FIELD(ferry_transform, per_sample_window, 240, 8);
FIELD(ferry_transform, augment, 248, 8);

/* augment.h */
STRUCT(ferry_augment_params, 112, 8);
FIELD(ferry_augment_params, crop, 0, 32);
FIELD(ferry_augment_params, flip, 32, 4);
FIELD(ferry_augment_params, grayscale, 36, 4);
FIELD(ferry_augment_params, brightness, 40, 4);
FIELD(ferry_augment_params, contrast, 44, 4);
FIELD(ferry_augment_params, saturation, 48, 4);
FIELD(ferry_augment_params, hue, 52, 4);
FIELD(ferry_augment_params, jitter_order, 56, 16);
FIELD(ferry_augment_params, erased, 72, 4);
FIELD(ferry_augment_params, erase, 80, 32);
STRUCT(ferry_augment, 168, 8);
FIELD(ferry_augment, struct_size, 0, 8);
FIELD(ferry_augment, seed, 8, 8);
FIELD(ferry_augment, step, 16, 8);
FIELD(ferry_augment, first_index, 24, 8);
FIELD(ferry_augment, crop, 32, 4);
FIELD(ferry_augment, scale, 36, 8);
FIELD(ferry_augment, ratio, 44, 8);
FIELD(ferry_augment, padding, 56, 8);
FIELD(ferry_augment, flip_x_probability, 64, 4);
FIELD(ferry_augment, flip_y_probability, 68, 4);
FIELD(ferry_augment, brightness, 72, 8);
FIELD(ferry_augment, contrast, 80, 8);
FIELD(ferry_augment, saturation, 88, 8);
FIELD(ferry_augment, hue, 96, 8);
FIELD(ferry_augment, grayscale_probability, 104, 4);
FIELD(ferry_augment, erase_probability, 108, 4);
FIELD(ferry_augment, erase_scale, 112, 8);
FIELD(ferry_augment, erase_ratio, 120, 8);
FIELD(ferry_augment, erase_fill, 128, 4);
FIELD(ferry_augment, erase_value, 132, 16);
FIELD(ferry_augment, drawn, 152, 8);
FIELD(ferry_augment, drawn_stride, 160, 8);

STRUCT(ferry_output, 56, 8);
FIELD(ferry_output, struct_size, 0, 8);
FIELD(ferry_output, data, 8, 8);
FIELD(ferry_output, bytes, 16, 8);
FIELD(ferry_output, stride_n, 24, 8);
FIELD(ferry_output, stride_c, 32, 8);
FIELD(ferry_output, stride_h, 40, 8);
FIELD(ferry_output, stride_w, 48, 8);

STRUCT(ferry_tensor_info, 112, 8);
FIELD(ferry_tensor_info, struct_size, 0, 8);
FIELD(ferry_tensor_info, data, 8, 8);
FIELD(ferry_tensor_info, device_kind, 16, 4);
FIELD(ferry_tensor_info, device_index, 20, 4);
FIELD(ferry_tensor_info, dtype, 24, 4);
FIELD(ferry_tensor_info, layout, 28, 4);
FIELD(ferry_tensor_info, ndim, 32, 4);
FIELD(ferry_tensor_info, shape, 40, 32);
FIELD(ferry_tensor_info, strides, 72, 32);
FIELD(ferry_tensor_info, bytes, 104, 8);

/* batch.h */
STRUCT(ferry_submit_options, 56, 8);
FIELD(ferry_submit_options, struct_size, 0, 8);
FIELD(ferry_submit_options, handoff_stream, 8, 8);
FIELD(ferry_submit_options, has_handoff_stream, 16, 4);
FIELD(ferry_submit_options, priority, 20, 4);
FIELD(ferry_submit_options, source_policy, 24, 4);
FIELD(ferry_submit_options, chunk_bytes, 32, 8);
FIELD(ferry_submit_options, callback, 40, 8);
FIELD(ferry_submit_options, user_data, 48, 8);

/* dataset.h */
STRUCT(ferry_dataset_options, 40, 8);
FIELD(ferry_dataset_options, struct_size, 0, 8);
FIELD(ferry_dataset_options, placement, 8, 4);
FIELD(ferry_dataset_options, rank, 12, 4);
FIELD(ferry_dataset_options, world_size, 16, 4);
FIELD(ferry_dataset_options, part_bytes, 24, 8);
FIELD(ferry_dataset_options, source_policy, 32, 4);
STRUCT(ferry_dataset_info, 104, 8);
FIELD(ferry_dataset_info, count, 8, 8);
FIELD(ferry_dataset_info, source_count, 16, 8);
FIELD(ferry_dataset_info, h, 24, 8);
FIELD(ferry_dataset_info, layout, 48, 4);
FIELD(ferry_dataset_info, variable_sizes, 52, 4);
FIELD(ferry_dataset_info, bytes, 56, 8);
FIELD(ferry_dataset_info, device_kind, 64, 4);
FIELD(ferry_dataset_info, device_index, 68, 4);
FIELD(ferry_dataset_info, placement, 72, 4);
FIELD(ferry_dataset_info, rank, 76, 4);
FIELD(ferry_dataset_info, world_size, 80, 4);
FIELD(ferry_dataset_info, epoch_size, 88, 8);
FIELD(ferry_dataset_info, upload_seconds, 96, 8);

#endif

int main(void) {
#if defined(FERRY_LAYOUT_FROZEN)
  printf("struct layout: every public struct's size and field offsets match the frozen x86-64 layout\n");
  return 0;
#else
  printf("ferry: skipped: the frozen layouts are x86-64 (LP64) ones\n");
  return 77;
#endif
}

