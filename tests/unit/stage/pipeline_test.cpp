// The staged pipeline itself (routes, chunks, staging ring, direct copies,
// registration, source reusable, failure in the middle of a batch, destruction
// in flight), run on every machine: core::Stager with the host CopyEngine,
// which copies with memcpy where the CUDA engine queues DMA
// (staged_pipeline_fixture.h). Samples of different sizes:
// pipeline_sample_sizes_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "tests/unit/stage/staged_pipeline_fixture.h"

namespace {

using namespace ferry;
using namespace ferry::test;
using core::BatchRoute;

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
