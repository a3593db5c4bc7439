// The staged pipeline itself (routes, chunks, staging ring, direct copies,
// registration, source reusable, failure in the middle of a batch, destruction
// in flight), run on every machine: core::Stager with the host CopyEngine,
// which copies with memcpy where the CUDA engine queues DMA.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/context_options.h"
#include "core/convert/converter.h"
#include "core/device/host_runtime.h"
#include "core/memory/memory_system.h"
#include "core/stage/stager.h"
#include "tests/support/stage_test_util.h"
#include "tests/support/variable_size_cases.h"

namespace {

using namespace ferry;
using namespace ferry::test;
using core::BatchRoute;

// The host runtime, with device allocations that fail on demand, counting its copies.
class FailingBackend final : public core::HostRuntime {
 public:
  std::atomic<int> device_allocs_left{1 << 30};
  std::atomic<int> copies{0};
  void* device_malloc(std::size_t bytes) override {
    return device_allocs_left.fetch_sub(1) > 0 ? HostRuntime::device_malloc(bytes) : nullptr;
  }
  void copy(void* dst, const void* src, std::size_t bytes, core::StreamHandle stream) override {
    copies.fetch_add(1);
    HostRuntime::copy(dst, src, bytes, stream);
  }
};

class StagedPipeline : public ::testing::Test {
 protected:
  void build(std::uint64_t max_staging_bytes = 256 << 10, int max_in_flight = 3) {
    options_ = core::ContextOptions{};
    options_.device_kind = core::DeviceKind::Cpu;
    options_.staging_threads = 3;
    options_.max_staging_bytes = std::max<std::uint64_t>(max_staging_bytes, 1 << 20);
    options_.max_batches_in_flight = max_in_flight;
    auto backend = std::make_shared<FailingBackend>();
    backend_ = backend.get();
    memory_ = std::make_unique<core::MemorySystem>(backend, options_);
    converter_ = std::make_unique<core::Converter>(*memory_, 2);
    core::Stager::Parts parts;
    parts.kind = core::DeviceKind::Cpu;
    parts.options = options_;
    parts.memory = memory_.get();
    parts.converter = converter_.get();
    parts.counters = &counters_;
    parts.convert_on_host = false;  // the staged pipeline, as on a GPU
    stager_ = std::make_unique<core::Stager>(std::move(parts));
  }
  void TearDown() override {
    stager_.reset();
    converter_.reset();
    memory_.reset();
  }

  std::shared_ptr<core::Batch> submit(const ferry_source& s, const ferry_transform& t, const ferry_output* o,
                                      ferry_source_policy policy = FERRY_SOURCE_AUTO, std::uint64_t chunk = 0) {
    core::SubmitOptions opts;
    opts.source_policy = static_cast<core::SourcePolicy>(policy);
    opts.chunk_bytes = chunk;
    core::OutputDesc out;
    if (o != nullptr) out = api::to_core(*o);
    auto batch = stager_->prepare(api::to_core(s), api::to_core(t), o != nullptr ? &out : nullptr, opts);
    stager_->launch(batch);
    return batch;
  }

  void expect_matches(core::Batch& b, const ferry_source& s, const ferry_transform& t) {
    ferry_output packed;
    ferry_output_init(&packed, sizeof packed);
    const auto expected = expected_output(s, t, packed, b.submitted.info.bytes);
    EXPECT_EQ(first_difference(static_cast<const std::uint8_t*>(b.submitted.info.data), expected.data(), b.submitted.info.bytes), -1);
  }

