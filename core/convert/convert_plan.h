// ConvertPlan: a validated, host-folded description of one conversion
// (SourceDesc + Transform + OutputDesc), and SourceView, where the
// uint8 samples of one convert call are. All validation of the descriptions
// happens when a plan is built; converting with a plan validates nothing, so
// the staging pipeline can convert chunk after chunk with one plan.
//
// Pure C++ (no CUDA headers): tested on every machine.
#pragma once

#include <cstdint>
#include <vector>

#include "core/convert/augment.h"
#include "core/convert/augment_color.h"
#include "core/convert/descriptors.h"
#include "core/convert/frame_format.h"
#include "core/convert/resize_geometry.h"

namespace ferry::core {

// Byte strides of a 4-D tensor, in the order n, c, h, w.
struct Strides4 {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
};

// One sample of a batch of different sizes (source.sample_descs).
struct SampleSource {
  std::int64_t h = 0, w = 0;
  Strides4 strides;          // c, h, w resolved; n unused
  std::uint64_t extent = 0;  // bytes the sample spans
  FramePlanes planes;        // a frame's planes (count 0: c channels at the strides)
};

// The uint8 samples one convert call reads: `count` samples, local index i
// (0 <= i < count) being global sample first + i of the plan.
// Either base (sample i at base + i * strides.n) or samples (samples[i]).
// strides.c/h/w are the element strides inside a sample and may differ from
// the plan's source strides (a staged, packed copy of the caller's data), but
// the sample must hold the whole source image (plan.h x plan.w x plan.c):
// crop windows are source coordinates and stay valid in the view.
// The caller of convert guarantees the view is readable over that extent.
struct SourceView {
  const std::uint8_t* base = nullptr;
  const std::uint8_t* const* samples = nullptr;
  Strides4 strides;  // all resolved (non-zero where the dimension has size > 1)
  // Variable sizes: local sample i's strides (c, h, w) and size are
  // sample_geometry[i] (the plan's sample_sources from the chunk's first
  // sample on); NULL for one size.
  const SampleSource* sample_geometry = nullptr;
  // A resident dataset's gather of samples of one size (base NULL for any
  // other source): sample k of the dataset is at base + k * sample_bytes,
  // and `samples` points into it. A CUDA gather kernel reads the samples by
  // index with no table (CudaConverter::convert). By indices in device
  // memory (device_indices, local sample i's at device_indices[i]),
  // `samples` holds stand-ins of the right alignment, and the device takes
  // sample i at clamp(device_indices[i], 0, count - 1). The CPU never sees
  // device indices (there the indices are host memory, read as pointers).
  struct Resident {
    const std::uint8_t* base = nullptr;
    std::uint64_t sample_bytes = 0;
    std::int64_t count = 0;
    const std::int64_t* device_indices = nullptr;
  } resident;

  Strides4 strides_of(std::int64_t i) const noexcept {
    return sample_geometry != nullptr ? sample_geometry[i].strides : strides;
  }
};

// How a call's per-sample tables reach the device (CUDA): on the kernel's
// stream, behind what is queued there, or on the converter's upload stream
// with the kernel's stream waiting for that copy (cuda_converter.h).
enum class TableStream {
  Kernel,  // the staging pipeline: a chunk's table follows the chunk's own copy
  Upload,  // ferry_transform_apply: the copy does not queue behind the caller's earlier kernels
};

struct ConvertPlan {
  // --- source: every sample is h x w x c uint8 ---
  std::int64_t n = 0, h = 0, w = 0, c = 0;
  Layout source_layout = Layout::NHWC;
  Strides4 source_strides;            // the caller's source, 0s resolved to packed
  bool source_has_samples = false;    // the caller gave a samples array
  std::uint64_t source_sample_extent = 0;  // bytes one sample spans
  std::uint64_t source_extent = 0;    // bytes the whole `data` source spans (data form)
  // Variable sizes (source.sample_descs): sample g is sample_sources[g], at
  // sample_data[g]; h and w above are then the largest sample's, and
  // source_sample_extent the largest extent. Empty for one size.
  std::vector<SampleSource> sample_sources;
  std::vector<const std::uint8_t*> sample_data;
  // Camera and video frames (source.format): each sample is a frame, held as
  // samples of different sizes (sample_sources[g].planes), decoded to the
  // R, G, B image that c = 3 and the rest of the plan describe.
  FrameDecode frame;

  // --- output: n x out_channels_total x out_h x out_w of dtype ---
  DType dtype = DType::Float32;
  Layout out_layout = Layout::NCHW;
  int element_size = 4;
  int out_channels = 0;        // mapped channels, 1..4
  int out_channels_total = 0;  // out_channels, or 4 with channel padding
  int channel_map[4] = {0, 0, 0, 0};
  std::int64_t out_h = 0, out_w = 0;  // the window size
  Strides4 out_strides;               // resolved, in bytes
  std::uint64_t out_extent = 0;       // bytes the whole output spans
  std::uint32_t pad_bits = 0;         // pad_value in the output dtype's bits
  std::uint32_t fill_bits = 0;        // fill_value (outside the image), same

  // --- arithmetic, folded on the host: out = float(u8) * alpha[k] + beta[k],
  // alpha = scale / std, beta = -mean / std (computed in double, rounded once).
  // The multiply and the add round separately on the CPU and the GPU alike,
  // so both give bit-identical results. Ignored for uint8 output. ---
  float alpha[4] = {1, 1, 1, 1};
  float beta[4] = {0, 0, 0, 0};
  std::vector<float> sample_alpha, sample_beta;  // n * 4 each when per sample, else empty

