// Resize (transform.resize_w/h) and samples of different sizes
// (source.sample_descs) run on the CPU backend only in this version: on a
// CUDA context ferry_transform_apply and ferry_batch_submit say
// FERRY_ERR_UNSUPPORTED, naming the field, before any work is queued (no
// batch counted, no output allocated, the caller's output untouched).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace {

struct ResizeOnCuda {
  ferry_context_t ctx = nullptr;
  std::vector<std::uint8_t> pixels = std::vector<std::uint8_t>(8 * 6 * 3, 77);
  ferry_source source{};
  ferry_transform transform{};

  ResizeOnCuda() {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CUDA;
    EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
    ferry_source_init(&source, sizeof source);
    source.data = pixels.data();
    source.bytes = pixels.size();
    source.n = 1, source.h = 6, source.w = 8, source.c = 3;
    ferry_transform_init(&transform, sizeof transform);
    transform.resize_w = 4, transform.resize_h = 3;
  }
  ~ResizeOnCuda() { ferry_context_destroy(ctx); }
};

}  // namespace

TEST(ResizeGpu, TransformApplyIsUnsupported) {
  FERRY_REQUIRE_GPU();
  ResizeOnCuda r;
  void* out = nullptr;
  ASSERT_EQ(ferry_memory_alloc_device(&out, r.ctx, 4 * 3 * 3 * 4, nullptr), FERRY_OK) << ferry_last_error();
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = out;
  o.bytes = 4 * 3 * 3 * 4;
  EXPECT_EQ(ferry_transform_apply(r.ctx, &r.source, &r.transform, &o, nullptr), FERRY_ERR_UNSUPPORTED);
  const std::string message = ferry_last_error();
  EXPECT_NE(message.find("transform.resize_w"), std::string::npos) << message;
  EXPECT_NE(message.find("CPU backend only"), std::string::npos) << message;
  EXPECT_EQ(ferry_memory_free_device(r.ctx, out, nullptr), FERRY_OK);
}

TEST(ResizeGpu, BatchSubmitIsUnsupportedBeforeAnythingIsQueued) {
  FERRY_REQUIRE_GPU();
  ResizeOnCuda r;
  ferry_stats before, after;
  ferry_stats_init(&before, sizeof before);
  ferry_stats_init(&after, sizeof after);
  ASSERT_EQ(ferry_stats_get(&before, r.ctx), FERRY_OK) << ferry_last_error();
  for (int pass = 0; pass < 2; ++pass) {
    ferry_batch_t batch = nullptr;
    EXPECT_EQ(ferry_batch_submit(&batch, r.ctx, &r.source, &r.transform, nullptr, nullptr), FERRY_ERR_UNSUPPORTED);
    EXPECT_EQ(batch, nullptr);
    const std::string message = ferry_last_error();
    EXPECT_NE(message.find("transform.resize_w"), std::string::npos) << message;
  }
  ASSERT_EQ(ferry_stats_get(&after, r.ctx), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(after.batches_submitted, before.batches_submitted);
  EXPECT_EQ(after.batches_unreleased, before.batches_unreleased);
  EXPECT_EQ(after.device_in_use_bytes, before.device_in_use_bytes);
  EXPECT_EQ(after.pinned_in_use_bytes, before.pinned_in_use_bytes);
  // The same context still converts without resize.
  r.transform.resize_w = r.transform.resize_h = 0;
  ferry_batch_t batch = nullptr;
  ASSERT_EQ(ferry_batch_submit(&batch, r.ctx, &r.source, &r.transform, nullptr, nullptr), FERRY_OK)
      << ferry_last_error();
  EXPECT_EQ(ferry_batch_wait(batch), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
}

TEST(ResizeGpu, SamplesOfDifferentSizesAreUnsupportedBeforeStaging) {
  FERRY_REQUIRE_GPU();
  ResizeOnCuda r;
  std::vector<std::uint8_t> small(3 * 5 * 3, 9);
  ferry_sample_desc descs[2] = {};
  descs[0].data = r.pixels.data(), descs[0].bytes = r.pixels.size(), descs[0].h = 6, descs[0].w = 8;
  descs[1].data = small.data(), descs[1].bytes = small.size(), descs[1].h = 3, descs[1].w = 5;
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.n = 2, src.c = 3;
  src.sample_descs = descs;
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.crop = {0, 0, 4, 3};  // inside both: one output size without resize
  ferry_batch_t batch = nullptr;
  EXPECT_EQ(ferry_batch_submit(&batch, r.ctx, &src, &t, nullptr, nullptr), FERRY_ERR_UNSUPPORTED);
  EXPECT_EQ(batch, nullptr);
  const std::string message = ferry_last_error();
  EXPECT_NE(message.find("source.sample_descs"), std::string::npos) << message;
  ferry_stats st;
  ferry_stats_init(&st, sizeof st);
  ASSERT_EQ(ferry_stats_get(&st, r.ctx), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(st.batches_submitted, 0u);
}
