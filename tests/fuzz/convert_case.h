// One conversion case decoded from fuzz input bytes: the source, transform,
// output and submit-option structs a C caller could pass (valid ones mostly,
// with wild values, wrong struct sizes and NULLs now and then), every buffer
// they point to allocated to exactly the size they declare, and the checks of
// a result against the scalar reference (tests/support/convert_reference.h).
// Shared by the libFuzzer target (fuzz_convert.cpp, CPU backend) and the CUDA
// replay (replay_cuda.cpp, GPU against CPU).
#pragma once

#include <memory>
#include <string>

#include "tests/fuzz/convert_case_base.h"
#include "tests/fuzz/convert_case_resize.h"
#include "tests/fuzz/convert_case_samples.h"

namespace ferry::fuzz {

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

  DecodeScope scope{in, c, rng, W, H, channels, slayout, u8_out, small_n, window, decode_output};
  if (in.pick(4) == 3) decode_resize_fields(scope);
  if (in.pick(8) == 7) decode_sample_descs(scope);
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
