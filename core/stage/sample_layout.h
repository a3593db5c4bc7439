// How one sample of the caller's source is laid out, and how it is copied
// into the packed form the pipeline stages and sends over the bus. Pure C++.
//
// The staged copy of a sample is always packed for the SOURCE's layout (NHWC
// stays NHWC, NCHW stays NCHW; no padding): an OpenCV pitch, a region of
// interest or an RGBX stride in the caller's memory never costs bus bytes.
// The converter reads the staged copy through a SourceView with packed strides.
#pragma once

#include <cstdint>
#include <vector>

#include "core/convert/convert_plan.h"

namespace ferry::core {

struct SampleLayout {
  std::uint64_t packed_bytes = 0;  // h * w * c
  Strides4 packed_strides;         // packed for plan.source_layout; n = packed_bytes
  // The caller's sample seen as `rows` rows of `row_bytes` contiguous bytes,
  // `pitch` bytes apart (a 2-D copy), when its strides allow that; rows == 0
  // when they do not (then it is gathered element by element on the host).
  std::int64_t rows = 0, row_bytes = 0, pitch = 0;
  // A frame (plan.is_frame()): its planes in the caller's memory, and where
  // each goes in the packed form (planes back to back). A frame whose planes
  // follow one another at one pitch is also `rows` above (NV12 in one buffer);
  // one whose planes are apart is packed plane by plane on the host.
  FramePlanes planes, packed_planes;

  bool is_rows() const noexcept { return rows > 0; }
  bool is_packed() const noexcept { return rows == 1; }
};

// One sample's shape as the stager sees it: the batch's (one size), or sample
// g's own (source.sample_descs).
struct SampleShape {
  std::int64_t h = 0, w = 0, c = 0;
  Layout layout = Layout::NHWC;
  Strides4 strides;  // the caller's byte strides, resolved
};
SampleShape shape_of(const ConvertPlan& plan);
SampleShape shape_of(const ConvertPlan& plan, std::int64_t g);

SampleLayout sample_layout_of(const SampleShape& shape);
inline SampleLayout sample_layout_of(const ConvertPlan& plan) { return sample_layout_of(shape_of(plan)); }
// Sample g's layout: its shape's, or its frame planes'.
SampleLayout sample_layout_of(const ConvertPlan& plan, std::int64_t g);

// The caller's sample g (global index) in `view` (the caller's own view).
inline const std::uint8_t* sample_at(const SourceView& view, std::int64_t g) noexcept {
  return view.samples != nullptr ? view.samples[g] : view.base + g * view.strides.n;
}

// A data source whose samples are packed and adjacent (stride_n == packed
// bytes): any run of samples is one contiguous range.
bool is_dense_batch(const ConvertPlan& plan, const SampleLayout& layout) noexcept;

// Copies one caller sample of `shape` into `dst` (packed_bytes bytes), on
// this thread, with staging_copy: the thread fences (store_fence) before
// handing the bytes on.
void pack_sample(std::uint8_t* dst, const std::uint8_t* src, const SampleShape& shape,
                 const SampleLayout& layout) noexcept;

// Copies bytes [from, to) of the packed form of a sample whose layout is
// rows (layout.is_rows()) into dst + from, dst being where the whole packed
// sample goes: pieces of one large sample can go to several threads. With
// staging_copy, as pack_sample.
void pack_sample_range(std::uint8_t* dst, const std::uint8_t* src, const SampleLayout& layout, std::uint64_t from,
                       std::uint64_t to) noexcept;

// The view of a staged chunk: `count` packed samples from `staged`.
inline SourceView staged_view(const void* staged, const SampleLayout& layout) noexcept {
  SourceView v;
  v.base = static_cast<const std::uint8_t*>(staged);
  v.strides = layout.packed_strides;
  return v;
}

// The view of a staged chunk of samples of different sizes (samples first ..
// first+count-1), each packed at offsets[g] - offsets[first] in `staged`.
// Holds the pointer and geometry arrays the view reads: keep it until the
// converter returns.
class StagedSamples {
 public:
  SourceView view_of(const ConvertPlan& plan, const std::vector<SampleLayout>& layouts,
                     const std::vector<std::uint64_t>& offsets, std::int64_t first, std::int64_t count,
                     const std::uint8_t* staged);

 private:
  std::vector<const std::uint8_t*> pointers_;
  std::vector<SampleSource> geometry_;
};

}  // namespace ferry::core
