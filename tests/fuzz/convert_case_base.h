// The pieces of a fuzz conversion case (convert_case.h): the case itself
// (ConvertCase), the geometry ferry is expected to accept, and the decoding
// helpers the case's sections share. Shared by the libFuzzer target and the
// CUDA replay, through convert_case.h.
#pragma once

#include <functional>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/fuzz/fuzz_input.h"

namespace ferry::fuzz {

enum class Api { convert, output_info, submit_caller_output, submit_ferry_output };
enum class SourceMemory { pageable, pinned, registered };

// Largest buffer the harness allocates; a case that needs more is kept with a
// small buffer (ferry must then refuse it).
constexpr std::uint64_t max_buffer = 256u << 10;
constexpr std::uint64_t huge = ~std::uint64_t{0};
// Most entries a source.sample_descs array of the harness has (n never exceeds its count).
constexpr std::int64_t max_descs = 8;

// Enum fields are written and read as ints: a C caller may store any int
// there, and the harness itself must not load an out-of-range enum.
template <typename E>
void set_enum(E* field, int v) {
  static_assert(sizeof(E) == sizeof(int), "ferry enums are int-sized");
  std::memcpy(field, &v, sizeof v);
}
template <typename E>
int get_enum(const E& field) {
  int v;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

// a * b + c on nonnegative values, saturating at `huge`.
inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > huge / a) return huge;
  return a * b;
}
// a + b as a C caller's wrapping arithmetic would give it (no UB in the harness).
inline std::int64_t wrap_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) { return a > huge - b ? huge : a + b; }

// What ferry should read from a caller's struct (struct_io.h's rule for the
// size given): the defaults, overwritten by the first struct_size bytes.
template <typename T>
T effective(const T& full, std::size_t declared, const T& defaults) {
  T v = defaults;
  const std::size_t common = declared < sizeof(T) ? declared : sizeof(T);
  if (common > sizeof(std::size_t))
    std::memcpy(reinterpret_cast<unsigned char*>(&v) + sizeof(std::size_t),
                reinterpret_cast<const unsigned char*>(&full) + sizeof(std::size_t), common - sizeof(std::size_t));
  v.struct_size = sizeof(T);
  return v;
}

// The geometry of a case computed by the harness itself (the reference's
// formulas), saturating instead of overflowing.
struct Geometry {
  bool sane = false;  // every enum valid, sizes positive, strides non-negative, extents computed
  std::int64_t n = 0, h = 0, w = 0, c = 0, oc = 0, oct = 0, oh = 0, ow = 0, e = 0;
  std::int64_t s_n = 0, s_c = 0, s_h = 0, s_w = 0;  // resolved source strides
  std::int64_t o_n = 0, o_c = 0, o_h = 0, o_w = 0;  // resolved output strides
  std::uint64_t source_extent = huge, sample_extent = huge, output_extent = huge, packed_output = huge;
  // source.sample_descs: the batch-wide fields all 0, every sample's data set and its
  // bytes covering its own strides' extent (what the header asks).
  bool descs_valid = false;
};

// Where c, h and w are among a layout's dimensions listed inner to outer
// (NHWC: c, w, h; NCHW: w, h, c), n being the outermost, index 3.
struct Order {
  int c, h, w;
};
inline Order order_of(int layout) { return layout == FERRY_LAYOUT_NCHW ? Order{2, 1, 0} : Order{0, 2, 1}; }

inline std::uint64_t extent_of(const std::int64_t* sizes, const std::int64_t* strides, int count, std::int64_t e) {
  std::uint64_t x = static_cast<std::uint64_t>(e);
  for (int i = 0; i < count; ++i) {
    if (sizes[i] <= 0 || strides[i] < 0) return huge;
    x = sat_add(x, sat_mul(static_cast<std::uint64_t>(sizes[i] - 1), static_cast<std::uint64_t>(strides[i])));
  }
  return x;
}

