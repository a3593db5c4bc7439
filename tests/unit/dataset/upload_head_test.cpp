// A resident dataset's head (ResidentDataset::head_samples): the first samples
// sent ahead into a block of the device cache while the storage is allocated,
// then moved into place. On a GPU ferry picks the head itself (sets of 16 MB
// or more); here DatasetOptions::head_bytes forces one on the CPU backend, so
// every split of head and parts is checked byte for byte on every machine.
// tests/gpu/dataset_gpu_compare_test.cpp checks the GPU's.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/context.h"
#include "core/dataset/resident_dataset.h"

namespace {

using namespace ferry::core;

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

ContextOptions cpu_options() {
  ContextOptions o;
  o.device_kind = DeviceKind::Cpu;
  o.staging_threads = 2;
  return o;
}

constexpr std::int64_t kN = 10, kH = 5, kW = 7, kC = 3, kSample = kH * kW * kC;

// kN samples of kH x kW x kC in one buffer.
SourceDesc one_buffer(const std::vector<std::uint8_t>& bytes) {
  SourceDesc src;
  src.data = bytes.data();
  src.bytes = bytes.size();
  src.n = kN, src.h = kH, src.w = kW, src.c = kC;
  return src;
}

TEST(DatasetHead, EveryHeadAndPartSizeLandsEverySampleInPlace) {
  Context context(cpu_options());
  const auto bytes = random_bytes(static_cast<std::size_t>(kN * kSample), 11);
  const SourceDesc src = one_buffer(bytes);
  const std::int64_t heads[] = {0, 1, kSample - 1, kSample, 3 * kSample + 5, 9 * kSample, 50 * kSample};
  const std::uint64_t parts[] = {1, 2 * kSample, 0};
  for (std::int64_t head : heads) {
    for (std::uint64_t part : parts) {
      DatasetOptions o;
      o.head_bytes = head;
      o.part_bytes = part;
      const AllocatorStats before = context.memory().device_cache().stats();
      ResidentDataset ds(context, src, o);
      ASSERT_EQ(ds.bytes(), bytes.size());
      EXPECT_EQ(std::memcmp(ds.data(), bytes.data(), bytes.size()), 0) << "head " << head << ", part " << part;
      const AllocatorStats after = context.memory().device_cache().stats();
      const bool has_head = head >= kSample;  // at least one whole sample
      EXPECT_EQ(after.hits + after.misses - before.hits - before.misses, has_head ? 1u : 0u)
          << "head " << head << ": a block of the cache for the head, or none";
      EXPECT_EQ(after.in_use_bytes, before.in_use_bytes) << "the head's block went back";
    }
  }
}

TEST(DatasetHead, AShardsHeadHoldsItsOwnSamples) {
  Context context(cpu_options());
  const auto bytes = random_bytes(static_cast<std::size_t>(kN * kSample), 12);
  const SourceDesc src = one_buffer(bytes);
  DatasetOptions o;
  o.placement = DatasetPlacement::Shard;
  o.world_size = 3, o.rank = 1;
  o.head_bytes = 2 * kSample;
  o.part_bytes = 1;
  ResidentDataset ds(context, src, o);
  ASSERT_EQ(ds.count(), 4);  // samples 1, 4, 7 and (wrapping) 0
  for (std::int64_t k = 0; k < ds.count(); ++k) {
    const std::int64_t g = ds.source_index(k);
    EXPECT_EQ(std::memcmp(static_cast<const std::uint8_t*>(ds.data()) + k * kSample, bytes.data() + g * kSample,
                          static_cast<std::size_t>(kSample)),
              0)
        << "held " << k << " (source " << g << ")";
  }
}

TEST(DatasetHead, SamplesOfDifferentSizesSplitAtTheHeadByBytes) {
  Context context(cpu_options());
  const std::int64_t sizes[][2] = {{4, 6}, {4, 6}, {9, 3}, {2, 2}, {7, 5}, {7, 5}, {3, 8}};
  std::vector<std::vector<std::uint8_t>> images;
  std::vector<SampleDesc> descs;
  std::vector<std::uint8_t> expected;
  unsigned seed = 20;
  for (const auto& hw : sizes) {
    images.push_back(random_bytes(static_cast<std::size_t>(hw[0] * hw[1] * kC), seed++));
    SampleDesc d;
    d.data = images.back().data();
    d.bytes = images.back().size();
    d.h = hw[0], d.w = hw[1];
    descs.push_back(d);
    expected.insert(expected.end(), images.back().begin(), images.back().end());
  }
  SourceDesc src;
  src.n = static_cast<std::int64_t>(descs.size());
  src.c = kC;
  src.sample_descs = descs.data();
  for (std::int64_t head : {std::int64_t{0}, std::int64_t{48}, std::int64_t{49}, std::int64_t{200}}) {
    DatasetOptions o;
    o.head_bytes = head;
    ResidentDataset ds(context, src, o);
    ASSERT_EQ(ds.bytes(), expected.size());
    EXPECT_EQ(std::memcmp(ds.data(), expected.data(), expected.size()), 0) << "head " << head;
  }
}

}  // namespace
