#include "core/convert/frame_decode.h"

#include <algorithm>

#include "core/error.h"

namespace ferry::core {

frame::FrameRef frame_ref_of(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t i) {
  frame::FrameRef r;
  r.base = frames.samples != nullptr ? frames.samples[i] : frames.base + i * frames.strides.n;
  FERRY_EXPECT(r.base != nullptr, Status::InvalidArgument, "source frame ", first + i, " is NULL");
  const FramePlanes& planes = frames.sample_geometry != nullptr
                                  ? frames.sample_geometry[i].planes
                                  : plan.sample_sources[static_cast<std::size_t>(first + i)].planes;
  for (int k = 0; k < planes.count; ++k) r.offset[k] = planes.plane[k].offset, r.pitch[k] = planes.plane[k].pitch;
  r.h = static_cast<std::int32_t>(plan.h_of(first + i));
  r.w = static_cast<std::int32_t>(plan.w_of(first + i));
  return r;
}

DecodedFrames::DecodedFrames(const ConvertPlan& plan, std::int64_t first, std::int64_t count, std::uint64_t stride) {
  const auto n = static_cast<std::size_t>(count);
  offsets_.assign(n + 1, 0);
  geometry_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t g = first + static_cast<std::int64_t>(i), h = plan.h_of(g), w = plan.w_of(g);
    const auto bytes = static_cast<std::uint64_t>(h * w * 3);
    // Scratch: each image 16-byte aligned (whole-word stores); else the caller's stride.
    offsets_[i + 1] = offsets_[i] + (stride == 0 ? (bytes + 15) / 16 * 16 : stride);
    geometry_[i] = SampleSource{h, w, Strides4{static_cast<std::int64_t>(bytes), 1, 3 * w, 3}, bytes, FramePlanes{}};
  }
}

SourceView DecodedFrames::view_of(const std::uint8_t* rgb) {
  pointers_.resize(geometry_.size());
  for (std::size_t i = 0; i < geometry_.size(); ++i) pointers_[i] = rgb + offsets_[i];
  SourceView v;
  v.samples = pointers_.data();
  v.sample_geometry = geometry_.data();
  v.strides = geometry_.empty() ? Strides4{} : geometry_.front().strides;
  return v;
}

void decode_frames_on_cpu(const ConvertPlan& plan, const SourceView& frames, std::int64_t first, std::int64_t count,
                          const DecodedFrames& decoded, std::uint8_t* rgb, ThreadPool& pool) {
  // A task per frame row: rows of every frame of the chunk, numbered in order.
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(count) + 1, 0);
  std::vector<frame::FrameRef> refs(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    refs[static_cast<std::size_t>(i)] = frame_ref_of(plan, frames, first, i);
    row_start[static_cast<std::size_t>(i) + 1] = row_start[static_cast<std::size_t>(i)] + refs[static_cast<std::size_t>(i)].h;
  }
  const std::int64_t grain = std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, plan.w));
  pool.parallel_for(0, row_start.back(), [&](std::int64_t begin, std::int64_t end) {
    auto it = std::upper_bound(row_start.begin(), row_start.end(), begin) - 1;
    for (std::int64_t row = begin; row < end; ++row) {
      while (row >= *(it + 1)) ++it;
      const auto i = static_cast<std::size_t>(it - row_start.begin());
      const frame::FrameRef& r = refs[i];
      const int y = static_cast<int>(row - *it);
      std::uint8_t* out = rgb + decoded.offset(static_cast<std::int64_t>(i)) + static_cast<std::uint64_t>(y) * r.w * 3;
      for (int x = 0; x < r.w; ++x) frame::decode_pixel(plan.frame, r, x, y, out + 3 * x);
    }
  }, grain);
}

}  // namespace ferry::core