  core::ContextOptions options_;
  FailingBackend* backend_ = nullptr;
  std::unique_ptr<core::MemorySystem> memory_;
  std::unique_ptr<core::Converter> converter_;
  core::PipelineCounters counters_;
  std::unique_ptr<core::Stager> stager_;
};

TEST_F(StagedPipeline, EverySourceKindTakesItsRouteAndMatches) {
  build();
  struct Case {
    SourceKind kind;
    BatchRoute route;
  };
  const Case cases[] = {{SourceKind::kPacked, BatchRoute::kStaged},      {SourceKind::kPitched, BatchRoute::kStaged},
                        {SourceKind::kSamples, BatchRoute::kStaged},     {SourceKind::kStridedChannels, BatchRoute::kStaged},
                        {SourceKind::kRegistered, BatchRoute::kDirect}};
  for (const Case& c : cases) {
    for (TransformKind tk : {TransformKind::kDefault, TransformKind::kHalfCropMirror, TransformKind::kBf16PerSample}) {
      const std::int64_t n = 21, h = 19, w = 33;
      auto src = make_source(nullptr, c.kind, n, h, w, 11);
      auto tr = make_transform(tk, n, h, w);
      auto b = submit(src->source, tr->t, nullptr, src->policy, 3 * h * w * 3);  // 7 chunks
      EXPECT_EQ(b->submitted.route, c.route) << name_of(c.kind);
      EXPECT_EQ(b->chunk_count(), 7u);
      stager_->wait(*b);
      EXPECT_TRUE(stager_->source_reusable(*b));
      expect_matches(*b, src->source, tr->t);
      stager_->release(*b);
    }
  }
}

// A uint8 copy in the source's own layout (a resident dataset's upload):
// each chunk's copy lands in its place in the output, no kernel, from every
// source kind and into a caller's destination, in both layouts.
TEST_F(StagedPipeline, ACopyInTheSourcesLayoutGoesStraightToTheOutput) {
  build();
  for (SourceKind kind : {SourceKind::kPacked, SourceKind::kPitched, SourceKind::kSamples, SourceKind::kRegistered})
    for (ferry_layout layout : {FERRY_LAYOUT_NHWC, FERRY_LAYOUT_NCHW}) {
      if (layout == FERRY_LAYOUT_NCHW && kind != SourceKind::kPacked) continue;  // the others' strides are NHWC's
      const std::int64_t n = 13, h = 7, w = 9;
      auto src = make_source(nullptr, kind, n, h, w, 21);
      src->source.layout = layout;
      ferry_transform t;
      ferry_transform_init(&t, sizeof t);
      t.out_dtype = FERRY_DTYPE_UINT8;
      t.out_layout = layout;
      std::vector<std::uint8_t> out(static_cast<std::size_t>(n * h * w * 3), 0xA5);
      ferry_output o;
      ferry_output_init(&o, sizeof o);
      o.data = out.data(), o.bytes = out.size();
      auto b = submit(src->source, t, &o, src->policy, 2 * h * w * 3);  // 7 chunks
      EXPECT_TRUE(b->submitted.copies_bytes) << name_of(kind);
      stager_->wait(*b);
      ferry_output packed;
      ferry_output_init(&packed, sizeof packed);
      const auto expected = expected_output(src->source, t, packed, out.size());
      EXPECT_EQ(first_difference(out.data(), expected.data(), out.size()), -1) << name_of(kind) << " " << layout;
      stager_->release(*b);
    }
  // A transform that changes a byte is a conversion, not a copy.
  auto src = make_source(nullptr, SourceKind::kPacked, 3, 4, 4, 22);
  auto tr = make_transform(TransformKind::kUint8Bgr, 3, 4, 4);
  auto b = submit(src->source, tr->t, nullptr);
  EXPECT_FALSE(b->submitted.copies_bytes);
  stager_->wait(*b);
  expect_matches(*b, src->source, tr->t);
  stager_->release(*b);
}

TEST_F(StagedPipeline, FerryPinnedAndPitchedRegisteredSourcesAreCopiedDirectly) {
  build();
  const std::int64_t n = 9, h = 16, w = 16;
  const std::size_t bytes = static_cast<std::size_t>(n * h * w * 3);
  void* pinned = memory_->pinned_pool().allocate(bytes);
  const auto pattern = pattern_bytes(bytes, 5);
  std::memcpy(pinned, pattern.data(), bytes);
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = pinned, s.bytes = bytes, s.n = n, s.h = h, s.w = w, s.c = 3;
  auto tr = make_transform(TransformKind::kUint8Bgr, n, h, w);
  auto b = submit(s, tr->t, nullptr, FERRY_SOURCE_AUTO, 4 * h * w * 3);
  EXPECT_EQ(b->submitted.route, BatchRoute::kDirect);
  stager_->wait(*b);
  expect_matches(*b, s, tr->t);
  stager_->release(*b);
  // Staging on request, even from pinned memory.
  auto staged = submit(s, tr->t, nullptr, FERRY_SOURCE_STAGE);
  EXPECT_EQ(staged->submitted.route, BatchRoute::kStaged);
  stager_->wait(*staged);
  expect_matches(*staged, s, tr->t);
  stager_->release(*staged);
  memory_->pinned_pool().free(pinned);

  // A pitched source, registered: 2-D copies, one per chunk. Separate samples
  // that share pages cannot each be registered (CUDA pins whole pages): those
  // the registry declines are staged, with the same result.
  for (SourceKind kind : {SourceKind::kPitched, SourceKind::kSamples}) {
    auto src = make_source(nullptr, kind, n, h, w, 8);
    auto t2 = make_transform(TransformKind::kDefault, n, h, w);
    auto r = submit(src->source, t2->t, nullptr, FERRY_SOURCE_REGISTER, 2 * h * w * 3);
    if (kind == SourceKind::kPitched) EXPECT_EQ(r->submitted.route, BatchRoute::kDirect);
    stager_->wait(*r);
    expect_matches(*r, src->source, t2->t);
    stager_->release(*r);
  }
}

// Samples of different sizes (source.sample_descs): each staged or copied at
// its own size and pitch, packed one after another, chunks cut by bytes.
TEST_F(StagedPipeline, SamplesOfDifferentSizesAreStagedAtTheirOwnSizes) {
  build();
  std::mt19937 rng(41);
  for (int round = 0; round < 24; ++round) {
    const bool resized = round % 2 == 1;
    ResizedVariableCase r = random_resized_case(rng, 60, 24);
    VariableCase k = resized ? std::move(r.k) : random_case(rng, round % 4 == 2);
    const ferry_source src = variable_source(k.descs, k.c, k.layout);
    std::uint64_t total = 0;
    for (const ferry_sample_desc& d : k.descs) total += static_cast<std::uint64_t>(d.h * d.w * k.c);
    // From the caller's memory (staged), then from ferry's pinned memory (copied directly).
    auto b = submit(src, k.transform, nullptr, FERRY_SOURCE_AUTO, std::max<std::uint64_t>(1, total / 3));
    EXPECT_EQ(b->submitted.route, BatchRoute::kStaged);
    EXPECT_GE(b->chunk_count(), std::min<std::size_t>(k.descs.size(), 2));
    stager_->wait(*b);
    expect_matches(*b, src, k.transform);
    stager_->release(*b);
    std::vector<ferry_sample_desc> pinned = k.descs;
    for (ferry_sample_desc& d : pinned) {
      void* p = memory_->pinned_pool().allocate(d.bytes);
      std::memcpy(p, d.data, d.bytes);
      d.data = p;
    }
    const ferry_source direct_src = variable_source(pinned, k.c, k.layout);
    auto direct = submit(direct_src, k.transform, nullptr, FERRY_SOURCE_AUTO, std::max<std::uint64_t>(1, total / 2));
    // An NCHW sample with padded rows is not one 2-D copy: it is packed on the host.
    const bool rows = k.layout == FERRY_LAYOUT_NHWC || k.c == 1 ||
                      std::all_of(k.descs.begin(), k.descs.end(), [](const ferry_sample_desc& d) { return d.stride_h == d.w; });
    EXPECT_EQ(direct->submitted.route, rows ? BatchRoute::kDirect : BatchRoute::kStaged);
    stager_->wait(*direct);
    expect_matches(*direct, src, k.transform);
    stager_->release(*direct);
    for (ferry_sample_desc& d : pinned) memory_->pinned_pool().free(const_cast<void*>(d.data));
    if (HasFailure()) {
      ADD_FAILURE() << "round " << round << (resized ? " (resized)" : " (windows)");
      return;
    }
  }
}

// Three-channel NHWC images of the given sizes (rows padded now and then),
// and a nearest resize to size x size as uint8: every source pixel given out
// unchanged, so a byte gathered wrong shows.
VariableCase images_of(std::mt19937& rng, const std::vector<std::pair<int, int>>& sizes) {
  VariableCase k;
  k.c = 3;
  for (const auto& [h, w] : sizes) {
    k.samples.push_back(random_sample(rng, h, w, k.c, FERRY_LAYOUT_NHWC));
    k.descs.push_back(k.samples.back().desc());
  }
  return k;
}
ferry_transform nearest_uint8(int size) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.resize_w = t.resize_h = size;
  t.interpolation = FERRY_INTERP_NEAREST;
  t.out_dtype = FERRY_DTYPE_UINT8;
  return t;
}

