// Bad input to the staging pipeline's C ABI, on the CPU backend: each case
// its own status and a message naming the argument and the value; the
// context stays usable afterwards.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry::test;

std::string last_error() { return ferry_last_error(); }

class StageErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CPU;
    o.cpu_threads = 2;
    ASSERT_EQ(ferry_context_create(&ctx_, &o), FERRY_OK);
    src_ = make_source(ctx_, SourceKind::kPacked, 4, 8, 8, 5);
  }
  void TearDown() override {
    src_.reset();
    EXPECT_EQ(ferry_context_destroy(ctx_), FERRY_OK);
  }
  // The context still converts a good batch.
  void expect_still_usable() {
    ferry_batch_t b = nullptr;
    ASSERT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, nullptr, nullptr), FERRY_OK) << last_error();
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  }
  ferry_context_t ctx_ = nullptr;
  std::unique_ptr<TestSource> src_;
};

TEST_F(StageErrors, SourceTooSmallForItsStrides) {
  ferry_source s = src_->source;
  s.bytes -= 1;
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, &s, nullptr, nullptr, nullptr), FERRY_ERR_SOURCE_TOO_SMALL);
  EXPECT_NE(last_error().find("source.bytes"), std::string::npos) << last_error();
  EXPECT_EQ(b, nullptr);
  expect_still_usable();
}

// has_handoff_stream is the one switch for a hand-off: a stream without it is refused.
TEST_F(StageErrors, HandoffStreamWithoutTheSwitch) {
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.handoff_stream = reinterpret_cast<ferry_cuda_stream>(std::uintptr_t{0x1000});
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, nullptr, &so), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("options->handoff_stream is 0x1000"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("options->has_handoff_stream is 0"), std::string::npos) << last_error();
  EXPECT_EQ(b, nullptr);
  // With the switch, the same stream is a hand-off (accepted and ignored on the CPU), and so is NULL.
  for (ferry_cuda_stream stream : {so.handoff_stream, static_cast<ferry_cuda_stream>(nullptr)}) {
    so.has_handoff_stream = 1;
    so.handoff_stream = stream;
    ASSERT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, nullptr, &so), FERRY_OK) << last_error();
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  }
  expect_still_usable();
}

TEST_F(StageErrors, NullSamplePointer) {
  auto samples = make_source(ctx_, SourceKind::kSamples, 3, 8, 8, 1);
  samples->sample_pointers[2] = nullptr;
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, &samples->source, nullptr, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("source.samples[2] is NULL"), std::string::npos) << last_error();
  expect_still_usable();
}

TEST_F(StageErrors, DestinationTooSmall) {
  std::vector<std::uint8_t> small(100);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = small.data();
  o.bytes = small.size();
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, &o, nullptr), FERRY_ERR_OUTPUT_TOO_SMALL);
  EXPECT_NE(last_error().find("output.bytes is 100"), std::string::npos) << last_error();
  expect_still_usable();
}

TEST_F(StageErrors, NullDestinationData) {
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.bytes = 1 << 20;
  ferry_batch_t b = nullptr;
  EXPECT_NE(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, &o, nullptr), FERRY_OK);
  EXPECT_NE(last_error().find("data is NULL"), std::string::npos) << last_error();
}

TEST_F(StageErrors, BadSubmitOptions) {
  ferry_submit_options opts;
  ferry_submit_options_init(&opts, sizeof opts);
  opts.source_policy = static_cast<ferry_source_policy>(7);
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, nullptr, &opts), FERRY_ERR_UNSUPPORTED);
  EXPECT_NE(last_error().find("options->source_policy is 7"), std::string::npos) << last_error();
  ferry_submit_options_init(&opts, sizeof opts);
  opts.priority = -1;
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, nullptr, &opts), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("options->priority is -1"), std::string::npos) << last_error();
  ferry_submit_options_init(&opts, sizeof opts);
  opts.struct_size = 3;
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, nullptr, &opts), FERRY_ERR_STRUCT_SIZE);
  expect_still_usable();
}

