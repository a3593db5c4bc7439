#include "core/stage/source_footprint.h"

#include <algorithm>
#include <cstring>

#include "core/convert/resize_taps.h"

namespace ferry::core {
namespace {

// The rows (or columns) of one axis that the conversion reads: the span
// [first, last] (first > last: none), or the listed indices (ascending).
struct AxisRead {
  int first = 0, last = -1;
  bool listed = false;
  std::vector<std::int32_t> list;
};

// The taps of resized index r inside [0, size): calls tap(i) for each, in
// ascending order; with skip_zero, not the taps after the first that weigh 0,
// which the kernel that decodes frames at each tap does not read (linear
// only: resample_pixel.cuh, separable_sum's SkipZero).
template <Interpolation M, typename Tap>
void taps_inside(const ResizeAxis& a, std::int64_t r, std::int64_t size, bool skip_zero, Tap&& tap) {
  int t = 0;
  resize::for_each_tap<M>(a, static_cast<int>(r), [&](int i, float w) {
    const bool unread = skip_zero && t++ > 0 && w == 0.0f;
    if (!unread && i >= 0 && i < size) tap(i);  // outside the image: fill, never read
  });
}

// The source indices [0, size) that the taps of axis `a`'s shown resized
// indices read: output index o (mirrored or not) shows resized index
// o + a.offset where that lies in [0, a.length). Their span comes from the
// first and last shown index (the taps ascend with the index); where
// may_list and the taps of the shown indices are fewer than the span (a
// downscale skips rows), the indices themselves. skip_zero: as taps_inside.
template <Interpolation M>
AxisRead read_by_taps(const ResizeAxis& a, std::int64_t out, std::int64_t size, bool may_list, bool skip_zero) {
  AxisRead read;
  const std::int64_t begin = std::max<std::int64_t>(0, a.offset);
  const std::int64_t end = std::min<std::int64_t>(a.length, out + a.offset);
  if (begin >= end) return read;
  read.first = static_cast<int>(size);
  taps_inside<M>(a, begin, size, skip_zero, [&](int i) { read.first = std::min(read.first, i); });
  taps_inside<M>(a, end - 1, size, skip_zero, [&](int i) { read.last = std::max(read.last, i); });
  constexpr int kTaps = resize::normalizes(M) ? 0 : M == Interpolation::Cubic ? 4 : static_cast<int>(M);
  // Area and antialiased filters read every index of the window.
  if (!may_list || read.first > read.last || kTaps == 0 || (end - begin) * kTaps >= read.last - read.first + 1)
    return read;
  read.listed = true;
  for (std::int64_t r = begin; r < end; ++r)
    taps_inside<M>(a, r, size, skip_zero, [&](int i) {
      if (read.list.empty() || read.list.back() < i) read.list.push_back(i);
    });
  return read;
}

AxisRead read_by_taps(Interpolation m, const ResizeAxis& a, std::int64_t out, std::int64_t size, bool may_list,
                      bool skip_zero = false) {
  switch (m) {
    case Interpolation::Nearest: return read_by_taps<Interpolation::Nearest>(a, out, size, may_list, false);
    case Interpolation::Linear: return read_by_taps<Interpolation::Linear>(a, out, size, may_list, skip_zero);
    case Interpolation::Cubic: return read_by_taps<Interpolation::Cubic>(a, out, size, may_list, false);
    case Interpolation::Area: return read_by_taps<Interpolation::Area>(a, out, size, may_list, false);
    case Interpolation::LinearAntialias:
      return read_by_taps<Interpolation::LinearAntialias>(a, out, size, may_list, false);
  }
  return AxisRead{0, static_cast<int>(size) - 1, false, {}};
}

// The indices [0, size) of a window of `length` from `start` (not resized).
AxisRead read_window(std::int64_t start, std::int64_t length, std::int64_t size) {
  AxisRead read;
  read.first = static_cast<int>(std::max<std::int64_t>(0, start));
  read.last = static_cast<int>(std::min(size, start + length) - 1);
  return read;
}

// The rows of a plane of `plane_rows` rows (of a frame of `h`) that its
// decoder reads for the image rows `image`: the same row of a full-height
// plane, row / 2 of a half-height one (4:2:0 chroma), and `margin` more each
// side where the decoder interpolates between rows (Bayer, linear 4:2:0 chroma).
AxisRead plane_rows(const AxisRead& image, std::int64_t plane_rows, std::int64_t h, int margin) {
  const bool half = plane_rows < h;
  auto lo = [&](std::int64_t y) { return static_cast<int>(std::max<std::int64_t>(0, (half ? y / 2 : y) - margin)); };
  auto hi = [&](std::int64_t y) {
    return static_cast<int>(std::min<std::int64_t>(plane_rows - 1, (half ? y / 2 : y) + margin));
  };
  AxisRead read;
  if (image.first > image.last) return read;
  read.first = lo(image.first), read.last = hi(image.last);
  if (!image.listed) return read;
  read.listed = true;
  for (const std::int32_t y : image.list)
    for (int q = std::max(lo(y), read.list.empty() ? 0 : read.list.back() + 1); q <= hi(y); ++q) read.list.push_back(q);
  return read;
}

// Appends a band of `rows` (from_row / to_row: where row 0 starts), its list to f.rows.
void add_band(SourceFootprint& f, const AxisRead& rows, const std::uint8_t* from_row, std::int64_t from_pitch,
              std::uint64_t to_row, std::uint64_t to_pitch, std::uint64_t bytes) {
  if (rows.first > rows.last || bytes == 0) return;
  FootprintBand b;
  b.from = from_row, b.from_pitch = from_pitch, b.to = to_row, b.to_pitch = to_pitch;
  b.bytes = static_cast<std::uint32_t>(bytes);
  if (rows.listed) {
    b.list = static_cast<std::int64_t>(f.rows.size());
    b.rows = static_cast<std::int32_t>(rows.list.size());
    f.rows.insert(f.rows.end(), rows.list.begin(), rows.list.end());
  } else {
    b.first_row = rows.first, b.rows = rows.last - rows.first + 1;
  }
  f.bands.push_back(b);
}

// Sample g's bands (the caller's sample at `src`, its packed form at
// `landing` in the batch), appended; false where its rows are not
// contiguous in the caller's memory.
bool add_sample_bands(SourceFootprint& f, const ConvertPlan& plan, std::int64_t g, const SampleLayout& layout,
                      const std::uint8_t* src, std::uint64_t landing) {
  const std::int64_t h = plan.h_of(g), w = plan.w_of(g);
  const Rect window = plan.window_of(g);
  // Frames decoded at each tap: not the rows of taps that weigh 0 (a 1080p
  // frame letterboxed by 3 reads rows 3r + 1 only).
  const AxisRead rows = plan.resize ? read_by_taps(plan.interpolation, plan.resize_of(g).y, plan.out_h, h, true,
                                                   plan.decodes_at_taps())
                                    : read_window(window.y, plan.out_h, h);
  if (plan.is_frame()) {
    const bool bayer = plan.frame.format >= PixelFormat::BayerRGGB;
    for (int k = 0; k < layout.planes.count; ++k) {
      const PlaneRows& from = layout.planes.plane[k];
      const PlaneRows& to = layout.packed_planes.plane[k];
      const int margin = bayer || (from.rows < h && plan.frame.chroma == ChromaFilter::Linear) ? 1 : 0;
      add_band(f, plane_rows(rows, from.rows, h, margin), src + from.offset, from.pitch,
               landing + static_cast<std::uint64_t>(to.offset), static_cast<std::uint64_t>(to.pitch),
               static_cast<std::uint64_t>(from.row_bytes));
    }
    return true;
  }
  const AxisRead cols = plan.resize ? read_by_taps(plan.interpolation, plan.resize_of(g).x, plan.out_w, w, false)
                                    : read_window(window.x, plan.out_w, w);
  if (cols.first > cols.last) return true;  // nothing of the image is shown
  const SampleShape shape = shape_of(plan, g);
  const Strides4& s = shape.strides;
  const Strides4& p = layout.packed_strides;
  const std::int64_t c = plan.c, x0 = cols.first, span = cols.last - cols.first + 1;
  if (shape.layout == Layout::NHWC) {
    if ((s.c != 1 && c > 1) || (s.w != c && w > 1)) return false;
    add_band(f, rows, src + x0 * s.w, s.h, landing + static_cast<std::uint64_t>(x0 * p.w),
             static_cast<std::uint64_t>(p.h), static_cast<std::uint64_t>(span * c));
    return true;
  }
  if (s.w != 1 && w > 1) return false;
  for (std::int64_t k = 0; k < c; ++k)
    add_band(f, rows, src + k * s.c + x0, s.h, landing + static_cast<std::uint64_t>(k * p.c + x0),
             static_cast<std::uint64_t>(p.h), static_cast<std::uint64_t>(span));
  return true;
}

std::uint64_t align16(std::uint64_t v) { return (v + 15) / 16 * 16; }

// A band's cells in a slot: a row's bytes and up to 15 bytes to align them.
std::uint64_t cells_bytes(const FootprintBand& b) { return static_cast<std::uint64_t>(b.rows) * (b.bytes + 15u); }

}  // namespace

SourceFootprint source_footprint_of(const ConvertPlan& plan, const SourceView& view,
                                    const std::vector<SampleLayout>& layouts) {
  SourceFootprint f;
  if ((plan.resize && plan.sample_resize.empty()) || layouts.empty()) return f;
  // Whole images of one size, not resized (the commonest pageable batch): nothing to leave out.
  const bool whole_images = !plan.resize && !plan.variable_sizes() && plan.sample_crop.empty() && plan.crop.x == 0 &&
                            plan.crop.y == 0 && plan.out_h == plan.h && plan.out_w == plan.w;
  if (whole_images) return f;
  const auto n = static_cast<std::size_t>(plan.n);
  f.first_band.assign(n + 1, 0);
  f.landing.assign(n + 1, 0);
  std::uint64_t sent = 0;  // with the cells' alignment and the tables
  for (std::size_t g = 0; g < n; ++g) {
    const SampleLayout& layout = layouts.size() == 1 ? layouts[0] : layouts[g];
    f.landing[g + 1] = f.landing[g] + layout.packed_bytes;
    const auto sample = static_cast<std::int64_t>(g);
    const std::size_t listed = f.rows.size();
    if (!add_sample_bands(f, plan, sample, layout, sample_at(view, sample), f.landing[g])) return SourceFootprint{};
    f.first_band[g + 1] = f.bands.size();
    std::uint64_t own = (f.rows.size() - listed) * sizeof(std::int32_t);
    for (std::size_t b = f.first_band[g]; b < f.bands.size(); ++b) {
      own += cells_bytes(f.bands[b]) + sizeof(PlaceBand);
      f.row_bytes += static_cast<std::uint64_t>(f.bands[b].rows) * f.bands[b].bytes;
    }
    // Twice a sample at most: a chunk's slot then fits where its packed samples would (the ring holds two).
    if (own > 2 * layout.packed_bytes) return SourceFootprint{};
    sent += own;
  }
  if (static_cast<double>(sent) > kMaxFootprintShare * static_cast<double>(f.landing[n])) return SourceFootprint{};
  return f;
}

ChunkFootprint chunk_footprint_of(const SourceFootprint& f, std::int64_t first, std::int64_t count) {
  ChunkFootprint c;
  c.first_band = f.first_band[static_cast<std::size_t>(first)];
  c.band_count = f.first_band[static_cast<std::size_t>(first + count)] - c.first_band;
  std::uint64_t cells = 0, listed = 0;
  for (std::size_t b = c.first_band; b < c.first_band + c.band_count; ++b) {
    cells += cells_bytes(f.bands[b]);
    if (f.bands[b].list >= 0) listed += static_cast<std::uint64_t>(f.bands[b].rows);
    c.max_rows = std::max(c.max_rows, f.bands[b].rows);
  }
  c.table_offset = align16(cells);
  c.list_offset = align16(c.table_offset + c.band_count * sizeof(PlaceBand));
  c.slot_bytes = std::max<std::uint64_t>(16, c.list_offset + listed * sizeof(std::int32_t));
  c.slot_at = align16(f.landing[static_cast<std::size_t>(first + count)] - f.landing[static_cast<std::size_t>(first)]);
  return c;
}

const PlaceBand* write_place_table(const SourceFootprint& f, std::int64_t first, const ChunkFootprint& chunk,
                                   std::uint8_t* slot) {
  auto* table = reinterpret_cast<PlaceBand*>(slot + chunk.table_offset);
  auto* lists = reinterpret_cast<std::int32_t*>(slot + chunk.list_offset);
  const std::uint64_t origin = f.landing[static_cast<std::size_t>(first)];
  std::uint64_t cells = 0;
  std::int32_t listed = 0;
  for (std::size_t i = 0; i < chunk.band_count; ++i) {
    const FootprintBand& b = f.bands[chunk.first_band + i];
    PlaceBand& p = table[i];
    p.cells = static_cast<std::uint32_t>(cells);
    p.to = static_cast<std::uint32_t>(b.to - origin);
    p.to_pitch = static_cast<std::uint32_t>(b.to_pitch);
    p.bytes = b.bytes;
    p.first_row = b.first_row, p.rows = b.rows, p.list = -1;
    if (b.list >= 0) {
      p.list = listed;
      std::memcpy(lists + listed, f.rows.data() + b.list, static_cast<std::size_t>(b.rows) * sizeof(std::int32_t));
      listed += b.rows;
    }
    cells += cells_bytes(b);
  }
  return table;
}

void place_rows_on_host(const std::uint8_t* slot, const ChunkFootprint& chunk, std::uint8_t* packed) {
  const auto* table = reinterpret_cast<const PlaceBand*>(slot + chunk.table_offset);
  const auto* lists = reinterpret_cast<const std::int32_t*>(slot + chunk.list_offset);
  for (std::size_t i = 0; i < chunk.band_count; ++i) {
    const PlaceBand& p = table[i];
    for (std::int32_t k = 0; k < p.rows; ++k) {
      const std::int32_t row = band_row(p, lists, k);
      std::memcpy(packed + p.to + static_cast<std::uint64_t>(row) * p.to_pitch, slot + row_in_slot(p, k, row), p.bytes);
    }
  }
}

}  // namespace ferry::core