// Images larger than a gather piece (256 KiB) are gathered in pieces by
// several staging threads. Nearest upscales to 420 x 420 read every source
// pixel and give it out unchanged as uint8, so a byte gathered wrong shows.
TEST_F(StagedPipeline, LargeSamplesOfDifferentSizesAreGatheredInPieces) {
  build();
  std::mt19937 rng(43);
  const VariableCase k = images_of(rng, {{420, 380}, {300, 420}, {17, 9}, {401, 411}});
  const ferry_transform t = nearest_uint8(420);
  const ferry_source src = variable_source(k.descs, k.c, k.layout);
  auto b = submit(src, t, nullptr, FERRY_SOURCE_AUTO, std::uint64_t{1} << 20);
  EXPECT_EQ(b->submitted.route, BatchRoute::kStaged);
  stager_->wait(*b);
  expect_matches(*b, src, t);
  stager_->release(*b);
}

// Packed images one after another in pinned memory (a decoder's arena): one
// copy a chunk, not one an image.
TEST_F(StagedPipeline, SamplesOfDifferentSizesInOneArenaAreOneCopyAChunk) {
  build();
  std::mt19937 rng(8);
  const int n = 9;
  std::vector<ferry_sample_desc> descs(n);
  std::size_t total = 0;
  for (ferry_sample_desc& d : descs) {
    d.h = std::uniform_int_distribution<int>(3, 40)(rng), d.w = std::uniform_int_distribution<int>(3, 40)(rng);
    d.bytes = static_cast<std::size_t>(d.h * d.w * 3);
    total += d.bytes;
  }
  auto* arena = static_cast<std::uint8_t*>(memory_->pinned_pool().allocate(total));
  for (std::size_t i = 0; i < total; ++i) arena[i] = static_cast<std::uint8_t>(rng());
  std::size_t offset = 0;
  for (ferry_sample_desc& d : descs) d.data = arena + offset, offset += d.bytes;
  const ferry_source src = variable_source(descs, 3, FERRY_LAYOUT_NHWC);
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.resize_w = 16, t.resize_h = 12;
  backend_->copies = 0;
  auto b = submit(src, t, nullptr, FERRY_SOURCE_AUTO, total / 2);
  EXPECT_EQ(b->submitted.route, BatchRoute::kDirect);
  stager_->wait(*b);
  EXPECT_EQ(backend_->copies.load(), static_cast<int>(b->chunk_count()));
  expect_matches(*b, src, t);
  stager_->release(*b);
  // Image 4 a byte further on and a pixel narrower: gaps before and after it
  // split the run in three copies.
  descs[4].data = static_cast<const std::uint8_t*>(descs[4].data) + 1;
  descs[4].w -= 1;
  descs[4].bytes = static_cast<std::size_t>(descs[4].h * descs[4].w * 3);
  const ferry_source gapped = variable_source(descs, 3, FERRY_LAYOUT_NHWC);
  backend_->copies = 0;
  auto g = submit(gapped, t, nullptr, FERRY_SOURCE_AUTO, total * 2);
  stager_->wait(*g);
  EXPECT_EQ(g->chunk_count(), 1u);
  EXPECT_EQ(backend_->copies.load(), 3);
  expect_matches(*g, gapped, t);
  stager_->release(*g);
  memory_->pinned_pool().free(arena);
}

