// Fuzz target: resident datasets (ferry/dataset.h) on the CPU backend. The
// source (one buffer, sample pointers or samples of different sizes; sizes,
// channels and layout valid mostly, wild now and then), the options
// (placement, rank, world_size, part size), the gather's indices (out of
// range now and then; host indices, or indices in the context's memory,
// which are clamped) and its transform (uint8 copy,
// normalized float, resized, augmented) come from the input. Checked: create
// succeeds exactly when the inputs are valid and then holds what the
// placement rule says; an epoch is a share of a permutation; a gather's
// status follows its indices; an accepted gather writes exactly what
// ferry_transform_apply writes for the same samples from host memory, and
// nothing outside its output. Never a crash, nothing leaked.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "ferry/ferry.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ferry::fuzz;

namespace {

template <typename E>
void set_enum(E& field, int v) {
  std::memcpy(&field, &v, sizeof v);
}

// The int an enum field holds (loading a value outside the enum is undefined).
template <typename E>
int enum_int(const E& field) {
  int v;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

// Samples as the caller holds them, and the source that describes them.
struct HostSamples {
  std::int64_t n = 0, c = 3;
  std::vector<std::int64_t> h, w;
  std::vector<std::unique_ptr<Guarded>> buffers;
  std::vector<const void*> pointers;
  std::vector<ferry_sample_desc> descs;
  ferry_source source{};
  bool variable = false;

  std::int64_t bytes_of(std::int64_t i) const { return h[static_cast<std::size_t>(i)] * w[static_cast<std::size_t>(i)] * c; }
  const std::uint8_t* sample(std::int64_t i) const {
    return variable || !pointers.empty() ? static_cast<const std::uint8_t*>(variable ? descs[static_cast<std::size_t>(i)].data
                                                                                     : pointers[static_cast<std::size_t>(i)])
                                         : buffers[0]->data() + i * bytes_of(0);
  }
};

void decode_samples(Input& in, Rng& rng, HostSamples& s) {
  s.n = 1 + in.pick(12);
  s.c = in.rare() ? in.range(0, 6) : (in.flag() ? 3 : 1 + in.pick(4));
  const int form = in.pick(3);  // 0 one buffer, 1 pointers, 2 sizes of their own
  s.variable = form == 2;
  for (std::int64_t i = 0; i < s.n; ++i) {
    s.h.push_back(i > 0 && !s.variable ? s.h[0] : 1 + in.pick(20));
    s.w.push_back(i > 0 && !s.variable ? s.w[0] : 1 + in.pick(20));
  }
  const std::int64_t c = std::max<std::int64_t>(s.c, 1);
  ferry_source_init(&s.source, sizeof s.source);
  s.source.n = in.rare() ? in.range(-1, 0) : s.n;  // more than the samples there are would read past the arrays
  s.source.c = s.c;
  if (in.rare()) set_enum(s.source.layout, static_cast<int>(in.range(0, 3)));
  if (form == 0) {
    s.buffers.push_back(std::make_unique<Guarded>(static_cast<std::size_t>(s.n * s.h[0] * s.w[0] * c)));
    rng.fill(s.buffers[0]->data(), s.buffers[0]->size());
    s.source.data = s.buffers[0]->data();
    s.source.bytes = s.buffers[0]->size();
    s.source.h = s.h[0], s.source.w = s.w[0];
    return;
  }
  for (std::int64_t i = 0; i < s.n; ++i) {
    s.buffers.push_back(std::make_unique<Guarded>(static_cast<std::size_t>(s.h[i] * s.w[i] * c)));
    rng.fill(s.buffers.back()->data(), s.buffers.back()->size());
    if (s.variable) {
      ferry_sample_desc d{};
      d.data = s.buffers.back()->data(), d.bytes = s.buffers.back()->size(), d.h = s.h[i], d.w = s.w[i];
      s.descs.push_back(d);
    } else {
      s.pointers.push_back(s.buffers.back()->data());
    }
  }
  if (s.variable) {
    s.source.sample_descs = s.descs.data();
  } else {
    s.source.samples = s.pointers.data();
    s.source.sample_bytes = static_cast<std::size_t>(s.h[0] * s.w[0] * c);
    s.source.h = s.h[0], s.source.w = s.w[0];
  }
}

ferry_transform decode_transform(Input& in, ferry_augment& augment, bool variable) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  switch (in.pick(4)) {
    case 0:
      t.out_dtype = FERRY_DTYPE_UINT8;
      t.out_layout = FERRY_LAYOUT_NHWC;
      break;
    case 1:
      t.mean[0] = 0.5f, t.std[0] = 0.25f;
      t.out_dtype = in.flag() ? FERRY_DTYPE_FLOAT16 : FERRY_DTYPE_FLOAT32;
      break;
    default:
      break;
  }
  if (variable || in.flag()) t.resize_w = 1 + in.pick(16), t.resize_h = 1 + in.pick(16);
  if (in.flag()) {
    ferry_augment_init(&augment, sizeof augment);
    augment.seed = in.u32(), augment.step = in.u8();
    set_enum(augment.crop, in.pick(4));
    augment.padding = in.pick(5);
    augment.flip_x_probability = 0.5f;
    if (in.flag()) augment.brightness[0] = 0.5f, augment.brightness[1] = 1.5f;
    t.augment = &augment;
  }
  return t;
}

bool source_valid(const HostSamples& s) {
  return s.source.n == s.n && s.n > 0 && (s.c == 1 || s.c == 3 || s.c == 4) &&
         (enum_int(s.source.layout) == FERRY_LAYOUT_NHWC || enum_int(s.source.layout) == FERRY_LAYOUT_NCHW);
}

// The reference: the same samples from host memory, in the gather's order.
ferry_status reference(const HostSamples& s, const std::vector<std::int64_t>& sources, const ferry_transform& t,
                       Guarded& out) {
  std::vector<const void*> pointers;
  std::vector<ferry_sample_desc> descs;
  ferry_source r = s.source;
  r.n = static_cast<std::int64_t>(sources.size());
  if (s.variable) {
    for (std::int64_t g : sources) descs.push_back(s.descs[static_cast<std::size_t>(g)]);
    r.sample_descs = descs.data();
  } else {
    for (std::int64_t g : sources) pointers.push_back(s.sample(g));
    r.data = nullptr, r.bytes = 0;
    r.samples = pointers.data();
    r.sample_bytes = static_cast<std::size_t>(s.bytes_of(0));
  }
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  const ferry_status described = ferry_transform_describe_output(&info, &r, &t);
  if (described != FERRY_OK) return described;
  out.reset(info.bytes, 0xEE);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = out.data(), o.bytes = out.size();
  return ferry_transform_apply(shared_context(), &r, &t, &o, nullptr);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  Rng rng(in.u32());
  HostSamples s;
  decode_samples(in, rng, s);
  ferry_dataset_options o;
  ferry_dataset_options_init(&o, sizeof o);
  bool shard = in.flag();
  o.placement = shard ? FERRY_DATASET_SHARD : FERRY_DATASET_REPLICA;
  o.world_size = in.rare() ? static_cast<int>(in.range(-2, 3)) : 1 + in.pick(4);
  o.rank = in.rare() ? static_cast<int>(in.range(-2, 6)) : (o.world_size > 0 ? in.pick(o.world_size) : 0);
  o.part_bytes = in.flag() ? static_cast<std::uint64_t>(in.pick(200)) : 0;
  if (in.rare()) {
    const int placement = static_cast<int>(in.range(-1, 3));
    set_enum(o.placement, placement);
    shard = placement == FERRY_DATASET_SHARD;
  }

  ferry_dataset_t ds = nullptr;
  const ferry_status created = ferry_dataset_create(&ds, shared_context(), &s.source, &o);
  const bool options_valid = o.world_size >= 1 && o.rank >= 0 && o.rank < o.world_size &&
                             (enum_int(o.placement) == FERRY_DATASET_REPLICA || enum_int(o.placement) == FERRY_DATASET_SHARD);
  FERRY_FUZZ_CHECK((created == FERRY_OK) == (options_valid && source_valid(s)), "create gave %d (%s)", created,
                   ferry_last_error());
  if (created != FERRY_OK) {
    FERRY_FUZZ_CHECK(ds == nullptr, "a refused create wrote a handle");
    return 0;
  }
  ferry_dataset_info info;
  ferry_dataset_info_init(&info, sizeof info);
  FERRY_FUZZ_CHECK(ferry_dataset_get_info(&info, ds) == FERRY_OK, "%s", ferry_last_error());
  const std::int64_t places = (s.n + o.world_size - 1) / o.world_size;
  FERRY_FUZZ_CHECK(info.count == (shard ? places : s.n), "count %lld", static_cast<long long>(info.count));
  std::vector<std::int64_t> held_source(static_cast<std::size_t>(info.count));
  std::uint64_t bytes = 0;
  for (std::int64_t i = 0; i < info.count; ++i) {
    std::int64_t g = -1;
    FERRY_FUZZ_CHECK(ferry_dataset_source_index(&g, ds, i) == FERRY_OK, "%s", ferry_last_error());
    FERRY_FUZZ_CHECK(g == (shard ? (o.rank + i * o.world_size) % s.n : i), "source index %lld of %lld",
                     static_cast<long long>(g), static_cast<long long>(i));
    held_source[static_cast<std::size_t>(i)] = g;
    bytes += static_cast<std::uint64_t>(s.bytes_of(g));
  }
  FERRY_FUZZ_CHECK(info.bytes == bytes, "bytes %llu, expected %llu", static_cast<unsigned long long>(info.bytes),
                   static_cast<unsigned long long>(bytes));

  // One epoch: a share of a permutation, each index a held sample.
  std::vector<std::int64_t> order(static_cast<std::size_t>(info.epoch_size));
  FERRY_FUZZ_CHECK(ferry_dataset_epoch(order.data(), info.epoch_size, ds, in.u32(), in.u8(), in.flag()) == FERRY_OK,
                   "%s", ferry_last_error());
  for (std::int64_t k : order) FERRY_FUZZ_CHECK(k >= 0 && k < info.count, "epoch index %lld", static_cast<long long>(k));
  if (shard || o.world_size == 1)
    FERRY_FUZZ_CHECK(std::set<std::int64_t>(order.begin(), order.end()).size() == order.size(),
                     "an epoch of a shard or of one rank repeats an index");

  // A gather.
  std::vector<std::int64_t> indices(static_cast<std::size_t>(in.pick(9)));
  bool in_range = true;
  for (std::int64_t& k : indices) {
    k = in.rare() ? in.wild_int() : in.range(0, info.count - 1);
    in_range = in_range && k >= 0 && k < info.count;
  }
  ferry_augment augment;
  const ferry_transform t = decode_transform(in, augment, s.variable);
  // By indices in the context's memory now and then (host memory here): clamped, never refused for range.
  const bool in_memory = in.flag();
  if (in_memory) {
    for (std::int64_t& k : indices) k = std::clamp<std::int64_t>(k, 0, info.count - 1);
    in_range = true;
  }
  ferry_batch_t batch = nullptr;
  const ferry_status gathered =
      in_memory ? ferry_dataset_gather_device(&batch, ds, indices.data(), static_cast<std::int64_t>(indices.size()),
                                              &t, nullptr, nullptr)
                : ferry_dataset_gather(&batch, ds, indices.data(), static_cast<std::int64_t>(indices.size()), &t,
                                       nullptr, nullptr);
  if (in_memory && s.variable) {
    FERRY_FUZZ_CHECK(gathered == FERRY_ERR_UNSUPPORTED || (indices.empty() && gathered == FERRY_ERR_INVALID_ARGUMENT),
                     "a gather by indices in memory of samples of different sizes gave %d (%s)", gathered,
                     ferry_last_error());
  } else if (indices.empty() || !in_range) {
    FERRY_FUZZ_CHECK(gathered == (indices.empty() ? FERRY_ERR_INVALID_ARGUMENT : FERRY_ERR_OUT_OF_RANGE),
                     "a bad index list gave %d (%s)", gathered, ferry_last_error());
  } else {
    std::vector<std::int64_t> sources;
    for (std::int64_t k : indices) sources.push_back(held_source[static_cast<std::size_t>(k)]);
    Guarded expected(0);
    const ferry_status applied = reference(s, sources, t, expected);
    FERRY_FUZZ_CHECK(gathered == applied, "gather gave %d, apply %d (%s)", gathered, applied, ferry_last_error());
    if (gathered == FERRY_OK) {
      FERRY_FUZZ_CHECK(ferry_batch_wait(batch) == FERRY_OK, "%s", ferry_last_error());
      ferry_tensor_info out;
      ferry_tensor_info_init(&out, sizeof out);
      FERRY_FUZZ_CHECK(ferry_batch_describe_output(&out, batch) == FERRY_OK, "%s", ferry_last_error());
      FERRY_FUZZ_CHECK(out.bytes == expected.size(), "output of %zu bytes, expected %zu", out.bytes, expected.size());
      const std::size_t at = first_difference(static_cast<const std::uint8_t*>(out.data), expected.data(), out.bytes);
      FERRY_FUZZ_CHECK(at == out.bytes, "gathered byte %zu differs from the host conversion", at);
      FERRY_FUZZ_CHECK(expected.check_canaries() == 0, "the reference wrote outside its output");
    }
  }
  if (gathered != FERRY_OK) FERRY_FUZZ_CHECK(batch == nullptr, "a refused gather wrote a handle");
  ferry_batch_release(batch);
  FERRY_FUZZ_CHECK(ferry_dataset_destroy(ds) == FERRY_OK, "%s", ferry_last_error());
  for (const auto& b : s.buffers) FERRY_FUZZ_CHECK(b->check_canaries() == 0, "ferry wrote into the source");
  return 0;
}
