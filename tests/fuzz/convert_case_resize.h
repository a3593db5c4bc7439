// The resize fields of a fuzz conversion case (transform.resize_w/h and the
// rest), read after everything else of the transform so that inputs from
// before resize decode as they did: mostly valid small outputs, windows
// inside the image; wild values now and then.
#pragma once

#include <algorithm>
#include <cmath>

#include "tests/fuzz/convert_case_base.h"

namespace ferry::fuzz {

inline void decode_resize_fields(DecodeScope& scope) {
  Input& in = scope.in;
  ConvertCase& c = scope.c;
  ferry_source& s = c.source;
  ferry_transform& t = c.transform;
  const std::int64_t W = scope.W, H = scope.H;
  const bool u8_out = scope.u8_out, small_n = scope.small_n;
  auto& window = scope.window;
  auto& decode_output = scope.decode_output;
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

}  // namespace ferry::fuzz