TEST_F(StagedPipeline, CallerDestinationWithStridesKeepsItsPadding) {
  build();
  const std::int64_t n = 6, h = 12, w = 10;
  auto src = make_source(nullptr, SourceKind::kSamples, n, h, w, 2);
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  std::size_t bytes = 0;
  ferry_output o = padded_output(src->source, tr->t, &bytes);
  std::vector<std::uint8_t> dest(bytes, kPoison);
  o.data = dest.data();
  auto b = submit(src->source, tr->t, &o, FERRY_SOURCE_AUTO, h * w * 3);
  stager_->wait(*b);
  const auto expected = expected_output(src->source, tr->t, o, bytes);
  EXPECT_EQ(first_difference(dest.data(), expected.data(), bytes), -1);
  stager_->release(*b);
}

TEST_F(StagedPipeline, TheRingStaysWithinItsBoundOverManyBatches) {
  build(1 << 20, 4);  // a 1 MiB ring: chunks of at most 512 KiB, waits at the bound
  const std::int64_t n = 40, h = 64, w = 64;  // 480 KB per batch
  auto src = make_source(nullptr, SourceKind::kPacked, n, h, w, 3);
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  std::vector<std::shared_ptr<core::Batch>> batches;
  for (int i = 0; i < 12; ++i) batches.push_back(submit(src->source, tr->t, nullptr, FERRY_SOURCE_AUTO, 100 << 10));
  for (auto& b : batches) {
    stager_->wait(*b);
    expect_matches(*b, src->source, tr->t);
    stager_->release(*b);
  }
  EXPECT_EQ(counters_.batches_completed.load(), 12u);
  EXPECT_GT(counters_.staging_ns.load(), 0u);
  // Steady state: the pool was asked once per ring slot, not once per chunk.
  const auto pinned = memory_->pinned_pool().stats();
  EXPECT_LE(pinned.in_use_bytes, options_.max_staging_bytes);
  EXPECT_LE(pinned.misses + pinned.hits, 12u);
}

