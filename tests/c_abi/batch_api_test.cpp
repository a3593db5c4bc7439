// The staging pipeline end to end through the C ABI on the CPU backend:
// every source kind x destination kind x a few transforms, compared byte for
// byte with the scalar reference on poisoned outputs; the batch handle's
// operations; the callback.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry::test;

ferry_context_t cpu_context(int max_in_flight = 4, int nonblocking = 0) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 2;
  o.max_batches_in_flight = max_in_flight;
  o.submit_nonblocking = nonblocking;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  return ctx;
}

using MatrixParam = std::tuple<SourceKind, DestKind, TransformKind>;

class StageCpuMatrix : public ::testing::TestWithParam<MatrixParam> {};

TEST_P(StageCpuMatrix, MatchesReference) {
  const auto [source_kind, dest_kind, transform_kind] = GetParam();
  ferry_context_t ctx = cpu_context();
  const std::int64_t n = 5, h = 17, w = 23;
  auto src = make_source(ctx, source_kind, n, h, w, 7);
  auto tr = make_transform(transform_kind, n, h, w);
  ferry_submit_options opts;
  ferry_submit_options_init(&opts, sizeof opts);
  opts.source_policy = src->policy;
  opts.chunk_bytes = 2 * h * w * 3;  // several chunks even for this small batch

  std::size_t bytes = 0;
  ferry_output dest = padded_output(src->source, tr->t, &bytes);
  std::vector<std::uint8_t> caller(bytes, kPoison);
  dest.data = caller.data();

  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_batch_submit(&batch, ctx, &src->source, &tr->t, dest_kind == DestKind::kCaller ? &dest : nullptr,
                               &opts),
            FERRY_OK)
      << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK) << ferry_last_error();
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_batch_describe_output(&info, batch), FERRY_OK);
  EXPECT_EQ(info.device_kind, FERRY_DEVICE_CPU);
  EXPECT_EQ(info.dtype, tr->t.out_dtype);
  EXPECT_EQ(info.shape[0], n);
  if (dest_kind == DestKind::kCaller) {
    EXPECT_EQ(info.data, caller.data());
    const auto expected = expected_output(src->source, tr->t, dest, bytes);
    EXPECT_EQ(first_difference(caller.data(), expected.data(), bytes), -1);
  } else {
    ferry_output packed;
    ferry_output_init(&packed, sizeof packed);
    const auto expected = expected_output(src->source, tr->t, packed, info.bytes);
    EXPECT_EQ(first_difference(static_cast<const std::uint8_t*>(info.data), expected.data(), info.bytes), -1);
  }
  int reusable = 0;
  EXPECT_EQ(ferry_batch_query_source(&reusable, batch), FERRY_OK);
  EXPECT_EQ(reusable, 1);
  EXPECT_EQ(ferry_batch_query(batch), FERRY_OK);
  EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
  src.reset();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

std::string matrix_name(const ::testing::TestParamInfo<MatrixParam>& p) {
  static const char* dest[] = {"ferry_output", "caller_output"};
  static const char* tr[] = {"f32", "u8bgr", "f16crop", "bf16sample"};
  return std::string(name_of(std::get<0>(p.param))) + "_" + dest[static_cast<int>(std::get<1>(p.param))] + "_" +
         tr[static_cast<int>(std::get<2>(p.param))];
}

INSTANTIATE_TEST_SUITE_P(AllKinds, StageCpuMatrix,
                         ::testing::Combine(::testing::Values(SourceKind::kPacked, SourceKind::kPitched,
                                                              SourceKind::kSamples, SourceKind::kFerryPinned,
                                                              SourceKind::kRegistered, SourceKind::kStridedChannels),
                                            ::testing::Values(DestKind::kFerry, DestKind::kCaller),
                                            ::testing::Values(TransformKind::kDefault, TransformKind::kUint8Bgr,
                                                              TransformKind::kHalfCropMirror,
                                                              TransformKind::kBf16PerSample)),
                         matrix_name);

