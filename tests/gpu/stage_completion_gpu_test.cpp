// The completion thread on a CUDA device: batches nobody waits for (released
// at once, no callback, no hand-off) are counted complete only once their GPU
// work is done, and give their places in flight back, both while every place
// is taken (the thread synchronizes on the batch's end) and while places are
// free (it polls the end quietly: Stager::await_device_work).
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.h"
#include "tests/support/test_context.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry::test;
using Clock = std::chrono::steady_clock;

std::uint64_t batches_completed(ferry_context_t ctx) {
  ferry_stats s;
  ferry_stats_init(&s, sizeof s);
  EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
  return s.batches_completed;
}

// max_in_flight 2: the gate is full at nearly every submit (the completion
// thread synchronizes); 64: it never is (the thread polls). A completion
// thread that let batches go before their work ran fails the comparison of
// the last batch, read first (9.6 MB a batch: submitting 16 takes far less
// than their 3 ms of copies, so its output still holds the poison when the
// count is reached); one that never gave places back fails the deadline.
TEST(CompletionGpu, BatchesNobodyWaitsForCompleteOnlyAfterTheirWork) {
  FERRY_REQUIRE_GPU();
  constexpr int kBatches = 16;
  for (int max_in_flight : {2, 64}) {
    SCOPED_TRACE(testing::Message() << "max_batches_in_flight " << max_in_flight);
    // Nonblocking: a full gate answers Busy; the test retries, bounded by its deadline.
    ferry_context_t ctx = gpu_context(0, max_in_flight, 1);
    auto src = make_source(ctx, SourceKind::kFerryPinned, 64, 224, 224, 7);  // copied straight from it
    auto tr = make_transform(TransformKind::kUint8Bgr, 64, 224, 224);
    std::size_t bytes = 0;
    ferry_output dest = padded_output(src->source, tr->t, &bytes);
    void* allocated = nullptr;
    ASSERT_EQ(cudaMalloc(&allocated, bytes * kBatches), cudaSuccess);
    auto* device = static_cast<std::uint8_t*>(allocated);
    ASSERT_EQ(cudaMemset(device, kPoison, bytes * kBatches), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // ferry's streams do not wait for the legacy stream
    // Everything the checks need is made first: nothing slow between the count and the first read.
    const std::vector<std::uint8_t> expected = expected_output(src->source, tr->t, dest, bytes);
    std::vector<std::uint8_t> got(bytes * kBatches);
    cudaStream_t reader = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking), cudaSuccess);
    const std::uint64_t before = batches_completed(ctx);
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    for (int i = 0; i < kBatches; ++i) {
      dest.data = device + static_cast<std::size_t>(i) * bytes;
      ferry_batch_t b = nullptr;
      ferry_status status;
      while ((status = ferry_batch_submit(&b, ctx, &src->source, &tr->t, &dest, nullptr)) == FERRY_ERR_BUSY) {
        ASSERT_LT(Clock::now(), deadline) << "no place in flight came back for batch " << i;
        std::this_thread::yield();
      }
      ASSERT_EQ(status, FERRY_OK) << ferry_last_error();
      ASSERT_EQ(ferry_batch_release(b), FERRY_OK);
    }
    while (batches_completed(ctx) - before < kBatches) {
      ASSERT_LT(Clock::now(), deadline) << "the completion thread did not complete every batch";
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    // Counted complete: read on the test's own stream, which waits for
    // nothing of ferry's; the last batch first, then all of them.
    auto read = [&](std::size_t first, std::size_t count) {
      ASSERT_EQ(cudaMemcpyAsync(got.data() + first, device + first, count, cudaMemcpyDeviceToHost, reader),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(reader), cudaSuccess);
    };
    read(bytes * (kBatches - 1), bytes);
    EXPECT_EQ(first_difference(got.data() + bytes * (kBatches - 1), expected.data(), bytes), -1)
        << "the last batch, read as soon as every batch was counted complete";
    read(0, got.size());
    for (int i = 0; i < kBatches; ++i)
      EXPECT_EQ(first_difference(got.data() + static_cast<std::size_t>(i) * bytes, expected.data(), bytes), -1)
          << "batch " << i;
    EXPECT_EQ(cudaStreamDestroy(reader), cudaSuccess);
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    src.reset();  // its pinned memory goes back to the context first
    EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  }
}

}  // namespace

#else

TEST(CompletionGpu, NeedsACudaBuild) { GTEST_SKIP() << "this build of ferry has no CUDA backend"; }

#endif
