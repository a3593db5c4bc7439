// staging_copy (core/stage/staging_copy.h): the staging threads' copy into
// pinned memory, with non-temporal stores on x86-64. Byte for byte what
// memcpy writes, for lengths on either side of each path's edges and
// either end at offsets off 16 bytes, and nothing outside the destination; from several threads at once into
// disjoint ranges, as the staging pool runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "core/stage/staging_copy.h"
#include "core/store_fence.h"

namespace {

using ferry::core::staging_copy;
using ferry::core::store_fence;

constexpr std::uint8_t kCanary = 0xA5;

TEST(StagingCopy, WritesWhatMemcpyWritesAtEveryLengthAndAlignment) {
  std::mt19937 rng(11);
  const std::size_t lengths[] = {0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 300, 1000, 4133, 65536 + 9, 300001};
  for (std::size_t n : lengths) {
    for (std::size_t src_off = 0; src_off < 18; src_off += 5) {
      for (std::size_t dst_off = 0; dst_off < 34; dst_off += 3) {
        std::vector<std::uint8_t> src(n + src_off);
        for (auto& b : src) b = static_cast<std::uint8_t>(rng());
        std::vector<std::uint8_t> dst(dst_off + n + 64, kCanary);
        staging_copy(dst.data() + dst_off, src.data() + src_off, n);
        store_fence();
        for (std::size_t i = 0; i < dst_off; ++i) ASSERT_EQ(dst[i], kCanary) << n << " " << dst_off << " before " << i;
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(dst[dst_off + i], src[src_off + i]) << "length " << n << ", offsets " << src_off << "/" << dst_off << ", byte " << i;
        for (std::size_t i = dst_off + n; i < dst.size(); ++i) ASSERT_EQ(dst[i], kCanary) << n << " " << dst_off << " after " << i;
      }
    }
  }
}

// Eight threads each copy pieces of one large buffer (the staging pool's
// way: 256 KiB pieces, a piece's end on any byte), fence, and join; the
// joining thread then sees every byte.
TEST(StagingCopy, ThreadsCopyingDisjointPiecesAtOnceFillTheWholeDestination) {
  constexpr std::size_t kBytes = (std::size_t{8} << 20) + 12345, kPiece = (std::size_t{256} << 10) - 7;
  std::vector<std::uint8_t> src(kBytes), dst(kBytes, kCanary);
  std::mt19937 rng(5);
  for (auto& b : src) b = static_cast<std::uint8_t>(rng());
  const std::size_t pieces = (kBytes + kPiece - 1) / kPiece;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t p = static_cast<std::size_t>(t); p < pieces; p += 8) {
        const std::size_t from = p * kPiece, to = std::min(kBytes, from + kPiece);
        staging_copy(dst.data() + from, src.data() + from, to - from);
      }
      store_fence();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(dst, src);
}

}  // namespace