// Resolves zero strides to packed ones, inner to outer, as the reference does.
inline bool resolve(std::int64_t* strides, const std::int64_t* sizes, int count, std::int64_t e) {
  std::uint64_t running = static_cast<std::uint64_t>(e);
  for (int i = 0; i < count; ++i) {
    if (strides[i] < 0 || sizes[i] <= 0) return false;
    if (strides[i] == 0) {
      if (running > static_cast<std::uint64_t>(INT64_MAX)) return false;
      strides[i] = static_cast<std::int64_t>(running);
    }
    running = sat_mul(static_cast<std::uint64_t>(strides[i]), static_cast<std::uint64_t>(sizes[i]));
  }
  return true;
}

inline Geometry geometry_of(const ferry_source& s, const ferry_transform& t, const ferry_output& o) {
  Geometry g;
  const int slayout = get_enum(s.layout), olayout = get_enum(t.out_layout), dtype = get_enum(t.out_dtype);
  if (slayout != FERRY_LAYOUT_NHWC && slayout != FERRY_LAYOUT_NCHW) return g;
  if (olayout != FERRY_LAYOUT_NHWC && olayout != FERRY_LAYOUT_NCHW) return g;
  if (dtype < FERRY_DTYPE_UINT8 || dtype > FERRY_DTYPE_BFLOAT16) return g;
  g.n = s.n, g.h = s.h, g.w = s.w, g.c = s.c;
  if (s.sample_descs != nullptr) {
    // The harness passes at most max_descs entries (and n of them); the whole-image output is
    // sample 0's size (ferry refuses it unless every sample has that size).
    if (g.n <= 0 || g.n > max_descs || s.sample_descs[0].h <= 0 || s.sample_descs[0].w <= 0) return g;
    g.h = s.sample_descs[0].h, g.w = s.sample_descs[0].w;
  }
  if (g.n <= 0 || g.h <= 0 || g.w <= 0 || g.c <= 0 || g.c > 4) return g;
  if (t.out_channels < 0 || t.out_channels > 4) return g;
  g.oc = t.out_channels ? t.out_channels : g.c;
  g.oct = t.pad_channels_to_4 ? 4 : g.oc;
  const bool per_crop = t.per_sample_crop != nullptr;
  const bool whole = !per_crop && t.crop.w == 0 && t.crop.h == 0;
  const bool resized = t.resize_w != 0 || t.resize_h != 0;  // the output is resize_h x resize_w
  g.ow = resized ? t.resize_w : per_crop ? t.per_sample_crop[0].w : whole ? g.w : t.crop.w;
  g.oh = resized ? t.resize_h : per_crop ? t.per_sample_crop[0].h : whole ? g.h : t.crop.h;
  if (g.ow <= 0 || g.oh <= 0) return g;
  g.e = dtype == FERRY_DTYPE_FLOAT32 ? 4 : dtype == FERRY_DTYPE_UINT8 ? 1 : 2;
  // Source, inner to outer.
  const Order so = order_of(slayout), oo = order_of(olayout);
  std::int64_t ss[4], sz[4];
  ss[so.c] = s.stride_c, ss[so.h] = s.stride_h, ss[so.w] = s.stride_w, ss[3] = s.samples ? 0 : s.stride_n;
  sz[so.c] = g.c, sz[so.h] = g.h, sz[so.w] = g.w, sz[3] = g.n;
  if (s.sample_descs != nullptr) {
    // Samples of their own sizes: one output size needs a resize or a crop (checked by ferry
    // against each image); the extents are the largest sample's.
    g.descs_valid = s.data == nullptr && s.samples == nullptr && s.bytes == 0 && s.sample_bytes == 0 &&
                    s.h == 0 && s.w == 0 && s.stride_n == 0 && s.stride_c == 0 && s.stride_h == 0 &&
                    s.stride_w == 0;
    std::uint64_t largest = 0;
    for (std::int64_t i = 0; i < g.n; ++i) {
      const ferry_sample_desc& d = s.sample_descs[i];
      if (d.h <= 0 || d.w <= 0) return g;
      ss[so.c] = d.stride_c, ss[so.h] = d.stride_h, ss[so.w] = d.stride_w, ss[3] = 0;
      sz[so.c] = g.c, sz[so.h] = d.h, sz[so.w] = d.w, sz[3] = 1;
      if (!resolve(ss, sz, 3, 1)) return g;
      const std::uint64_t x = extent_of(sz, ss, 3, 1);
      if (x == huge) return g;
      if (d.data == nullptr || x > d.bytes) g.descs_valid = false;
      if (i == 0) g.s_c = ss[so.c], g.s_h = ss[so.h], g.s_w = ss[so.w];
      largest = std::max(largest, x);
    }
    g.sample_extent = g.source_extent = largest;
  } else {
    if (!resolve(ss, sz, 4, 1)) return g;
    g.s_c = ss[so.c], g.s_h = ss[so.h], g.s_w = ss[so.w], g.s_n = ss[3];
    g.sample_extent = extent_of(sz, ss, 3, 1);
    g.source_extent = extent_of(sz, ss, 4, 1);
  }
  // Output.
  std::int64_t os[4], oz[4];
  os[oo.c] = o.stride_c, os[oo.h] = o.stride_h, os[oo.w] = o.stride_w, os[3] = o.stride_n;
  oz[oo.c] = g.oct, oz[oo.h] = g.oh, oz[oo.w] = g.ow, oz[3] = g.n;
  std::int64_t packed[4] = {0, 0, 0, 0};
  if (!resolve(packed, oz, 4, g.e)) return g;
  g.packed_output = extent_of(oz, packed, 4, g.e);
  if (!resolve(os, oz, 4, g.e)) return g;
  g.o_c = os[oo.c], g.o_h = os[oo.h], g.o_w = os[oo.w], g.o_n = os[3];
  g.output_extent = extent_of(oz, os, 4, g.e);
  g.sane = g.source_extent != huge && g.output_extent != huge && g.packed_output != huge;
  return g;
}