  // --- geometry: crop window (source pixels) and mirror, per batch or sample ---
  Rect crop{0, 0, 0, 0};          // x, y used when sample_crop is empty
  std::vector<Rect> sample_crop;  // n entries, or empty
  int mirror = 0;                       // kMirrorX | kMirrorY
  std::vector<std::uint8_t> sample_mirror;  // n entries, or empty
  bool pad_outside = false;
  bool any_outside = false;  // some window reaches outside its image

  // --- resize (transform.resize_w/h): each sample's window resampled to
  // out_h x out_w. The windows live in sample_resize (crop and sample_crop
  // are then unused); mirror as above, of the output. ---
  bool resize = false;
  Interpolation interpolation = Interpolation::Linear;
  std::vector<ResizeAxes> sample_resize;  // n entries when resize
  std::uint32_t letterbox_bits[4] = {0, 0, 0, 0};  // letterbox_value per output channel, in the dtype's bits

  // --- augmentation (transform.augment): drawn per sample when the plan is
  // built; its crops and flips are in sample_resize and sample_mirror above,
  // its colour and erase parameters here (n entries, or empty). ---
  std::vector<augment::SampleColor> sample_color;
  bool zero_outside = false;   // pixels a crop takes from outside the image are 0 (then coloured), not letterbox
  bool contrast_mean = false;  // some sample's contrast needs its image's mean: a mean pass first
  std::vector<AugmentDraw> pending_draws;  // for augment.report, called (and this emptied) when the plan is valid
  // Set where every sample's window origin and mirror are the augment's
  // alone: a RANDOM or CENTER crop on the window path (or the uniform crop),
  // and flips, over the uniform mirror, with no per-sample table from the
  // caller. A kernel can then draw them itself from (seed, step, first_index
  // + g) (augment_window_draw.h), bit for bit as sample_crop and
  // sample_mirror hold them, with no table (the resident gather kernel).
  struct WindowDraws {
    bool on = false;
    AugmentCrop crop = AugmentCrop::None;
    std::int64_t padding = 0;
    float flip_x = 0, flip_y = 0;
    std::uint64_t seed = 0, step = 0;
    std::int64_t first_index = 0;
  } window_draws;

  bool variable_sizes() const noexcept { return !sample_sources.empty(); }
  bool is_frame() const noexcept { return is_frame_format(frame.format); }
  std::int64_t h_of(std::int64_t g) const noexcept {
    return sample_sources.empty() ? h : sample_sources[static_cast<std::size_t>(g)].h;
  }
  std::int64_t w_of(std::int64_t g) const noexcept {
    return sample_sources.empty() ? w : sample_sources[static_cast<std::size_t>(g)].w;
  }

  // Set by the caller, not by make_convert_plan.
  TableStream table_stream = TableStream::Kernel;

  bool has_per_sample() const noexcept {
    return !sample_alpha.empty() || !sample_crop.empty() || !sample_mirror.empty() || !sample_resize.empty() ||
           !sample_color.empty();
  }
  const ResizeAxes& resize_of(std::int64_t g) const noexcept { return sample_resize[static_cast<std::size_t>(g)]; }
  const float* alpha_of(std::int64_t g) const noexcept {
    return sample_alpha.empty() ? alpha : &sample_alpha[static_cast<std::size_t>(g) * 4];
  }
  const float* beta_of(std::int64_t g) const noexcept {
    return sample_beta.empty() ? beta : &sample_beta[static_cast<std::size_t>(g) * 4];
  }
  Rect window_of(std::int64_t g) const noexcept {
    return sample_crop.empty() ? crop : sample_crop[static_cast<std::size_t>(g)];
  }
  int mirror_of(std::int64_t g) const noexcept {
    return sample_mirror.empty() ? mirror : sample_mirror[static_cast<std::size_t>(g)];
  }
  // True if the output is the source's bytes packed: uint8, the source's
  // layout and channels in order, whole images, nothing mirrored or resized,
  // a packed output (a resident dataset's upload). A chunk is then a copy.
  bool copies_bytes() const noexcept;
  // True if the output is the frames' decoded R, G, B bytes as they are:
  // uint8 NHWC, the three channels in order, whole frames of one size,
  // nothing mirrored, resized or padded, rows packed (any sample stride).
  // The decoder then writes the output itself, with no second pass over it.
  bool decodes_into_output() const noexcept;
  // True if the frames are 4:2:0 with nearest chroma, resized with linear
  // taps to three channels: the GPU's resampling pass decodes each tap where
  // it reads it (no RGB image decoded first), and skips taps of weight 0.
  bool decodes_at_taps() const noexcept;
  // True if every window starts at column 0, spans the full width and stays
  // inside its image, and nothing is mirrored: then rows are whole image rows.
  bool full_width_unmirrored() const noexcept;
  // A resize's share of the source bytes its taps touch (1 without a resize,
  // or where every pixel of a window is read: area, antialiased, frames
  // decoded whole): the rows the taps read (the output rows times the taps,
  // at most the window's), across the columns the window spans, over every
  // sample's whole image; for frames decoded at taps, luma and chroma rows,
  // one tap a row where the second's weight is always 0.
  double resize_source_share() const noexcept;
};

// Validates everything and folds the arithmetic. output may be NULL: a packed
// output (its data and bytes are not checked either). Throws ferry::Error
// with the status the C ABI documents and a message naming argument and value.
ConvertPlan make_convert_plan(const SourceDesc& source, const Transform& transform,
                              const OutputDesc* output);

// Describes the plan's output at `data` (dimensions and byte strides in
// memory-layout order, extent in bytes), for TensorDesc results.
TensorDesc tensor_desc_of(const ConvertPlan& plan, void* data, DeviceKind kind, int device_index);

// The view of the caller's own source (sample 0 .. n-1).
SourceView source_view_of(const ConvertPlan& plan, const SourceDesc& source);

}  // namespace ferry::core
