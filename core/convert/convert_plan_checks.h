// The checks a ConvertPlan is built with that live in more than one file:
// convert_plan.cpp validates the source, transform and output,
// convert_plan_samples.cpp samples of different sizes, convert_plan_resize.cpp
// the resize fields. Internal to the plan.
#pragma once

#include <cstdint>

#include "core/convert/convert_plan.h"

namespace ferry::core::plan_checks {

// Window coordinates and image sizes stay far from int32 limits, so the
// kernels' index arithmetic (int64 offsets, int32 coordinates) cannot wrap.
constexpr std::int64_t max_extent_px = std::int64_t{1} << 30;

// v in the output dtype's bits (uint8: an integer in 0..255, else
// Status::InvalidArgument naming `name`).
std::uint32_t value_bits(DType dtype, float v, const char* name);

// 0 < v <= max_extent_px, else Status::InvalidArgument naming `name`.
void check_positive(std::int64_t v, const char* name);

// source.sample_descs: every sample its own pointer, size and strides, into
// plan.sample_sources and sample_data (h and w: the largest). The batch-wide
// fields must stay unset, so no value is silently ignored.
void check_sample_descs(ConvertPlan& plan, const SourceDesc& s, Layout layout);

// A source of camera or video frames (source.format): each frame's planes
// and extent into plan.sample_sources and sample_data, c = 3 (the decoded
// R, G, B), h and w the largest frame's. plan.frame is set.
void check_frames(ConvertPlan& plan, const SourceDesc& s);

// Validates the resize fields (transform.resize_w/h and the rest) and works
// out every sample's axes into plan.sample_resize, out_w, out_h and
// letterbox_bits. The crop fields give the windows unless the fractional
// ones are set. Called once the source and the channels are checked.
void check_resize(ConvertPlan& plan, const Transform& t);

// transform.augment (convert_plan_augment.cpp): draws every sample's
// parameters into the plan's resize axes, mirrors and sample_color, and
// reports them. Called once the resize fields (or the windows) are checked.
void check_augment_fields(ConvertPlan& plan, const Transform& t);

}  // namespace ferry::core::plan_checks