TEST(StageCpu, LargeBatchRunsOnTheStagingThreadAndMatches) {
  ferry_context_t ctx = cpu_context();
  const std::int64_t n = 40, h = 64, w = 64;  // 480 KB: past the short path
  auto src = make_source(ctx, SourceKind::kPacked, n, h, w, 3);
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_batch_submit(&batch, ctx, &src->source, &tr->t, nullptr, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_batch_describe_output(&info, batch), FERRY_OK);
  ferry_output packed;
  ferry_output_init(&packed, sizeof packed);
  const auto expected = expected_output(src->source, tr->t, packed, info.bytes);
  EXPECT_EQ(first_difference(static_cast<const std::uint8_t*>(info.data), expected.data(), info.bytes), -1);
  EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
  ferry_stats stats;
  ferry_stats_init(&stats, sizeof stats);
  ASSERT_EQ(ferry_stats_get(&stats, ctx), FERRY_OK);
  EXPECT_EQ(stats.batches_submitted, 1u);
  EXPECT_EQ(stats.batches_completed, 1u);
  EXPECT_EQ(stats.input_bytes, static_cast<std::uint64_t>(n * h * w * 3));
  EXPECT_EQ(stats.output_bytes, static_cast<std::uint64_t>(n * h * w * 3 * 4));
  EXPECT_GT(stats.convert_ns, 0u);
  EXPECT_GE(stats.timed_chunks, 1u) << "the CPU backend times every chunk";
  EXPECT_GT(stats.busy_ns, 0u);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

struct CallbackLog {
  std::atomic<int> calls{0};
  std::atomic<int> last_status{-1};
  std::atomic<ferry_batch_t> last_batch{nullptr};
  std::atomic<int> reusable_then{-1};
};

void on_done(ferry_batch_t batch, ferry_status status, void* user) {
  auto* log = static_cast<CallbackLog*>(user);
  int reusable = -1;
  ferry_batch_query_source(&reusable, batch);  // calling ferry from the callback is allowed
  log->reusable_then = reusable;
  log->last_status = status;
  log->last_batch = batch;
  log->calls.fetch_add(1);
}

TEST(StageCpu, CallbackRunsOnceWithTheHandleAndStatus) {
  ferry_context_t ctx = cpu_context();
  auto src = make_source(ctx, SourceKind::kPacked, 3, 8, 8, 1);
  CallbackLog log;
  ferry_submit_options opts;
  ferry_submit_options_init(&opts, sizeof opts);
  opts.callback = on_done;
  opts.user_data = &log;
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_batch_submit(&batch, ctx, &src->source, nullptr, nullptr, &opts), FERRY_OK);
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  for (int i = 0; i < 2000 && log.calls.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(log.calls.load(), 1);
  EXPECT_EQ(log.last_status.load(), FERRY_OK);
  EXPECT_EQ(log.last_batch.load(), batch);
  EXPECT_EQ(log.reusable_then.load(), 1);
  EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  EXPECT_EQ(log.calls.load(), 1);
}

// The completion thread runs callbacks in order: one that blocks holds the
// thread. A batch waited for and released meanwhile still gives its output
// back at once, so a loop of submit, wait and release reuses one block.
TEST(StageCpu, ReleaseAfterWaitGivesTheOutputBackWithoutTheCompletionThread) {
  ferry_context_t ctx = cpu_context();
  auto src = make_source(ctx, SourceKind::kPacked, 3, 8, 8, 1);
  std::atomic<bool> let_go{false};
  std::atomic<int> blocked{0};
  struct Gate {
    std::atomic<bool>* let_go;
    std::atomic<int>* blocked;
  } gate{&let_go, &blocked};
  ferry_submit_options blocking;
  ferry_submit_options_init(&blocking, sizeof blocking);
  blocking.user_data = &gate;
  blocking.callback = [](ferry_batch_t, ferry_status, void* user) {
    auto* g = static_cast<Gate*>(user);
    g->blocked->store(1);
    while (!g->let_go->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  ferry_batch_t first = nullptr;
  ASSERT_EQ(ferry_batch_submit(&first, ctx, &src->source, nullptr, nullptr, &blocking), FERRY_OK);
  for (int i = 0; i < 5000 && blocked.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(blocked.load(), 1) << "the first batch's callback never ran";
  auto in_use = [&] {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
    return s.device_in_use_bytes;
  };
  const std::uint64_t before = in_use();  // the first batch's output
  for (int i = 0; i < 3; ++i) {
    ferry_batch_t b = nullptr;
    ASSERT_EQ(ferry_batch_submit(&b, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
    EXPECT_GT(in_use(), before);
    ASSERT_EQ(ferry_batch_wait(b), FERRY_OK);
    ASSERT_EQ(ferry_batch_release(b), FERRY_OK);
    EXPECT_EQ(in_use(), before) << "batch " << i << "'s output waits for the completion thread";
  }
  let_go.store(true);
  EXPECT_EQ(ferry_batch_release(first), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(StageCpu, StreamWaitOnTheCpuWaitsOnTheHost) {
  ferry_context_t ctx = cpu_context();
  auto src = make_source(ctx, SourceKind::kPacked, 50, 32, 32, 9);
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_batch_submit(&batch, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
  EXPECT_EQ(ferry_batch_handoff(batch, nullptr), FERRY_OK);
  EXPECT_EQ(ferry_batch_query(batch), FERRY_OK);
  EXPECT_EQ(ferry_batch_wait_source(batch), FERRY_OK);
  EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(StageCpu, SubmitOptionsInit) {
  ferry_submit_options o;
  std::memset(&o, 0xAB, sizeof o);
  ASSERT_EQ(ferry_submit_options_init(&o, sizeof o), FERRY_OK);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.handoff_stream, nullptr);
  EXPECT_EQ(o.has_handoff_stream, 0);
  EXPECT_EQ(o.priority, 0);
  EXPECT_EQ(o.source_policy, FERRY_SOURCE_AUTO);
  EXPECT_EQ(o.chunk_bytes, 0u);
  EXPECT_EQ(o.callback, nullptr);
  EXPECT_EQ(ferry_submit_options_init(nullptr, sizeof o), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ferry_submit_options_init(&o, 0), FERRY_ERR_STRUCT_SIZE);
}

}  // namespace
