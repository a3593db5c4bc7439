#include "bench/staging_ceiling.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

#include "bench/gpu_timing.h"
#include "core/stage/staging_copy.h"
#include "core/store_fence.h"

namespace ferry::bench {
namespace {

constexpr std::size_t kPieceBytes = std::size_t{256} << 10;

struct Piece {
  const std::uint8_t* from;
  std::size_t to, bytes, chunk;  // its offset in the pinned buffer, its size, its chunk
};

}  // namespace

double staging_ceiling_seconds(const SourceRanges& source, int threads, std::size_t chunk_bytes, int passes,
                               cudaStream_t stream) {
  std::vector<Piece> pieces;
  std::size_t total = 0;
  for (const auto& [data, bytes] : source)
    for (std::size_t at = 0; at < bytes; at += kPieceBytes) {
      const std::size_t n = std::min(kPieceBytes, bytes - at);
      pieces.push_back({static_cast<const std::uint8_t*>(data) + at, total + at, n, (total + at) / chunk_bytes});
    }
  for (const auto& range : source) total += range.second;
  const std::size_t chunks = (total + chunk_bytes - 1) / chunk_bytes;
  std::uint8_t* pinned = nullptr;
  void* device = nullptr;
  check_cuda(cudaHostAlloc(reinterpret_cast<void**>(&pinned), total, cudaHostAllocDefault), "cudaHostAlloc");
  check_cuda(cudaMalloc(&device, total), "cudaMalloc");
  std::vector<double> seconds;
  for (int pass = -1; pass < passes; ++pass) {  // pass -1 warms up: pages touched, threads started
    std::vector<std::atomic<std::size_t>> left(chunks);
    for (const Piece& p : pieces) left[p.chunk]++;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> go{false};
    std::mutex queue;
    auto work = [&] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();  // started before the clock
      for (std::size_t i; (i = next.fetch_add(1)) < pieces.size();) {
        const Piece& p = pieces[i];
        core::staging_copy(pinned + p.to, p.from, p.bytes);
        core::store_fence();
        if (left[p.chunk].fetch_sub(1) != 1) continue;
        const std::size_t from = p.chunk * chunk_bytes, bytes = std::min(chunk_bytes, total - from);
        std::lock_guard<std::mutex> lock(queue);
        check_cuda(cudaMemcpyAsync(static_cast<std::uint8_t*>(device) + from, pinned + from, bytes,
                                   cudaMemcpyHostToDevice, stream),
                   "cudaMemcpyAsync");
      }
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back(work);
    const auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    work();
    for (std::thread& t : helpers) t.join();
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (pass >= 0) seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  cudaFreeHost(pinned);
  cudaFree(device);
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace ferry::bench