struct ConvertCase {
  Api api = Api::convert;
  int context_index = 0;
  SourceMemory memory = SourceMemory::pageable;
  ferry_cuda_stream stream = nullptr;  // ferry_transform_apply's stream argument (ignored on the CPU)

  // The structs as the caller filled them (full size).
  ferry_source source{};
  ferry_transform transform{};
  ferry_output output{};
  ferry_submit_options options{};
  // How they are passed: declared struct_size, tail byte, or NULL.
  std::size_t source_size = sizeof(ferry_source), transform_size = sizeof(ferry_transform),
              output_size = sizeof(ferry_output), options_size = sizeof(ferry_submit_options),
              info_size = sizeof(ferry_tensor_info);
  std::uint8_t source_tail = 0, transform_tail = 0, output_tail = 0, options_tail = 0;
  bool source_null = false, transform_null = false, output_null = false, options_null = false;
  bool callback = false;
  bool retain = false;  // submit: read the output through a tensor reference after releasing the batch

  // Every buffer the structs point to, allocated to exactly what they declare.
  Guarded data;                             // source.data
  std::vector<std::unique_ptr<Guarded>> samples;
  Guarded sample_pointers;                  // source.samples (n pointers)
  Guarded mean, stdev, crops, mirrors, windows;  // per_sample_* arrays
  Guarded descs;                            // source.sample_descs (n entries)
  std::vector<std::unique_ptr<Guarded>> desc_buffers;  // sample_descs[i].data, bytes each
  Guarded out;                              // output.data (between canaries)
  bool any_null_sample = false;
  bool sample_in_output = false;  // a sample_descs entry points into the output (ferry_transform_apply refuses)
  std::uint32_t content_seed = 0;

  SizedStruct source_arg, transform_arg, output_arg, options_arg;

