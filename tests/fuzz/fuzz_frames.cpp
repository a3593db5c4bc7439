// Fuzz target: camera and video frame descriptions (ferry_source.format) on
// the CPU backend. Format, colour options (valid or not), sizes, plane
// offsets and pitches, the source form (one buffer, sample pointers,
// sample_descs) and a transform come from the input; each frame lies in a
// buffer of about the bytes its description needs (sometimes fewer), between
// canaries. Checked: describe, apply and submit agree on the status; an
// accepted call writes inside its output and reads inside its frames (ASan,
// canaries); a refused one leaves the output as it was. Never a crash.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/convert_plan.h"
#include "ferry/ferry.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ferry::fuzz;

namespace {

template <typename E>
void set_enum(E& field, int v) {
  std::memcpy(&field, &v, sizeof v);
}

// The bytes the description needs (frames n at stride_n, or one frame), or 0
// where ferry refuses it whatever the bytes, or the frames exceed 1 MiB (the
// harness stays small and fast): the plan's own answer. s.data or s.samples
// must be set (to anything: nothing is read).
std::uint64_t needed_bytes(ferry_source s) {
  s.bytes = s.sample_bytes = std::uint64_t{1} << 40;
  try {
    const std::uint64_t need =
        ferry::core::make_convert_plan(ferry::api::to_core(s), ferry::core::Transform{}, nullptr).source_extent;
    return need <= (std::uint64_t{1} << 20) ? need : 0;
  } catch (...) {
    return 0;
  }
}

// About `need` bytes: now and then a few fewer or a few more.
std::size_t about(Input& in, std::uint64_t need) {
  std::int64_t bytes = static_cast<std::int64_t>(need == 0 ? in.u16() % 4096 : need);
  if (in.pick(8) == 0) bytes -= 1 + in.pick(4);
  else bytes += in.pick(3);
  return static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1));
}

std::unique_ptr<Guarded> frame_buffer(Rng& rng, std::size_t bytes) {
  auto b = std::make_unique<Guarded>(bytes);
  rng.fill(b->data(), b->size());
  return b;
}

