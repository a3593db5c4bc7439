// Tensor references (ferry/tensor.h): a batch's output that outlives the
// batch and its context, on the CPU backend; and the orphan registry that
// frees a destroyed context's held segments (core/memory/orphan_segments.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/memory/orphan_segments.h"
#include "tests/support/fake_runtime.h"
#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry;
using namespace ferry::test;

ferry_context_t cpu_context() {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 2;
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  return ctx;
}

// A packed batch big enough (4 MiB of float output) that freed memory is unmapped.
struct Job {
  std::vector<std::uint8_t> bytes;
  ferry_source source{};
  ferry_transform transform{};
  explicit Job(std::uint32_t seed, std::int64_t n = 4, std::int64_t h = 256, std::int64_t w = 341) {
    bytes = pattern_bytes(static_cast<std::size_t>(n * h * w * 3), seed);
    ferry_source_init(&source, sizeof source);
    source.data = bytes.data(), source.bytes = bytes.size();
    source.n = n, source.h = h, source.w = w, source.c = 3;
    ferry_transform_init(&transform, sizeof transform);
    transform.mean[0] = 0.5f, transform.std[0] = 0.25f;
  }
  std::vector<std::uint8_t> expected(const ferry_tensor_info& info) const {
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = info.data, o.bytes = info.bytes;
    return expected_output(source, transform, o, info.bytes);
  }
};

ferry_batch_t submit(ferry_context_t ctx, const Job& job) {
  ferry_batch_t batch = nullptr;
  EXPECT_EQ(ferry_batch_submit(&batch, ctx, &job.source, &job.transform, nullptr, nullptr), FERRY_OK)
      << ferry_last_error();
  return batch;
}

ferry_tensor_info describe(ferry_tensor_t t) {
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_tensor_describe(&info, t), FERRY_OK) << ferry_last_error();
  return info;
}

void expect_output(const Job& job, ferry_tensor_t t) {
  const ferry_tensor_info info = describe(t);
  const std::vector<std::uint8_t> want = job.expected(info);
  EXPECT_EQ(first_difference(static_cast<const std::uint8_t*>(info.data), want.data(), info.bytes), -1);
}

