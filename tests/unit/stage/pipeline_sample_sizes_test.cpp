// The staged pipeline with samples of different sizes (source.sample_descs):
// each staged or copied at its own size and pitch, gathered in pieces, one
// copy a chunk from a decoder's arena, and a ring that holds one such chunk.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "tests/support/variable_size_cases.h"
#include "tests/unit/stage/staged_pipeline_fixture.h"

namespace {

using namespace ferry;
using namespace ferry::test;
using core::BatchRoute;

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

}  // namespace