ferry_transform draw_transform(Input& in) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  switch (in.pick(4)) {
    case 0: t.out_dtype = FERRY_DTYPE_UINT8, t.out_layout = FERRY_LAYOUT_NHWC; break;
    case 1:  // a detector's input
      t.out_dtype = FERRY_DTYPE_FLOAT16;
      t.resize_w = 1 + in.pick(24), t.resize_h = 1 + in.pick(24);
      t.resize_mode = in.flag() ? FERRY_RESIZE_LETTERBOX : FERRY_RESIZE_STRETCH;
      set_enum(t.interpolation, 1 + in.pick(5));
      t.mirror = in.pick(4);
      break;
    case 2:  // a crop reaching outside, padded
      t.crop = ferry_rect{in.range(-3, 3), in.range(-3, 3), 1 + in.pick(8), 1 + in.pick(8)};
      t.pad_outside = 1;
      break;
    default: break;
  }
  if (in.pick(4) == 0) {
    t.out_channels = 1 + in.pick(4);
    for (int k = 0; k < 4; ++k) t.channel_map[k] = in.pick(5);  // 3 and 4: channels a frame does not have
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  Rng rng(in.u32());
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  // The enum fields are set as ints: a value outside an enum is for ferry to refuse, and the
  // harness never reads one back as the enum.
  const int format = in.pick(13) - 1;  // -1 and 11: not formats; 0: channels
  set_enum(s.format, format);
  set_enum(s.color_matrix, in.rare() ? in.range(-2, 5) : in.pick(3));
  set_enum(s.color_range, in.rare() ? in.range(-2, 5) : in.pick(2));
  set_enum(s.chroma_filter, in.rare() ? in.range(-2, 5) : in.pick(2));
  if (format == FERRY_FORMAT_CHANNELS) s.c = 3;
  else if (in.rare()) s.c = in.range(-1, 5);
  const std::int64_t h = in.rare() ? in.wild_int() : 1 + in.pick(33), w = in.rare() ? in.wild_int() : 1 + in.pick(47);
  for (int k = 0; k < 3; ++k) {
    if (in.pick(4) == 0) s.plane_pitch[k] = in.range(-4, 160);
    if (in.pick(6) == 0) s.plane_offset[k] = in.range(-8, 6000);
  }
  if (in.rare()) s.stride_h = in.range(-1, 64);
  const int form = in.pick(3);
  const std::int64_t n = 1 + in.pick(3);
  std::vector<std::unique_ptr<Guarded>> buffers;
  std::vector<const void*> pointers;
  std::vector<ferry_sample_desc> descs;
  if (form == 0) {  // one buffer, frames stride_n apart
    s.n = n, s.h = h, s.w = w;
    if (in.pick(4) == 0) s.stride_n = in.range(-2, 20000);
    s.data = &s;
    buffers.push_back(frame_buffer(rng, about(in, needed_bytes(s))));
    s.data = buffers.back()->data(), s.bytes = buffers.back()->size();
  } else if (form == 1) {  // sample pointers, each frame its own buffer
    s.n = n, s.h = h, s.w = w;
    ferry_source one = s;
    one.n = 1, one.data = &one;  // any non-NULL pointer: needed_bytes reads nothing
    const std::size_t bytes = about(in, needed_bytes(one));  // every frame's buffer sample_bytes long
    for (std::int64_t i = 0; i < n; ++i) {
      buffers.push_back(frame_buffer(rng, bytes));
      pointers.push_back(buffers.back()->data());
    }
    s.samples = pointers.data();
    s.sample_bytes = bytes;
  } else {  // frames of different sizes
    for (std::int64_t i = 0; i < n; ++i) {
      ferry_sample_desc d{};
      d.h = i == 0 ? h : 1 + in.pick(33), d.w = i == 0 ? w : 1 + in.pick(47);
      if (in.pick(4) == 0) d.stride_h = in.range(-1, 160);
      ferry_source one;
      ferry_source_init(&one, sizeof one);
      set_enum(one.format, format);
      one.n = 1, one.h = d.h, one.w = d.w, one.data = &one;
      one.plane_pitch[0] = d.stride_h;
      buffers.push_back(frame_buffer(rng, about(in, needed_bytes(one))));
      d.data = buffers.back()->data(), d.bytes = buffers.back()->size();
      descs.push_back(d);
    }
    s.n = n;
    s.sample_descs = descs.data();
  }
  const ferry_transform t = draw_transform(in);

  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  const ferry_status described = ferry_transform_describe_output(&info, &s, &t);
  Guarded out(described == FERRY_OK ? info.bytes : 64, 0x5A);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = out.data(), o.bytes = out.size();
  const ferry_status applied = ferry_transform_apply(shared_context(), &s, &t, &o, nullptr);
  if ((described == FERRY_OK) != (applied == FERRY_OK)) fail("describe and apply disagree:", ferry_last_error());
  if (out.check_canaries() != 0) fail("ferry_transform_apply wrote outside its output");
  if (applied != FERRY_OK) {
    const std::uint8_t* bytes = out.data();
    for (std::size_t i = 0; i < out.size(); ++i)
      if (bytes[i] != 0x5A) fail("a refused ferry_transform_apply wrote its output");
  }
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.chunk_bytes = in.flag() ? 1024 : 0;  // several chunks now and then
  ferry_batch_t batch = nullptr;
  const ferry_status submitted = ferry_batch_submit(&batch, shared_context(), &s, &t, nullptr, &so);
  if ((described == FERRY_OK) != (submitted == FERRY_OK)) fail("describe and submit disagree:", ferry_last_error());
  if (batch != nullptr) {
    if (ferry_batch_wait(batch) != FERRY_OK) fail("ferry_batch_wait failed:", ferry_last_error());
    ferry_batch_release(batch);
  }
  for (auto& b : buffers)
    if (b->check_canaries() != 0) fail("a frame's canaries changed");
  return 0;
}