TEST(TensorReference, OutlivesBatchAndContext) {
  ferry_context_t ctx = cpu_context();
  Job job(3);
  ferry_batch_t batch = submit(ctx, job);
  ferry_tensor_t t = nullptr;
  ASSERT_EQ(ferry_tensor_retain(&t, batch), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  ferry_tensor_info from_batch;
  ferry_tensor_info_init(&from_batch, sizeof from_batch);
  ASSERT_EQ(ferry_batch_describe_output(&from_batch, batch), FERRY_OK);
  EXPECT_EQ(describe(t).data, from_batch.data);
  EXPECT_EQ(describe(t).bytes, from_batch.bytes);
  ASSERT_EQ(ferry_batch_release(batch), FERRY_OK);
  ASSERT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  // The memory is the reference's now: reading it after both are gone is fine
  // (ASan and an unmapped segment both catch the opposite).
  expect_output(job, t);
  EXPECT_EQ(ferry_tensor_release(t), FERRY_OK);
  EXPECT_EQ(ferry_tensor_release(t), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_tensor_release(nullptr), FERRY_OK);
}

TEST(TensorReference, NotOverwrittenByLaterBatches) {
  ferry_context_t ctx = cpu_context();
  Job first(11), second(12);
  ferry_batch_t batch = submit(ctx, first);
  ferry_tensor_t t = nullptr;
  ASSERT_EQ(ferry_tensor_retain(&t, batch), FERRY_OK);
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  ASSERT_EQ(ferry_batch_release(batch), FERRY_OK);
  for (int i = 0; i < 3; ++i) {  // the cache must not hand the held block out again
    ferry_batch_t next = submit(ctx, second);
    ASSERT_EQ(ferry_batch_wait(next), FERRY_OK);
    ASSERT_EQ(ferry_batch_release(next), FERRY_OK);
  }
  expect_output(first, t);
  EXPECT_EQ(ferry_tensor_release(t), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(TensorReference, BlockGoesBackWhenLastOwnerLetsGo) {
  ferry_context_t ctx = cpu_context();
  Job job(5);
  ferry_stats before;
  ferry_stats_init(&before, sizeof before);
  ASSERT_EQ(ferry_stats_get(&before, ctx), FERRY_OK);
  ferry_batch_t batch = submit(ctx, job);
  ferry_tensor_t a = nullptr, b = nullptr;
  ASSERT_EQ(ferry_tensor_retain(&a, batch), FERRY_OK);
  ASSERT_EQ(ferry_tensor_retain(&b, batch), FERRY_OK);
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  const auto in_use = [&] {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
    return s.device_in_use_bytes;
  };
  ASSERT_EQ(ferry_batch_release(batch), FERRY_OK);
  EXPECT_GT(in_use(), before.device_in_use_bytes);
  ASSERT_EQ(ferry_tensor_release(a), FERRY_OK);
  EXPECT_GT(in_use(), before.device_in_use_bytes);
  expect_output(job, b);
  ASSERT_EQ(ferry_tensor_release(b), FERRY_OK);
  // The batch's part goes back once ferry's completion thread has seen it
  // finish, which may be just after wait returned.
  for (int i = 0; i < 2000 && in_use() != before.device_in_use_bytes; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(in_use(), before.device_in_use_bytes);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(TensorReference, CallerOutputIsDescribedNotOwned) {
  ferry_context_t ctx = cpu_context();
  Job job(9, 1, 8, 8);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_transform_describe_output(&info, &job.source, &job.transform), FERRY_OK);
  std::vector<std::uint8_t> mine(info.bytes, kPoison);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = mine.data(), o.bytes = mine.size();
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_batch_submit(&batch, ctx, &job.source, &job.transform, &o, nullptr), FERRY_OK);
  ferry_tensor_t t = nullptr;
  ASSERT_EQ(ferry_tensor_retain(&t, batch), FERRY_OK);
  ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
  EXPECT_EQ(describe(t).data, mine.data());
  ASSERT_EQ(ferry_batch_release(batch), FERRY_OK);
  ASSERT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  EXPECT_EQ(ferry_tensor_release(t), FERRY_OK);
}

TEST(TensorReference, BadArguments) {
  ferry_context_t ctx = cpu_context();
  Job job(1, 1, 4, 4);
  ferry_batch_t batch = submit(ctx, job);
  EXPECT_EQ(ferry_tensor_retain(nullptr, batch), FERRY_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(ferry_last_error(), "out"), nullptr);
  ferry_tensor_t t = nullptr;
  EXPECT_EQ(ferry_tensor_retain(&t, nullptr), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(t, nullptr);
  // A batch handle is not a tensor handle, nor the reverse.
  EXPECT_EQ(ferry_tensor_release(reinterpret_cast<ferry_tensor_t>(batch)), FERRY_ERR_INVALID_HANDLE);
  ASSERT_EQ(ferry_tensor_retain(&t, batch), FERRY_OK);
  EXPECT_EQ(ferry_batch_wait(reinterpret_cast<ferry_batch_t>(t)), FERRY_ERR_INVALID_HANDLE);
  ferry_tensor_info small;
  std::memset(&small, 0, sizeof small);
  EXPECT_EQ(ferry_tensor_describe(&small, t), FERRY_ERR_STRUCT_SIZE);  // struct_size 0
  EXPECT_EQ(ferry_tensor_describe(nullptr, t), FERRY_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(ferry_batch_release(batch), FERRY_OK);
  ferry_tensor_t late = nullptr;
  EXPECT_EQ(ferry_tensor_retain(&late, batch), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_tensor_release(t), FERRY_OK);
  ferry_tensor_info gone;
  ferry_tensor_info_init(&gone, sizeof gone);
  EXPECT_EQ(ferry_tensor_describe(&gone, t), FERRY_ERR_INVALID_HANDLE);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

// References taken and released on several threads while another destroys
// the context: every reference still reads its batch's output.
TEST(TensorReference, ThreadsRaceContextDestroy) {
  for (int round = 0; round < 4; ++round) {
    ferry_context_t ctx = cpu_context();
    std::vector<std::unique_ptr<Job>> jobs;
    std::vector<ferry_batch_t> batches;
    std::vector<ferry_tensor_t> tensors;
    for (int i = 0; i < 6; ++i) {
      jobs.push_back(std::make_unique<Job>(100 + i, 2, 32, 48));
      batches.push_back(submit(ctx, *jobs.back()));
      ferry_tensor_t t = nullptr;
      ASSERT_EQ(ferry_tensor_retain(&t, batches.back()), FERRY_OK);
      ASSERT_EQ(ferry_batch_wait(batches.back()), FERRY_OK);
      tensors.push_back(t);
    }
    std::atomic<int> extra_ok{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i) {
      threads.emplace_back([&, i] {
        for (int k = 0; k < 50; ++k) {
          ferry_tensor_t t = nullptr;
          if (ferry_tensor_retain(&t, batches[i]) == FERRY_OK) {
            ++extra_ok;
            EXPECT_EQ(ferry_tensor_release(t), FERRY_OK);
          }
        }
      });
    }
    threads.emplace_back([&] { EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK); });
    for (auto& th : threads) th.join();
    for (int i = 0; i < 6; ++i) {
      expect_output(*jobs[i], tensors[i]);
      EXPECT_EQ(ferry_tensor_release(tensors[i]), FERRY_OK);
      EXPECT_EQ(ferry_batch_release(batches[i]), FERRY_ERR_INVALID_HANDLE);  // the context took it
    }
  }
}

// A release after wait gives the output back at once, before the completion
// thread (held here by a hook) finishes the batch. A retain racing it either
// fails or holds the output: never a reference to a block that went back
// (which a trim frees, or the next batch overwrites, while it is read).
TEST(TensorReference, RetainRacingAReleaseAfterWaitHoldsTheOutput) {
  ferry_context_t ctx = cpu_context();
  Job job(21, 1, 8, 8);
  std::atomic<bool> flags[2] = {false, false};  // held, let go
  ferry_submit_options hold;
  ferry_submit_options_init(&hold, sizeof hold);
  hold.user_data = flags;
  hold.callback = [](ferry_batch_t, ferry_status, void* user) {
    auto* f = static_cast<std::atomic<bool>*>(user);
    f[0] = true;
    while (!f[1]) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  ferry_batch_t holder = nullptr;
  ASSERT_EQ(ferry_batch_submit(&holder, ctx, &job.source, &job.transform, nullptr, &hold), FERRY_OK);
  for (int i = 0; i < 5000 && !flags[0]; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(flags[0].load()) << "the hook never ran";
  const auto in_use = [&] {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    EXPECT_EQ(ferry_stats_get(&s, ctx), FERRY_OK);
    return s.device_in_use_bytes;
  };
  const std::uint64_t before = in_use();  // the holder's output
  int empty = 0;
  for (int round = 0; round < 3000 && empty == 0; ++round) {
    ferry_batch_t batch = submit(ctx, job);
    ASSERT_EQ(ferry_batch_wait(batch), FERRY_OK);
    std::atomic<int> go{0};
    std::thread releaser([&] {
      go.fetch_add(1);
      while (go.load() < 2) {
      }
      EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
    });
    go.fetch_add(1);
    while (go.load() < 2) {
    }
    ferry_tensor_t t = nullptr;
    const ferry_status st = ferry_tensor_retain(&t, batch);
    releaser.join();
    if (st == FERRY_OK) {
      if (in_use() == before) ++empty;  // the reference holds no memory
      EXPECT_EQ(ferry_tensor_release(t), FERRY_OK);
    } else {
      EXPECT_EQ(st, FERRY_ERR_INVALID_HANDLE);
    }
  }
  EXPECT_EQ(empty, 0) << "a tensor reference whose output went back to the cache";
  flags[1] = true;
  EXPECT_EQ(ferry_batch_release(holder), FERRY_OK);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(OrphanSegments, FreesASegmentWhenItsLastHeldBlockGoes) {
  auto backend = std::make_shared<FakeRuntime>();
  void* segment = backend->device_malloc(1 << 20);
  auto* base = static_cast<std::uint8_t*>(segment);
  core::OrphanSegments orphans(backend);
  orphans.hold(base + 512);
  orphans.hold(base + 4096);
  ASSERT_TRUE(orphans.adopt(reinterpret_cast<std::uintptr_t>(base), 1 << 20));
  EXPECT_EQ(orphans.adopted_bytes(), std::size_t{1} << 20);
  orphans.release(base + 512);
  EXPECT_EQ(backend->device_frees, 0u);
  orphans.release(base + 512);  // not held any more: nothing happens
  EXPECT_EQ(backend->device_frees, 0u);
  orphans.release(base + 4096);
  EXPECT_EQ(backend->device_frees, 1u);
  EXPECT_EQ(backend->bad_frees, 0u);
  EXPECT_EQ(orphans.adopted_bytes(), 0u);
}

TEST(OrphanSegments, LeavesSegmentsWithoutHeldBlocksToTheCache) {
  auto backend = std::make_shared<FakeRuntime>();
  void* a = backend->device_malloc(4096);
  void* b = backend->device_malloc(4096);
  core::OrphanSegments orphans(backend);
  orphans.hold(b);
  orphans.hold(a);
  orphans.release(a);  // released between the stager's hold and the cache's adopt
  EXPECT_FALSE(orphans.adopt(reinterpret_cast<std::uintptr_t>(a), 4096));
  EXPECT_TRUE(orphans.adopt(reinterpret_cast<std::uintptr_t>(b), 4096));
  EXPECT_EQ(orphans.held_blocks(), 1u);
  backend->device_free(a);  // the cache's part
  orphans.release(b);
  EXPECT_EQ(backend->device_frees, 2u);
  EXPECT_EQ(backend->bad_frees, 0u);
}

}  // namespace