TEST_F(StageErrors, NullArguments) {
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_batch_submit(nullptr, ctx_, &src_->source, nullptr, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("out is NULL"), std::string::npos) << last_error();
  EXPECT_EQ(ferry_batch_submit(&b, ctx_, nullptr, nullptr, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("source is NULL"), std::string::npos) << last_error();
  EXPECT_EQ(ferry_batch_submit(&b, nullptr, &src_->source, nullptr, nullptr, nullptr), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_batch_wait(nullptr), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_batch_query(nullptr), FERRY_ERR_INVALID_HANDLE);
  int reusable = 0;
  EXPECT_EQ(ferry_batch_query_source(&reusable, nullptr), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_batch_release(nullptr), FERRY_OK);
  // A context handle is not a batch handle.
  EXPECT_EQ(ferry_batch_wait(reinterpret_cast<ferry_batch_t>(ctx_)), FERRY_ERR_INVALID_HANDLE);
}

TEST_F(StageErrors, ReleaseTwiceAndUseAfterRelease) {
  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_batch_submit(&b, ctx_, &src_->source, nullptr, nullptr, nullptr), FERRY_OK);
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);  // released while maybe in flight: fine
  EXPECT_EQ(ferry_batch_release(b), FERRY_ERR_INVALID_HANDLE);
  EXPECT_NE(last_error().find("batch"), std::string::npos) << last_error();
  EXPECT_EQ(ferry_batch_wait(b), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_batch_query(b), FERRY_ERR_INVALID_HANDLE);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_batch_describe_output(&info, b), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_batch_handoff(b, nullptr), FERRY_ERR_INVALID_HANDLE);
  expect_still_usable();
}

TEST(StageErrorsContext, SubmitToADestroyedContext) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK);
  auto src = make_source(ctx, SourceKind::kPacked, 2, 4, 4, 1);
  ferry_batch_t kept = nullptr;
  ASSERT_EQ(ferry_batch_submit(&kept, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
  src->ctx = nullptr;
  ASSERT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  ferry_batch_t b = nullptr;
  EXPECT_EQ(ferry_batch_submit(&b, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_ERR_INVALID_HANDLE);
  // Its batches went with it.
  EXPECT_EQ(ferry_batch_wait(kept), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_batch_release(kept), FERRY_ERR_INVALID_HANDLE);
}

TEST(StageErrorsContext, NonblockingSubmitAtTheLimitIsBusy) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 1;
  o.max_batches_in_flight = 1;
  o.submit_nonblocking = 1;
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK);
  // Large enough to take the staging thread (not the short path) and a while to convert.
  auto src = make_source(ctx, SourceKind::kPacked, 64, 256, 256, 2);
  ferry_batch_t first = nullptr;
  ASSERT_EQ(ferry_batch_submit(&first, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
  int busy = 0, ok = 0;
  std::vector<ferry_batch_t> more;
  for (int i = 0; i < 50; ++i) {
    ferry_batch_t b = nullptr;
    const ferry_status st = ferry_batch_submit(&b, ctx, &src->source, nullptr, nullptr, nullptr);
    if (st == FERRY_ERR_BUSY) {
      ++busy;
      EXPECT_NE(last_error().find("max_batches_in_flight"), std::string::npos) << last_error();
    } else {
      ASSERT_EQ(st, FERRY_OK) << last_error();
      ++ok;
      more.push_back(b);
    }
  }
  EXPECT_GT(busy, 0);
  EXPECT_EQ(ferry_batch_wait(first), FERRY_OK);
  EXPECT_EQ(ferry_batch_release(first), FERRY_OK);
  for (ferry_batch_t b : more) {
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  }
  ferry_batch_t after = nullptr;
  EXPECT_EQ(ferry_batch_submit(&after, ctx, &src->source, nullptr, nullptr, nullptr), FERRY_OK);
  EXPECT_EQ(ferry_batch_wait(after), FERRY_OK);
  EXPECT_EQ(ferry_batch_release(after), FERRY_OK);
  src.reset();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

}  // namespace
