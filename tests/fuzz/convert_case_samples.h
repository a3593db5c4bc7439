// Samples of their own sizes in a fuzz conversion case (source.sample_descs),
// read after the resize fields so that older inputs still decode as before:
// n entries, each its own small size, strides and buffer of exactly its
// bytes, and a transform that mostly gives one output size.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "tests/fuzz/convert_case_base.h"

namespace ferry::fuzz {

inline void decode_sample_descs(DecodeScope& scope) {
  Input& in = scope.in;
  ConvertCase& c = scope.c;
  Rng& rng = scope.rng;
  ferry_source& s = c.source;
  ferry_transform& t = c.transform;
  const int slayout = scope.slayout;
  const std::int64_t channels = scope.channels;
  const bool u8_out = scope.u8_out;
  auto& decode_output = scope.decode_output;
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

}  // namespace ferry::fuzz