// The next chunk's gather starts while this chunk's slot is held, only if
// the ring has room for both without waiting. Chunks are at most half the
// ring, except a sample larger than that, which is a chunk of its own: six
// such images through a 1 MiB ring go one at a time, and the staging thread
// never waits on itself.
TEST_F(StagedPipeline, ARingOfOneChunkStagesItsChunksOneAtATime) {
  build(1 << 20, 2);
  std::mt19937 rng(44);
  const VariableCase k = images_of(rng, {{420, 420}, {421, 420}, {422, 420}, {423, 420}, {424, 420}, {425, 420}});
  const ferry_transform t = nearest_uint8(425);  // the images 529 KB and more: a chunk each
  const ferry_source src = variable_source(k.descs, k.c, k.layout);
  for (int round = 0; round < 3; ++round) {
    auto b = submit(src, t, nullptr, FERRY_SOURCE_AUTO, std::uint64_t{1} << 20);
    EXPECT_EQ(b->submitted.route, BatchRoute::kStaged);
    EXPECT_EQ(b->chunk_count(), 6u);
    stager_->wait(*b);
    expect_matches(*b, src, t);
    stager_->release(*b);
  }
  EXPECT_LE(memory_->pinned_pool().stats().in_use_bytes, options_.max_staging_bytes);
}

