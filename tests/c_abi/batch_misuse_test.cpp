// Misuses of the pipeline that used to kill the process or grow without a
// bound (issue 18): ferry_context_destroy from a completion callback, and
// batches that are never released.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"

namespace {

ferry_context_t cpu_context(std::uint64_t max_unreleased = 0) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 2;
  if (max_unreleased != 0) o.max_unreleased_batches = max_unreleased;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  return ctx;
}

struct Tiny {
  std::uint8_t pixels[2 * 4 * 4 * 3] = {};
  ferry_source source{};
  Tiny() {
    ferry_source_init(&source, sizeof source);
    source.data = pixels, source.bytes = sizeof pixels, source.n = 2, source.h = 4, source.w = 4, source.c = 3;
  }
};

struct DestroyFromCallback {
  ferry_context_t ctx = nullptr;
  std::atomic<int> status{-1};
  std::string message;
};

TEST(StageMisuse, ContextDestroyFromACallbackIsRefused) {
  DestroyFromCallback state;
  state.ctx = cpu_context();
  Tiny tiny;
  ferry_submit_options o;
  ferry_submit_options_init(&o, sizeof o);
  o.user_data = &state;
  o.callback = [](ferry_batch_t, ferry_status, void* user) {
    auto* s = static_cast<DestroyFromCallback*>(user);
    const ferry_status st = ferry_context_destroy(s->ctx);
    s->message = ferry_last_error();
    s->status = st;
  };
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_batch_submit(&batch, state.ctx, &tiny.source, nullptr, nullptr, &o), FERRY_OK);
  for (int i = 0; i < 4000 && state.status.load() == -1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(state.status.load(), FERRY_ERR_INVALID_ARGUMENT) << state.message;
  EXPECT_NE(state.message.find("completion callback"), std::string::npos) << state.message;
  // The context is untouched: still usable, and destroyed normally afterwards.
  EXPECT_EQ(ferry_batch_wait(batch), FERRY_OK);
  EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(state.ctx), FERRY_OK);
}

TEST(StageMisuse, UnreleasedBatchesAreBounded) {
  ferry_context_t ctx = cpu_context(/*max_unreleased=*/8);
  Tiny tiny;
  std::vector<ferry_batch_t> held;
  for (int i = 0; i < 8; ++i) {
    ferry_batch_t b = nullptr;
    ASSERT_EQ(ferry_batch_submit(&b, ctx, &tiny.source, nullptr, nullptr, nullptr), FERRY_OK) << ferry_last_error();
    ASSERT_EQ(ferry_batch_wait(b), FERRY_OK);
    held.push_back(b);
  }
  ferry_stats s;
  ferry_stats_init(&s, sizeof s);
  ASSERT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
  EXPECT_EQ(s.batches_unreleased, 8u);
  ferry_batch_t refused = nullptr;
  EXPECT_EQ(ferry_batch_submit(&refused, ctx, &tiny.source, nullptr, nullptr, nullptr), FERRY_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(ferry_last_error()).find("max_unreleased_batches"), std::string::npos) << ferry_last_error();
  EXPECT_EQ(refused, nullptr);
  // Releasing one makes room for one; a failed submit held nothing.
  ASSERT_EQ(ferry_batch_release(held.back()), FERRY_OK);
  held.pop_back();
  ferry_batch_t again = nullptr;
  ASSERT_EQ(ferry_batch_submit(&again, ctx, &tiny.source, nullptr, nullptr, nullptr), FERRY_OK) << ferry_last_error();
  held.push_back(again);
  for (ferry_batch_t b : held) EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  ASSERT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
  EXPECT_EQ(s.batches_unreleased, 0u);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(StageMisuse, InvalidSubmitsDoNotHoldASlot) {
  ferry_context_t ctx = cpu_context(/*max_unreleased=*/1);
  Tiny tiny;
  ferry_source bad = tiny.source;
  bad.c = 0;
  for (int i = 0; i < 5; ++i) {
    ferry_batch_t b = nullptr;
    EXPECT_NE(ferry_batch_submit(&b, ctx, &bad, nullptr, nullptr, nullptr), FERRY_OK);
  }
  ferry_batch_t ok = nullptr;
  ASSERT_EQ(ferry_batch_submit(&ok, ctx, &tiny.source, nullptr, nullptr, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_batch_release(ok), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(StageMisuse, UnreleasedBoundIsValidated) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  EXPECT_EQ(o.max_unreleased_batches, 1024u);
  o.max_unreleased_batches = 0;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ferry_last_error()).find("max_unreleased_batches is 0"), std::string::npos);
}

}  // namespace
