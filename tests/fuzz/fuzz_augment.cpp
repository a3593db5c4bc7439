// Fuzz target: random augmentation (ferry_transform.augment) on the CPU
// backend. The augmentation's fields (valid mostly, out of their domain or
// raw now and then), its struct_size, the images (one buffer, or samples of
// different sizes), the transform (output size, dtype, layout, channels,
// interpolation) and the `drawn` array (its stride, between canaries) come
// from the input. Checked: describe, apply and submit agree on the status; a
// refused call writes neither its output nor `drawn`; an accepted one writes
// inside both, its drawn parameters equal ferry_augment_draw's and lie in
// their ranges (crops inside the image or its padding, erase boxes inside the
// output, factors in their ranges, the order a permutation), and submit (in
// chunks now and then) gives the bytes apply gives. Never a crash.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "ferry/ferry.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ferry::fuzz;

namespace {

template <typename E>
void set_enum(E& field, int v) {
  std::memcpy(&field, &v, sizeof v);
}

// A range: mostly [lo, hi] inside the domain, now and then anything.
void decode_range(Input& in, float (&r)[2], float lo, float hi) {
  if (in.rare()) {
    r[0] = in.value(), r[1] = in.value();
    return;
  }
  const float a = lo + (hi - lo) * static_cast<float>(in.u8()) / 255.0f, b = lo + (hi - lo) * static_cast<float>(in.u8()) / 255.0f;
  r[0] = std::min(a, b), r[1] = std::max(a, b);
}

float decode_probability(Input& in) { return in.rare() ? in.value() : static_cast<float>(in.pick(5)) * 0.25f; }

void decode_augment(Input& in, ferry_augment& a) {
  ferry_augment_init(&a, sizeof a);
  a.seed = in.u32(), a.step = in.u16();
  if (in.rare()) a.first_index = in.wild_int();
  set_enum(a.crop, in.rare() ? static_cast<int>(in.range(-2, 6)) : in.pick(4));
  if (in.flag()) decode_range(in, a.scale, 0.0f, 1.0f);
  if (in.flag()) decode_range(in, a.ratio, 0.05f, 8.0f);
  if (in.flag()) a.padding = in.rare() ? in.wild_int() : in.pick(9);
  a.flip_x_probability = decode_probability(in), a.flip_y_probability = decode_probability(in);
  if (in.flag()) decode_range(in, a.brightness, 0.0f, 2.5f);
  if (in.flag()) decode_range(in, a.contrast, 0.0f, 2.5f);
  if (in.flag()) decode_range(in, a.saturation, 0.0f, 2.5f);
  if (in.flag()) decode_range(in, a.hue, -0.5f, 0.5f);
  a.grayscale_probability = decode_probability(in);
  a.erase_probability = decode_probability(in);
  if (in.flag()) decode_range(in, a.erase_scale, 0.0f, 1.0f);
  if (in.flag()) decode_range(in, a.erase_ratio, 0.05f, 8.0f);
  set_enum(a.erase_fill, in.rare() ? static_cast<int>(in.range(-2, 4)) : in.pick(2));
  for (float& v : a.erase_value) v = in.pick(4) == 0 ? in.value() : static_cast<float>(in.u8());
}

ferry_transform decode_transform(Input& in) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  static const ferry_dtype dtypes[] = {FERRY_DTYPE_UINT8, FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16};
  t.out_dtype = dtypes[in.pick(4)];
  t.out_layout = in.flag() ? FERRY_LAYOUT_NCHW : FERRY_LAYOUT_NHWC;
  if (in.pick(4) != 0) t.resize_w = 1 + in.pick(40), t.resize_h = 1 + in.pick(40);
  if (in.rare()) set_enum(t.resize_mode, 1 + in.pick(3));
  set_enum(t.interpolation, 1 + in.pick(5));
  if (in.pick(4) == 0) {
    t.out_channels = 1 + in.pick(4);
    for (int k = 0; k < 4; ++k) t.channel_map[k] = in.pick(3);
  }
  t.pad_channels_to_4 = in.pick(4) == 0;
  t.mirror = in.pick(4);
  if (in.rare()) t.crop = ferry_rect{in.range(0, 3), in.range(0, 3), 1 + in.pick(8), 1 + in.pick(8)};
  return t;
}