TEST_F(StagedPipeline, SourceIsReusableOnceStagedAndOverwritingItThenIsSafe) {
  build(4 << 20);
  const std::int64_t n = 64, h = 96, w = 96;  // 1.7 MB: the staging thread, many chunks
  auto src = make_source(nullptr, SourceKind::kPacked, n, h, w, 4);
  const auto original = src->storage;
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  auto b = submit(src->source, tr->t, nullptr, FERRY_SOURCE_AUTO, 200 << 10);
  stager_->wait_source(*b);
  EXPECT_TRUE(stager_->source_reusable(*b));
  std::memset(src->storage.data(), 0, src->storage.size());  // the caller reuses its buffer at once
  stager_->wait(*b);
  ferry_source orig = src->source;
  orig.data = original.data();
  expect_matches(*b, orig, tr->t);
  stager_->release(*b);
}

TEST_F(StagedPipeline, OutOfMemoryInTheMiddleFailsTheBatchAndTheStagerGoesOn) {
  build(32 << 20);
  // 3 MiB samples, 12 MiB chunks: every stream buffer is a device segment of its own.
  const std::int64_t n = 8, h = 1024, w = 1024;
  auto src = make_source(nullptr, SourceKind::kPacked, n, h, w, 1);
  auto tr = make_transform(TransformKind::kUint8Bgr, n, h, w);
  // Output, then the first chunk's stream buffer; the second chunk's buffer fails.
  backend_->device_allocs_left = 2;
  auto b = submit(src->source, tr->t, nullptr, FERRY_SOURCE_AUTO, 4 * h * w * 3);
  ASSERT_EQ(b->chunk_count(), 2u);
  try {
    stager_->wait(*b);
    FAIL() << "the batch should have failed";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::OutOfMemory) << e.what();
  }
  EXPECT_THROW(stager_->query(*b), Error);
  stager_->release(*b);
  EXPECT_EQ(counters_.batches_failed.load(), 1u);
  backend_->device_allocs_left = 1 << 30;
  auto again = submit(src->source, tr->t, nullptr, FERRY_SOURCE_AUTO, 4 * h * w * 3);
  stager_->wait(*again);
  expect_matches(*again, src->source, tr->t);
  stager_->release(*again);
}

TEST_F(StagedPipeline, OutOfMemoryForTheOutputFailsTheSubmitAndFreesItsPlace) {
  build(1 << 20, 1);
  auto src = make_source(nullptr, SourceKind::kPacked, 2, 8, 8, 1);
  auto tr = make_transform(TransformKind::kDefault, 2, 8, 8);
  backend_->device_allocs_left = 0;
  try {
    submit(src->source, tr->t, nullptr);
    FAIL() << "submit should have failed";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::OutOfMemory) << e.what();
  }
  backend_->device_allocs_left = 1 << 30;
  auto b = submit(src->source, tr->t, nullptr);  // the only place in flight was given back
  stager_->wait(*b);
  stager_->release(*b);
}

TEST_F(StagedPipeline, DestroyedWithBatchesInFlightWaitsForThem) {
  build(1 << 20, 4);
  const std::int64_t n = 32, h = 64, w = 64;
  auto src = make_source(nullptr, SourceKind::kSamples, n, h, w, 12);
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  std::vector<std::shared_ptr<core::Batch>> batches;
  for (int i = 0; i < 4; ++i) batches.push_back(submit(src->source, tr->t, nullptr, FERRY_SOURCE_AUTO, 64 << 10));
  stager_->release(*batches[0]);
  stager_.reset();  // waits for all four, then detaches them
  for (auto& b : batches) {
    EXPECT_EQ(b->stage_locked(), core::BatchStage::kFinished);
    std::unique_lock<std::mutex> lock(b->mutex);
    EXPECT_EQ(b->hold_locked(), core::BatchHold::State::kDetached);
    EXPECT_THROW(b->expect_held_locked(), Error);
  }
  EXPECT_EQ(counters_.batches_completed.load(), 4u);
}

}  // namespace
