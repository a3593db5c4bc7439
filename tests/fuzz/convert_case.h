// One conversion case decoded from fuzz input bytes: the source, transform,
// output and submit-option structs a C caller could pass (valid ones mostly,
// with wild values, wrong struct sizes and NULLs now and then), every buffer
// they point to allocated to exactly the size they declare, and the checks of
// a result against the scalar reference (tests/support/convert_reference.h).
// Shared by the libFuzzer target (fuzz_convert.cpp, CPU backend) and the CUDA
// replay (replay_cuda.cpp, GPU against CPU).
#pragma once

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

inline std::unique_ptr<ConvertCase> decode_convert_case(const std::uint8_t* bytes, std::size_t size) {
  Input in(bytes, size);
  auto cp = std::make_unique<ConvertCase>();
  ConvertCase& c = *cp;
  const int api = in.pick(8);
  c.api = api < 3 ? Api::convert : api == 3 ? Api::output_info : api < 7 ? Api::submit_caller_output
                                                                        : Api::submit_ferry_output;
  c.context_index = in.pick(4) == 3 ? 1 : 0;
  const int mem = in.pick(4);
  c.memory = mem < 2 ? SourceMemory::pageable : mem == 2 ? SourceMemory::pinned : SourceMemory::registered;
  c.stream = in.pick(16) == 15 ? reinterpret_cast<ferry_cuda_stream>(std::uintptr_t{0x1000}) : nullptr;
  c.content_seed = in.u8();

  // ---- source ----
  ferry_source& s = c.source;
  ferry_source_init(&s, sizeof s);
  s.n = 1 + in.pick(4);
  s.h = 1 + in.pick(12);
  s.w = 1 + in.pick(24);
  static const std::int64_t channel_choices[] = {3, 1, 4, 3};
  s.c = channel_choices[in.pick(4)];
  if (in.pick(8) == 7) s.w = in.rare() ? 1 + in.u16() % 700 : 25 + in.pick(64);  // wide rows: vector, threaded paths
  if (in.rare()) {
    switch (in.pick(4)) {
      case 0: s.n = in.wild_int(); break;
      case 1: s.h = in.wild_int(); break;
      case 2: s.w = in.wild_int(); break;
      default: s.c = in.wild_int(); break;
    }
  }
  {
    const int v = in.pick(16);
    set_enum(&s.layout, v < 14 ? 1 + (v & 1) : v == 14 ? static_cast<int>(in.wild_int()) : 0);
  }
  const int slayout = get_enum(s.layout);
  const int form = in.pick(16);  // 0..10 one buffer, 11..14 sample pointers, 15 neither or both
  const bool use_samples = form >= 11 && form < 15;
  {
    const Order so = order_of(slayout);
    std::int64_t sizes[4], strides[4] = {0, 0, 0, 0};
    sizes[so.c] = s.c, sizes[so.h] = s.h, sizes[so.w] = s.w, sizes[3] = s.n;
    decode_strides(in, strides, sizes, use_samples ? 3 : 4, 1);
    s.stride_c = strides[so.c], s.stride_h = strides[so.h], s.stride_w = strides[so.w];
    s.stride_n = use_samples ? (in.rare() ? in.wild_int() : 0) : strides[3];
  }
  Rng rng(c.content_seed + 1);
  {
    ferry_transform t0;
    ferry_transform_init(&t0, sizeof t0);
    ferry_output o0;
    ferry_output_init(&o0, sizeof o0);
    ferry_source probe = s;
    probe.samples = use_samples ? reinterpret_cast<const void* const*>(std::uintptr_t{8}) : nullptr;
    const Geometry g0 = geometry_of(probe, t0, o0);
    if (use_samples) {
      const std::uint64_t sb = decode_bytes(in, g0.sample_extent == huge ? in.u16() : g0.sample_extent);
      s.sample_bytes = sb;
      // n pointers (ferry reads as many as n says): the first 64 samples of their own, the rest
      // share sample 0's buffer.
      if (s.n > 4096) s.n = 4096;
      const std::int64_t count = s.n >= 1 ? s.n : 4;
      c.sample_pointers.reset(static_cast<std::size_t>(count) * sizeof(void*));
      auto** ptrs = reinterpret_cast<const void**>(c.sample_pointers.data());
      const int null_at = in.rare() ? in.pick(static_cast<int>(std::min<std::int64_t>(count, 256))) : -1;
      for (std::int64_t i = 0; i < count; ++i) {
        if (i < 64) {
          c.samples.push_back(std::make_unique<Guarded>(sb));
          rng.fill(c.samples.back()->data(), sb);
        }
        ptrs[i] = i == null_at ? nullptr : c.samples[static_cast<std::size_t>(i < 64 ? i : 0)]->data();
        if (i == null_at) c.any_null_sample = true;
      }
      s.samples = ptrs;
      if (form == 15) s.data = c.samples[0]->data();
    } else {
      const std::uint64_t b = decode_bytes(in, g0.source_extent == huge ? in.u16() : g0.source_extent);
      c.data.reset(b);
      rng.fill(c.data.data(), b);
      s.bytes = b;
      s.data = form == 15 ? nullptr : c.data.data();
    }
  }
  const std::int64_t channels = s.c >= 1 && s.c <= 4 ? s.c : 3;

  // ---- transform ----
  ferry_transform& t = c.transform;
  ferry_transform_init(&t, sizeof t);
  {
    const int v = in.pick(16);
    const int dt[] = {2, 2, 2, 3, 3, 4, 4, 1, 1, 2, 3, 4, 1, 2};
    set_enum(&t.out_dtype, v < 14 ? dt[v] : v == 14 ? static_cast<int>(in.wild_int()) : 0);
  }
  {
    const int v = in.pick(16);
    set_enum(&t.out_layout, v < 14 ? 1 + (v & 1) : v == 14 ? static_cast<int>(in.wild_int()) : 3);
  }
  const bool u8_out = get_enum(t.out_dtype) == FERRY_DTYPE_UINT8;
  switch (in.pick(8)) {
    case 0: case 1: case 2: break;
    case 3: t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0; break;
    case 4: t.out_channels = 3, t.channel_map[0] = t.channel_map[1] = t.channel_map[2] = 0; break;
    case 5:
      t.out_channels = 1 + in.pick(4);
      for (int k = 0; k < 4; ++k) t.channel_map[k] = in.pick(static_cast<int>(channels));
      break;
    case 6:
      t.out_channels = 1 + in.pick(4);
      for (int k = 0; k < 4; ++k) t.channel_map[k] = static_cast<int>(in.range(-1, 4));
      break;
    default:
      t.out_channels = static_cast<int>(in.wild_int());
      for (int k = 0; k < 4; ++k) t.channel_map[k] = static_cast<int>(in.wild_int());
      break;
  }
  if (in.pick(4) == 3) {
    t.pad_channels_to_4 = 1;
    t.pad_value = u8_out && in.pick(4) != 0 ? static_cast<float>(in.u8()) : in.value();
  }
  switch (in.pick(4)) {
    case 0: case 1: break;
    case 2: {
      const float mean[4] = {0.485f, 0.456f, 0.406f, 0.5f}, stdev[4] = {0.229f, 0.224f, 0.225f, 0.25f};
      std::memcpy(t.mean, mean, sizeof mean);
      std::memcpy(t.std, stdev, sizeof stdev);
      break;
    }
    default:
      t.scale = in.pick(4) == 0 ? in.value() : t.scale;
      for (int k = 0; k < 4; ++k) {
        t.mean[k] = in.value();
        t.std[k] = in.value();
      }
      break;
  }
  const std::int64_t oc_alloc = t.out_channels >= 1 && t.out_channels <= 4 ? t.out_channels : channels;
  // Per-sample arrays hold per_sample_count entries; ferry reads n of them once it checked count == n.
  const bool small_n = s.n >= 1 && s.n <= 4096;
  const bool psm = in.pick(8) == 7 && small_n, pss = in.pick(8) == 7 && small_n, psc = in.pick(4) == 3 && small_n,
             psmir = in.pick(4) == 3 && small_n;
  const bool any_ps = psm || pss || psc || psmir;
  {
    const int v = in.pick(16);
    if (any_ps)
      t.per_sample_count = v < 13 ? s.n : v == 13 ? wrap_add(s.n, -1) : v == 14 ? wrap_add(s.n, 1) : in.wild_int();
    else
      t.per_sample_count = v < 15 ? 0 : in.flag() ? s.n : in.wild_int();
  }
  const std::int64_t rows = t.per_sample_count >= 1 && t.per_sample_count <= 4096 ? t.per_sample_count : 1;
  auto floats = [&](Guarded& g, bool is_std) {
    g.reset(static_cast<std::size_t>(rows * oc_alloc) * sizeof(float));
    auto* f = reinterpret_cast<float*>(g.data());
    static const float means[] = {0.0f, 0.5f, -1.0f, 0.485f, 2.0f, 100.0f, -0.25f, 1.0f};
    static const float stds[] = {1.0f, 0.5f, 0.229f, 2.0f, 0.01f, 64.0f, -1.0f, 0.125f};
    for (std::int64_t i = 0; i < rows * oc_alloc; ++i) {
      float v;
      if (in.pick(16) < 15) {
        const int k = in.pick(8);
        v = is_std ? stds[k] : means[k];
      } else {
        v = in.value();
      }
      f[i] = v;
    }
    return static_cast<const float*>(f);
  };
  if (psm) t.per_sample_mean = floats(c.mean, false);
  if (pss) t.per_sample_std = floats(c.stdev, true);

  // Crop: none, inside the image, near it (partly outside), far outside, wild.
  const std::int64_t W = s.w >= 1 && s.w <= 4096 ? s.w : 8, H = s.h >= 1 && s.h <= 4096 ? s.h : 8;
  const int crop_mode = in.pick(8);
  auto window = [&](int mode, std::int64_t fw, std::int64_t fh) {
    ferry_rect r{0, 0, fw, fh};
    switch (mode) {
      case 4:  // inside
        if (r.w <= 0) r.w = 1 + in.u8() % W;
        if (r.h <= 0) r.h = 1 + in.u8() % H;
        r.x = r.w <= W ? in.u8() % (W - r.w + 1) : 0;
        r.y = r.h <= H ? in.u8() % (H - r.h + 1) : 0;
        break;
      case 5:  // near: partly outside
        if (r.w <= 0) r.w = 1 + in.u8() % (W + 4);
        if (r.h <= 0) r.h = 1 + in.u8() % (H + 4);
        r.x = in.range(-std::min<std::int64_t>(r.w, W + 4) - 2, W + 2);
        r.y = in.range(-std::min<std::int64_t>(r.h, H + 4) - 2, H + 2);
        break;
      case 6:  // far: wholly outside, with gaps
        if (r.w <= 0) r.w = 1 + in.u8() % (W + 4);
        if (r.h <= 0) r.h = 1 + in.u8() % (H + 4);
        r.x = in.range(-3 * W - 300, 3 * W + 300);
        r.y = in.range(-3 * H - 100, 3 * H + 100);
        break;
      default:  // wild
        r.x = in.flag() ? in.range(-8, 8) : in.wild_int();
        r.y = in.flag() ? in.range(-8, 8) : in.wild_int();
        if (fw <= 0 || in.rare()) r.w = in.flag() ? in.range(-2, 8) : in.wild_int();
        if (fh <= 0 || in.rare()) r.h = in.flag() ? in.range(-2, 8) : in.wild_int();
        break;
    }
    return r;
  };
  if (crop_mode >= 4) t.crop = window(crop_mode, 0, 0);
  t.pad_outside = crop_mode >= 5 ? in.pick(8) != 0 : in.pick(8) == 7;
  if (t.pad_outside) t.fill_value = u8_out && in.pick(4) != 0 ? static_cast<float>(in.u8()) : in.value();
  if (psc) {
    c.crops.reset(static_cast<std::size_t>(rows) * sizeof(ferry_rect));
    auto* r = reinterpret_cast<ferry_rect*>(c.crops.data());
    const int mode = crop_mode >= 4 ? crop_mode : 4 + in.pick(4);
    std::int64_t fw = t.crop.w, fh = t.crop.h;
    for (std::int64_t i = 0; i < rows; ++i) {
      r[i] = window(in.pick(4) == 0 ? 4 + in.pick(4) : mode, fw, fh);
      if (in.rare()) r[i].w = wrap_add(r[i].w, 1);  // a different size: refused
      fw = r[0].w, fh = r[0].h;
    }
    if (crop_mode < 4 && in.pick(4) == 0) t.crop = ferry_rect{0, 0, r[0].w, r[0].h};  // the same size: allowed
    t.per_sample_crop = r;
  }
  switch (in.pick(8)) {
    case 4: t.mirror = 1; break;
    case 5: t.mirror = 2; break;
    case 6: t.mirror = 3; break;
    case 7: t.mirror = static_cast<int>(in.wild_int()); break;
    default: break;
  }
  if (psmir) {
    c.mirrors.reset(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i)
      c.mirrors.data()[i] = static_cast<std::uint8_t>(in.pick(16) < 15 ? in.pick(4) : in.u8());
    t.per_sample_mirror = c.mirrors.data();
  }

  // ---- output ----
  ferry_output& o = c.output;
  auto decode_output = [&] {
    ferry_output_init(&o, sizeof o);
    ferry_output o0;
    ferry_output_init(&o0, sizeof o0);
    const Geometry g = geometry_of(s, t, o0);
    const Order oo = order_of(get_enum(t.out_layout));
    const std::int64_t e = g.e > 0 ? g.e : 4;
    std::int64_t sizes[4], strides[4] = {0, 0, 0, 0};
    sizes[oo.c] = g.oct > 0 ? g.oct : 3, sizes[oo.h] = g.oh > 0 ? g.oh : 1, sizes[oo.w] = g.ow > 0 ? g.ow : 1;
    sizes[3] = g.n > 0 ? g.n : 1;
    if (in.pick(4) == 3) decode_strides(in, strides, sizes, 4, e);
    o.stride_c = strides[oo.c], o.stride_h = strides[oo.h], o.stride_w = strides[oo.w], o.stride_n = strides[3];
    const Geometry g2 = geometry_of(s, t, o);
    const std::uint64_t b = decode_bytes(in, g2.output_extent == huge ? in.u16() : g2.output_extent);
    c.out.reset(b);
    o.bytes = b;
    o.data = in.pick(64) == 63 ? nullptr : c.out.data();
  };
  decode_output();

  // ---- submit options ----
  ferry_submit_options& so = c.options;
  ferry_submit_options_init(&so, sizeof so);
  {
    const int v = in.pick(16);
    set_enum(&so.source_policy, v < 10 ? 0 : v < 12 ? 1 : v < 15 ? 2 : static_cast<int>(in.wild_int()));
  }
  switch (in.pick(8)) {
    case 4: so.chunk_bytes = 1 + in.u8(); break;
    case 5: so.chunk_bytes = 64 + in.u16() % 4096; break;
    case 6: so.chunk_bytes = 1 + in.u16(); break;
    case 7: so.chunk_bytes = static_cast<std::uint64_t>(in.wild_int()); break;
    default: break;
  }
  switch (in.pick(8)) {
    case 5: so.priority = 1; break;
    case 6: so.priority = -1; break;
    case 7: so.priority = static_cast<int>(in.wild_int()); break;
    default: break;
  }
  c.callback = in.flag();
  if (in.pick(8) == 7) {
    so.has_handoff_stream = 1;
    so.handoff_stream = in.flag() ? reinterpret_cast<ferry_cuda_stream>(std::uintptr_t{0x1000}) : nullptr;
  }

  // ---- how each struct is passed ----
  c.source_size = decode_struct_size(in, sizeof(ferry_source), c.source_tail, c.source_null);
  c.transform_size = decode_struct_size(in, sizeof(ferry_transform), c.transform_tail, c.transform_null);
  c.output_size = decode_struct_size(in, sizeof(ferry_output), c.output_tail, c.output_null);
  c.options_size = decode_struct_size(in, sizeof(ferry_submit_options), c.options_tail, c.options_null);
  {
    std::uint8_t tail;
    bool null;
    c.info_size = decode_struct_size(in, sizeof(ferry_tensor_info), tail, null);
  }
  c.retain = in.pick(4) == 3;

  // ---- resize, read last (inputs from before it decode as they did): mostly
  // valid small outputs, windows inside the image; wild values now and then ----
  if (in.pick(4) == 3) {
    decode_resize_size(in, t);
    for (int k = 0; k < 4; ++k)
      t.letterbox_value[k] = u8_out ? static_cast<float>(in.u8()) : in.pick(4) != 0 ? 0.25f * in.range(-8, 8) : in.value();
    if (in.pick(8) != 7) t.pad_outside = 0;  // else refused
    // A fractional window inside the image, on a quarter-pixel grid or anywhere.
    auto inside = [&] {
      ferry_rectf r;
      if (in.flag()) {
        r.w = std::min<float>(static_cast<float>(W), 0.25f * static_cast<float>(1 + in.u8() % (4 * W)));
        r.h = std::min<float>(static_cast<float>(H), 0.25f * static_cast<float>(1 + in.u8() % (4 * H)));
        r.x = 0.25f * static_cast<float>(in.u8() % (static_cast<int>(4 * (W - r.w)) + 1));
        r.y = 0.25f * static_cast<float>(in.u8() % (static_cast<int>(4 * (H - r.h)) + 1));
      } else {
        r.w = static_cast<float>(W) * static_cast<float>(in.u8() + 1) / 256.0f;
        r.h = static_cast<float>(H) * static_cast<float>(in.u8() + 1) / 256.0f;
        r.x = (static_cast<float>(W) - r.w) * static_cast<float>(in.u8()) / 255.0f;
        r.y = (static_cast<float>(H) - r.h) * static_cast<float>(in.u8()) / 255.0f;
        while (r.x > 0 && static_cast<double>(r.x) + r.w > static_cast<double>(W)) r.x = std::nextafter(r.x, 0.0f);
        while (r.y > 0 && static_cast<double>(r.y) + r.h > static_cast<double>(H)) r.y = std::nextafter(r.y, 0.0f);
      }
      return r;
    };
    switch (in.pick(8)) {
      case 0: case 1: case 2: break;  // the crop (if any) or the whole image
      case 3: case 4: t.window = inside(); break;
      case 5:
        if (small_n) {
          // A count of 0 becomes n only with no per-sample array decoded above (each holds 1
          // entry then; ferry would read n).
          if (t.per_sample_count == 0 && t.per_sample_mean == nullptr && t.per_sample_std == nullptr &&
              t.per_sample_crop == nullptr && t.per_sample_mirror == nullptr)
            t.per_sample_count = s.n;
          const std::int64_t count = t.per_sample_count >= 1 && t.per_sample_count <= 4096 ? t.per_sample_count : 1;
          c.windows.reset(static_cast<std::size_t>(count) * sizeof(ferry_rectf));
          auto* r = reinterpret_cast<ferry_rectf*>(c.windows.data());
          for (std::int64_t i = 0; i < count; ++i) r[i] = inside();
          t.per_sample_window = r;
        }
        break;
      case 6: t.crop = window(4, 0, 0); break;  // an integer window inside
      default: {
        if (in.flag()) {  // inside but far below float's resolution: AREA's footprints keep no tap
          ferry_rectf r = inside();
          r.x = std::floor(r.x), r.y = std::floor(r.y);
          if (in.flag()) r.w = in.flag() ? 1e-5f : 1e-7f;
          if (in.flag()) r.h = in.flag() ? 1e-5f : 1e-7f;
          t.window = r;
        } else {  // wild: NaN, infinite, empty, outside, tiny
          const float v[] = {std::nanf(""), INFINITY, -1.0f, 0.0f, 1e30f, static_cast<float>(W) + 0.5f, 1e-7f};
          t.window = ferry_rectf{v[in.pick(7)], in.value(), v[in.pick(7)], in.value()};
        }
        break;
      }
    }
    if (in.rare()) {
      switch (in.pick(8)) {
        case 0: t.resize_w = in.wild_int(); break;
        case 1: t.resize_h = in.wild_int(); break;
        case 2: set_enum(&t.interpolation, static_cast<int>(in.wild_int())); break;
        case 3: set_enum(&t.resize_mode, static_cast<int>(in.wild_int())); break;
        case 4: set_enum(&t.letterbox_align, static_cast<int>(in.wild_int())); break;
        case 5: t.resize_shorter = in.wild_int(); break;
        case 6: t.resize_w = 0; break;
        default: t.letterbox_value[in.pick(4)] = in.value(); break;
      }
    }
    decode_output();  // sized for the resized output
  }

  // ---- samples of their own sizes (source.sample_descs), read last like resize ----
  if (in.pick(8) == 7) {
    // n entries (1..4 mostly, the per-sample arrays' n), each its own size, strides and
    // buffer of exactly `bytes`; the descs array itself exactly n entries.
    std::int64_t n = s.n >= 1 && s.n <= max_descs ? s.n : 1 + in.pick(4);
    if (in.rare()) n = in.range(-1, 0);
    s.n = n;
    const std::int64_t count = n > 0 ? n : 0;
    c.descs.reset(static_cast<std::size_t>(count) * sizeof(ferry_sample_desc));
    auto* d = reinterpret_cast<ferry_sample_desc*>(c.descs.data());
    const Order so = order_of(slayout);
    // A size the windows below are drawn for (a wild one stands as 8: ferry refuses it anyway).
    auto dim = [](std::int64_t v) { return v >= 1 && v <= 4096 ? v : std::int64_t{8}; };
    std::int64_t min_w = 4096, min_h = 4096;
    for (std::int64_t i = 0; i < count; ++i) {
      ferry_sample_desc& e = d[i];
      e = ferry_sample_desc{};
      e.h = 1 + in.pick(12);
      e.w = 1 + in.pick(24);
      if (i > 0 && in.pick(4) == 0) e.h = d[0].h, e.w = d[0].w;  // the same size as sample 0
      if (in.rare()) (in.flag() ? e.h : e.w) = in.flag() ? in.range(-1, 0) : in.wild_int();
      std::int64_t sizes[3], strides[3] = {0, 0, 0};
      sizes[so.c] = channels, sizes[so.h] = e.h, sizes[so.w] = e.w;
      decode_strides(in, strides, sizes, 3, 1);  // packed, padded, overlapping or wild
      e.stride_c = strides[so.c], e.stride_h = strides[so.h], e.stride_w = strides[so.w];
      std::uint64_t extent = huge;
      if (resolve(strides, sizes, 3, 1)) extent = extent_of(sizes, strides, 3, 1);
      const std::uint64_t b = decode_bytes(in, extent == huge ? in.u16() : extent);
      c.desc_buffers.push_back(std::make_unique<Guarded>(b));
      rng.fill(c.desc_buffers.back()->data(), b);
      e.bytes = b;
      e.data = c.desc_buffers.back()->data();
      if (in.pick(32) == 31) {
        e.data = nullptr;
        c.any_null_sample = true;
      }
      min_w = std::min(min_w, dim(e.w));
      min_h = std::min(min_h, dim(e.h));
    }
    s.sample_descs = d;
    // The batch-wide fields stay 0, or (now and then) keep what was decoded above, or one is
    // set: ferry must refuse (a 0.2.0-sized struct reads no sample_descs and uses them instead).
    if (in.pick(16) != 15) {
      s.data = nullptr, s.samples = nullptr, s.bytes = 0, s.sample_bytes = 0, s.h = 0, s.w = 0;
      s.stride_n = s.stride_c = s.stride_h = s.stride_w = 0;
      if (in.rare()) {
        switch (in.pick(4)) {
          case 0: s.h = 1 + in.pick(4); break;
          case 1: s.bytes = 1 + in.pick(64); break;
          case 2: s.stride_w = 1 + in.pick(4); break;
          default: s.data = c.descs.data(); break;
        }
      }
    }
    if (in.pick(8) == 7) c.source_size = offsetof(ferry_source, sample_descs);  // the 0.2.0 size
    // New per-sample arrays (crops, windows) of n entries, with per_sample_count n, only where
    // the count was n already or 0 with no per-sample array (each holds that count's entries;
    // ferry reads them once it checked count == n).
    const bool no_arrays = t.per_sample_mean == nullptr && t.per_sample_std == nullptr &&
                           t.per_sample_mirror == nullptr;
    const bool per_sample_ok = n >= 1 && (t.per_sample_count == n || (t.per_sample_count == 0 && no_arrays));
    auto crops_of_one_size = [&](bool padded) {
      c.crops.reset(static_cast<std::size_t>(n) * sizeof(ferry_rect));
      auto* r = reinterpret_cast<ferry_rect*>(c.crops.data());
      const std::int64_t w = padded ? 1 + in.pick(static_cast<int>(min_w + 4)) : 1 + in.pick(static_cast<int>(min_w));
      const std::int64_t h = padded ? 1 + in.pick(static_cast<int>(min_h + 4)) : 1 + in.pick(static_cast<int>(min_h));
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t iw = dim(d[i].w), ih = dim(d[i].h);
        r[i] = ferry_rect{0, 0, w, h};
        if (padded) {
          r[i].x = in.range(-w - 2, iw + 2);
          r[i].y = in.range(-h - 2, ih + 2);
        } else {
          r[i].x = in.pick(static_cast<int>(iw - w + 1));
          r[i].y = in.pick(static_cast<int>(ih - h + 1));
        }
        if (in.rare()) r[i].w = wrap_add(r[i].w, 1);  // a different size: refused
      }
      t.per_sample_crop = r;
      t.per_sample_count = n;
    };
    // The transform: mostly one that gives one output size; sometimes not (refused).
    t.crop = ferry_rect{0, 0, 0, 0};
    t.per_sample_crop = nullptr;
    t.window = ferry_rectf{0, 0, 0, 0};
    t.per_sample_window = nullptr;
    const int shape = in.pick(16);
    if (shape < 7) {  // a resize: of the whole image, per-sample windows or crops inside each image
      if (t.resize_w == 0 && t.resize_h == 0) {
        decode_resize_size(in, t);
      }
      if (in.pick(8) != 7) t.pad_outside = 0;  // else refused
      const int where = in.pick(4);
      if (where == 1 && per_sample_ok) {
        c.windows.reset(static_cast<std::size_t>(n) * sizeof(ferry_rectf));
        auto* r = reinterpret_cast<ferry_rectf*>(c.windows.data());
        for (std::int64_t i = 0; i < n; ++i) {
          const float iw = static_cast<float>(dim(d[i].w)), ih = static_cast<float>(dim(d[i].h));
          r[i].w = iw * static_cast<float>(in.u8() + 1) / 256.0f;
          r[i].h = ih * static_cast<float>(in.u8() + 1) / 256.0f;
          r[i].x = (iw - r[i].w) * static_cast<float>(in.u8()) / 255.0f;
          r[i].y = (ih - r[i].h) * static_cast<float>(in.u8()) / 255.0f;
          while (r[i].x > 0 && static_cast<double>(r[i].x) + r[i].w > iw) r[i].x = std::nextafter(r[i].x, 0.0f);
          while (r[i].y > 0 && static_cast<double>(r[i].y) + r[i].h > ih) r[i].y = std::nextafter(r[i].y, 0.0f);
          if (in.rare()) r[i].x = iw;  // outside this image: refused
        }
        t.per_sample_window = r;
        t.per_sample_count = n;
      } else if (where == 2 && per_sample_ok) {
        // Integer crops inside each image, each of its own size (a resize allows that).
        c.crops.reset(static_cast<std::size_t>(n) * sizeof(ferry_rect));
        auto* r = reinterpret_cast<ferry_rect*>(c.crops.data());
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t iw = dim(d[i].w), ih = dim(d[i].h);
          r[i].w = 1 + in.pick(static_cast<int>(iw));
          r[i].h = 1 + in.pick(static_cast<int>(ih));
          r[i].x = in.pick(static_cast<int>(iw - r[i].w + 1));
          r[i].y = in.pick(static_cast<int>(ih - r[i].h + 1));
        }
        t.per_sample_crop = r;
        t.per_sample_count = n;
      } else if (where == 3) {
        t.crop = ferry_rect{0, 0, 1 + in.pick(static_cast<int>(min_w)), 1 + in.pick(static_cast<int>(min_h))};
        t.crop.x = in.pick(static_cast<int>(min_w - t.crop.w + 1));
        t.crop.y = in.pick(static_cast<int>(min_h - t.crop.h + 1));
      }
    } else {
      t.resize_w = t.resize_h = 0;
      set_enum(&t.interpolation, 0);
      set_enum(&t.resize_mode, 0);
      set_enum(&t.letterbox_align, 0);
      t.resize_shorter = 0;
      if (shape < 12 && per_sample_ok) {  // per_sample_crop windows of one size, inside or padded
        const bool padded = in.pick(4) == 3;
        crops_of_one_size(padded);
        t.pad_outside = padded ? in.pick(8) != 7 : in.pick(8) == 7;
        if (in.pick(4) == 0) t.crop = ferry_rect{0, 0, t.per_sample_crop[0].w, t.per_sample_crop[0].h};
      } else if (shape < 14) {  // one crop, checked against every image
        const bool padded = in.pick(4) == 3;
        t.crop.w = padded ? 1 + in.pick(static_cast<int>(min_w + 4)) : 1 + in.pick(static_cast<int>(min_w));
        t.crop.h = padded ? 1 + in.pick(static_cast<int>(min_h + 4)) : 1 + in.pick(static_cast<int>(min_h));
        t.crop.x = padded ? in.range(-2, min_w) : in.pick(static_cast<int>(min_w - t.crop.w + 1));
        t.crop.y = padded ? in.range(-2, min_h) : in.pick(static_cast<int>(min_h - t.crop.h + 1));
        t.pad_outside = padded ? in.pick(8) != 7 : in.pick(8) == 7;
      }
      // else the whole image: refused unless every sample has sample 0's size
    }
    if (t.pad_outside) t.fill_value = u8_out && in.pick(4) != 0 ? static_cast<float>(in.u8()) : in.value();
    decode_output();  // sized for the output of these samples
    if (c.api == Api::convert && count > 0 && in.rare()) {
      // A sample at the start of the caller's output (readable there): it overlaps the
      // elements ferry writes, so ferry_transform_apply must refuse it. (A sample further
      // in may lie past the written extent, which ferry rightly accepts; submit is not
      // asked: the header does not check it there.)
      ferry_sample_desc& e = d[in.pick(static_cast<int>(count))];
      if (e.data != nullptr && e.bytes <= c.out.size() && c.out.size() > 0) {
        e.data = c.out.data();
        c.sample_in_output = true;
      }
    }
  }
  c.set_source_struct();
  c.transform_arg.set(&t, sizeof t, c.transform_size, c.transform_tail);
  c.set_output_struct();
  // options (the callback and user_data) are set by the caller of the case, then set_options_struct().
  return cp;
}