  // Pointers to pass (NULL where the case says so).
  const ferry_source* source_ptr() const {
    return source_null ? nullptr : static_cast<const ferry_source*>(source_arg.get());
  }
  const ferry_transform* transform_ptr() const {
    return transform_null ? nullptr : static_cast<const ferry_transform*>(transform_arg.get());
  }
  const ferry_output* output_ptr() const {
    return output_null ? nullptr : static_cast<const ferry_output*>(output_arg.get());
  }
  const ferry_submit_options* options_ptr() const {
    return options_null ? nullptr : static_cast<const ferry_submit_options*>(options_arg.get());
  }
  // Whether each struct is passed as the current header's: a plain call.
  bool plain_structs() const {
    return source_size == sizeof(ferry_source) && transform_size == sizeof(ferry_transform) &&
           output_size == sizeof(ferry_output) && options_size == sizeof(ferry_submit_options) && !source_null &&
           !output_null;
  }
  // Whether the call is one ferry must accept when output_info accepts the
  // source and transform: plain structs, an exact packed output, real samples.
  bool must_succeed(const Geometry& g) const {
    return plain_structs() && g.sane && output.data != nullptr && output.stride_n == 0 && output.stride_c == 0 &&
           output.stride_h == 0 && output.stride_w == 0 && output.bytes >= g.packed_output && !any_null_sample &&
           (source.sample_descs == nullptr || g.descs_valid) && !sample_in_output;
  }

  // Re-points source.data / samples at other memory (pinned, registered) and
  // rebuilds the struct passed to ferry.
  void set_source_struct() { source_arg.set(&source, sizeof source, source_size, source_tail); }
  void set_output_struct() { output_arg.set(&output, sizeof output, output_size, output_tail); }
  void set_options_struct() { options_arg.set(&options, sizeof options, options_size, options_tail); }

  // The structs as ferry reads them. A struct_size that ends inside a pointer
  // leaves a torn pointer there: the harness never follows one (it is set to
  // NULL here and torn() says so; ferry must refuse such a struct).
  ferry_source eff_source() const {
    ferry_source d;
    ferry_source_init(&d, sizeof d);
    ferry_source e = effective(source, source_size, d);
    untear(e.data, source.data), untear(e.samples, source.samples), untear(e.sample_descs, source.sample_descs);
    return e;
  }
  ferry_transform eff_transform() const {
    ferry_transform d;
    ferry_transform_init(&d, sizeof d);
    if (transform_null) return d;
    ferry_transform e = effective(transform, transform_size, d);
    untear(e.per_sample_mean, transform.per_sample_mean), untear(e.per_sample_std, transform.per_sample_std);
    untear(e.per_sample_crop, transform.per_sample_crop), untear(e.per_sample_mirror, transform.per_sample_mirror);
    untear(e.per_sample_window, transform.per_sample_window);
    return e;
  }
  ferry_output eff_output() const {
    ferry_output d;
    ferry_output_init(&d, sizeof d);
    ferry_output e = effective(output, output_size, d);
    untear(e.data, output.data);
    return e;
  }
  // Whether a struct the call reads (source and transform; the output, the options if
  // the call takes them) has a torn pointer.
  bool torn(bool output_read, bool options_read) const {
    torn_ = false;
    eff_source(), eff_transform();
    if (output_read && !output_null) eff_output();
    if (options_read && !options_null) {
      ferry_submit_options d;
      ferry_submit_options_init(&d, sizeof d);
      ferry_submit_options e = effective(options, options_size, d);
      untear(e.callback, options.callback), untear(e.user_data, options.user_data);
    }
    return torn_;
  }

 private:
  template <typename P>
  void untear(P& effective_value, P full_value) const {
    if (effective_value != full_value && effective_value != P{}) {
      effective_value = P{};
      torn_ = true;
    }
  }
  mutable bool torn_ = false;

 public:
};