bool in_range(float v, const float (&r)[2]) { return v >= r[0] && v <= r[1]; }

// The drawn parameters of sample i (an h x w image, an out_w x out_h output) lie where they must.
void check_drawn(const ferry_augment& a, const ferry_augment_params& d, std::int64_t h, std::int64_t w,
                 std::int64_t out_w, std::int64_t out_h) {
  const ferry_rect& c = d.crop;
  if (a.crop == FERRY_AUGMENT_CROP_RANDOM_RESIZED &&
      !(c.x >= 0 && c.y >= 0 && c.w > 0 && c.h > 0 && c.x + c.w <= w && c.y + c.h <= h))
    fail("a RandomResizedCrop window lies outside its image");
  if (a.crop == FERRY_AUGMENT_CROP_RANDOM &&
      !(c.w == out_w && c.h == out_h && c.x >= -a.padding && c.y >= -a.padding && c.x + c.w <= w + a.padding &&
        c.y + c.h <= h + a.padding))
    fail("a RandomCrop window lies outside the padded image");
  if (d.flip < 0 || d.flip > 3) fail("a drawn flip is not mirror bits");
  if (!(in_range(d.brightness, a.brightness) && in_range(d.contrast, a.contrast) &&
        in_range(d.saturation, a.saturation) && in_range(d.hue, a.hue)))
    fail("a drawn jitter factor lies outside its range");
  int seen = 0;
  for (int k : d.jitter_order) seen |= (k >= 0 && k < 4) ? 1 << k : 16;
  if (seen != 15) fail("jitter_order is not a permutation of the four operations");
  if (d.erased && !(d.erase.x >= 0 && d.erase.y >= 0 && d.erase.w > 0 && d.erase.h > 0 &&
                    d.erase.x + d.erase.w <= out_w && d.erase.y + d.erase.h <= out_h))
    fail("an erase box lies outside the output");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  Rng rng(in.u32());
  ferry_augment a;
  decode_augment(in, a);
  ferry_transform t = decode_transform(in);
  // The images: one buffer of n images of one size, or n of their own sizes.
  const std::int64_t n = 1 + in.pick(4);
  const bool variable = in.flag();
  std::vector<std::int64_t> hs, ws;
  std::vector<std::unique_ptr<Guarded>> buffers;
  std::vector<ferry_sample_desc> descs;
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.n = n, s.c = 3;
  for (std::int64_t i = 0; i < n; ++i) {
    hs.push_back(i > 0 && !variable ? hs[0] : 1 + in.pick(40));
    ws.push_back(i > 0 && !variable ? ws[0] : 1 + in.pick(40));
  }
  if (variable) {
    for (std::int64_t i = 0; i < n; ++i) {
      buffers.push_back(std::make_unique<Guarded>(static_cast<std::size_t>(hs[i] * ws[i] * 3)));
      rng.fill(buffers.back()->data(), buffers.back()->size());
      ferry_sample_desc d{};
      d.data = buffers.back()->data(), d.bytes = buffers.back()->size(), d.h = hs[i], d.w = ws[i];
      descs.push_back(d);
    }
    s.sample_descs = descs.data();
  } else {
    buffers.push_back(std::make_unique<Guarded>(static_cast<std::size_t>(n * hs[0] * ws[0] * 3)));
    rng.fill(buffers.back()->data(), buffers.back()->size());
    s.data = buffers.back()->data(), s.bytes = buffers.back()->size(), s.h = hs[0], s.w = ws[0];
  }
  // `drawn`: n entries `stride` apart, between canaries; the augmentation passed at some struct_size.
  const std::size_t stride = sizeof(ferry_augment_params) + (in.flag() ? 8 * in.pick(3) : 0);
  Guarded drawn(static_cast<std::size_t>(n) * stride, 0x3C);
  const bool want_drawn = in.pick(4) != 0;
  a.drawn = want_drawn ? reinterpret_cast<ferry_augment_params*>(drawn.data()) : nullptr;
  a.drawn_stride = stride == sizeof(ferry_augment_params) && in.flag() ? 0 : stride;
  if (in.rare()) a.struct_size = static_cast<std::size_t>(in.range(0, sizeof a));  // never past the struct
  t.augment = in.rare() ? nullptr : &a;

  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  const ferry_status described = ferry_transform_describe_output(&info, &s, &t);
  Guarded out(described == FERRY_OK ? info.bytes : 64, 0x5A);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = out.data(), o.bytes = out.size();
  const std::vector<std::uint8_t> drawn_before(drawn.data(), drawn.data() + drawn.size());
  const ferry_status applied = ferry_transform_apply(shared_context(), &s, &t, &o, nullptr);
  if ((described == FERRY_OK) != (applied == FERRY_OK)) fail("describe and apply disagree:", ferry_last_error());
  if (out.check_canaries() != 0) fail("ferry_transform_apply wrote outside its output");
  if (drawn.check_canaries() != 0) fail("ferry_transform_apply wrote outside `drawn`");
  if (applied != FERRY_OK) {
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out.data()[i] != 0x5A) fail("a refused ferry_transform_apply wrote its output");
    if (std::memcmp(drawn_before.data(), drawn.data(), drawn.size()) != 0) fail("a refused call wrote `drawn`");
    return 0;
  }
  if (t.augment == nullptr || !want_drawn) return 0;
  // The parameters: those ferry_augment_draw gives, each where it must lie.
  std::vector<ferry_augment_params> again(static_cast<std::size_t>(n));
  const std::int64_t out_w = info.layout == FERRY_LAYOUT_NCHW ? info.shape[3] : info.shape[2];
  const std::int64_t out_h = info.layout == FERRY_LAYOUT_NCHW ? info.shape[2] : info.shape[1];
  if (ferry_augment_draw(&a, n, hs.data(), ws.data(), out_w, out_h, again.data(), 0) != FERRY_OK)
    fail("ferry_augment_draw refuses what apply took:", ferry_last_error());
  for (std::int64_t i = 0; i < n; ++i) {
    ferry_augment_params d;
    std::memcpy(&d, drawn.data() + static_cast<std::size_t>(i) * stride, sizeof d);
    ferry_augment_params& e = again[static_cast<std::size_t>(i)];
    if (a.crop == FERRY_AUGMENT_CROP_NONE) e.crop = d.crop;  // the transform's own window, not drawn
    if (std::memcmp(&d, &e, sizeof d) != 0) fail("`drawn` differs from ferry_augment_draw");
    if (a.struct_size == sizeof a) check_drawn(a, d, hs[static_cast<std::size_t>(i)], ws[static_cast<std::size_t>(i)], out_w, out_h);
  }
  // Submit, in chunks now and then: the bytes apply gave.
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.chunk_bytes = in.flag() ? 1024 : 0;
  ferry_batch_t batch = nullptr;
  if (ferry_batch_submit(&batch, shared_context(), &s, &t, nullptr, &so) != FERRY_OK)
    fail("submit refuses what apply took:", ferry_last_error());
  if (ferry_batch_wait(batch) != FERRY_OK) fail("ferry_batch_wait failed:", ferry_last_error());
  ferry_tensor_info got;
  ferry_tensor_info_init(&got, sizeof got);
  if (ferry_batch_describe_output(&got, batch) != FERRY_OK) fail("ferry_batch_describe_output failed");
  if (got.bytes != info.bytes || std::memcmp(got.data, out.data(), info.bytes) != 0)
    fail("submit's output differs from apply's");
  ferry_batch_release(batch);
  for (auto& b : buffers)
    if (b->check_canaries() != 0) fail("an image's canaries changed");
  return 0;
}