// ---- checks ----

// FERRY_ERR_OUTPUT_TOO_SMALL is the last status (new ones are appended).
inline bool is_known_status(ferry_status st) { return st >= FERRY_OK && st <= FERRY_ERR_OUTPUT_TOO_SMALL; }

// The expected bytes of an output block (canaries included) for the case's
// effective structs, shaped like the guarded block: `fill` everywhere,
// canaries, then the reference's elements (fuzz_support.cpp).
void reference_block(const ferry_source& s, const ferry_transform& t, const ferry_output& o, std::size_t bytes,
                     std::uint8_t fill, std::vector<std::uint8_t>& out);

// Compares a converted block (canaries included) with the reference; returns
// "" or a description of the first difference (fuzz_support.cpp).
std::string compare_with_reference(const ferry_source& s, const ferry_transform& t, const ferry_output& o,
                                   std::size_t bytes, std::uint8_t fill, const std::uint8_t* got);

inline std::string describe(const ConvertCase& c) {
  const ferry_source s = c.eff_source();
  const ferry_transform t = c.eff_transform();
  const ferry_output o = c.eff_output();
  std::string descs;
  if (s.sample_descs != nullptr && s.n >= 1 && s.n <= max_descs) {
    descs = " | sample_descs";
    for (std::int64_t i = 0; i < s.n; ++i) {
      const ferry_sample_desc& d = s.sample_descs[i];
      char b[160];
      std::snprintf(b, sizeof b, " [%lld x %lld strides c %lld h %lld w %lld bytes %zu%s]", (long long)d.h,
                    (long long)d.w, (long long)d.stride_c, (long long)d.stride_h, (long long)d.stride_w, d.bytes,
                    d.data ? "" : " data NULL");
      descs += b;
    }
  } else if (s.sample_descs != nullptr) {
    descs = " | sample_descs with n " + std::to_string(s.n);
  }
  char buf[2048];
  std::snprintf(buf, sizeof buf,
                "source n %lld h %lld w %lld c %lld layout %d strides n %lld c %lld h %lld w %lld bytes %zu "
                "sample_bytes %zu samples %d | transform dtype %d layout %d out_channels %d map %d %d %d %d pad4 %d "
                "crop %lld %lld %lld %lld per_sample crop %d mirror %d per-sample mirror %d count %lld pad_outside %d "
                "resize %lld x %lld interp %d mode %d shorter %lld align %d window %g %g %g %g per-sample window %d "
                "| output strides n %lld c %lld h %lld w %lld bytes %zu | struct sizes %zu %zu %zu %zu | options "
                "policy %d chunk %llu priority %d handoff %d",
                (long long)s.n, (long long)s.h, (long long)s.w, (long long)s.c, get_enum(s.layout),
                (long long)s.stride_n, (long long)s.stride_c, (long long)s.stride_h, (long long)s.stride_w, s.bytes,
                s.sample_bytes, s.samples != nullptr, get_enum(t.out_dtype), get_enum(t.out_layout), t.out_channels,
                t.channel_map[0], t.channel_map[1], t.channel_map[2], t.channel_map[3], t.pad_channels_to_4,
                (long long)t.crop.x, (long long)t.crop.y, (long long)t.crop.w, (long long)t.crop.h,
                t.per_sample_crop != nullptr, t.mirror, t.per_sample_mirror != nullptr, (long long)t.per_sample_count,
                t.pad_outside, (long long)t.resize_w, (long long)t.resize_h, get_enum(t.interpolation),
                get_enum(t.resize_mode), (long long)t.resize_shorter, get_enum(t.letterbox_align), t.window.x,
                t.window.y, t.window.w, t.window.h, t.per_sample_window != nullptr, (long long)o.stride_n, (long long)o.stride_c, (long long)o.stride_h,
                (long long)o.stride_w, o.bytes, c.source_size, c.transform_size, c.output_size, c.options_size,
                get_enum(c.options.source_policy), (unsigned long long)c.options.chunk_bytes, c.options.priority,
                c.options.has_handoff_stream);
  return buf + descs;
}

}  // namespace ferry::fuzz