inline std::size_t decode_struct_size(Input& in, std::size_t full, std::uint8_t& tail, bool& null) {
  tail = 0;
  null = false;
  const int mode = in.pick(64);
  if (mode < 58) return full;
  if (mode == 58) return full + 8;
  if (mode == 59) {
    tail = static_cast<std::uint8_t>(in.u8() | 1);
    return full + 8;
  }
  if (mode == 60) {
    null = true;
    return full;
  }
  static const std::size_t fixed[] = {0, 1, 8, 9, 16, 65536, 65537, 1u << 20};
  switch (in.pick(4)) {
    case 0: return fixed[in.pick(8)];
    case 1: return full - 1 - static_cast<std::size_t>(in.pick(8));
    case 2: return 9 + in.u16() % (full - 9);  // any size inside the struct (a torn field)
    default: return full + 1 + in.u16() % 64;
  }
}

// Strides for `count` dimensions (inner to outer) of element size e: mostly
// zero (packed), sometimes packed and explicit, padded, or wild.
inline void decode_strides(Input& in, std::int64_t* strides, const std::int64_t* sizes, int count, std::int64_t e) {
  std::uint64_t running = static_cast<std::uint64_t>(e);
  for (int i = 0; i < count; ++i) {
    const int mode = in.pick(16);
    std::int64_t s = 0;
    if (mode < 11) {
      s = 0;
    } else if (mode == 11) {
      s = static_cast<std::int64_t>(running);
    } else if (mode < 14) {
      s = wrap_add(static_cast<std::int64_t>(running), e * in.range(1, 9));
    } else if (mode == 14) {
      s = in.range(0, 512) * (in.flag() ? e : 1);
    } else {
      s = in.wild_int();
    }
    if (running >= (std::uint64_t{1} << 40)) s = 0;
    strides[i] = s;
    const std::uint64_t resolved = s > 0 ? static_cast<std::uint64_t>(s) : running;
    running = sat_mul(resolved, static_cast<std::uint64_t>(sizes[i] > 0 ? sizes[i] : 1));
  }
}

// A byte count near `extent`: mostly exact, sometimes short or long by a little.
inline std::uint64_t decode_bytes(Input& in, std::uint64_t extent) {
  const int mode = in.pick(16);
  std::uint64_t b = extent;
  if (mode == 12 && extent > 0) b = extent - 1;
  if (mode == 13) b = extent + static_cast<std::uint64_t>(in.range(1, 64));
  if (mode == 14 && extent > 8) b = extent - static_cast<std::uint64_t>(in.range(1, 8));
  if (mode == 15) b = in.u16();
  if (b > max_buffer) b = in.u16();  // too large to allocate: a small buffer ferry must refuse
  return b;
}

// A valid small resize: output size, interpolation, mode (and shorter side), alignment.
inline void decode_resize_size(Input& in, ferry_transform& t) {
  t.resize_w = 1 + in.pick(16);
  t.resize_h = 1 + in.pick(16);
  set_enum(&t.interpolation, 1 + in.pick(5));
  set_enum(&t.resize_mode, 1 + in.pick(3));
  if (get_enum(t.resize_mode) == FERRY_RESIZE_SHORTER_SIDE) t.resize_shorter = 1 + in.pick(20);
  set_enum(&t.letterbox_align, in.pick(2));
}

// What a section of decode_convert_case reads from the sections before it.
struct DecodeScope {
  Input& in;
  ConvertCase& c;
  Rng& rng;
  std::int64_t W, H;       // the source's size, or 8 where it is wild
  std::int64_t channels;   // the source's channels, or 3 where wild
  int slayout;             // the source layout as decoded
  bool u8_out;             // uint8 output
  bool small_n;            // 1 <= n <= 4096: per-sample arrays of n entries
  std::function<ferry_rect(int, std::int64_t, std::int64_t)> window;  // a crop window of a mode
  std::function<void()> decode_output;                                // (re)decodes the output for the case so far
};

}  // namespace ferry::fuzz
