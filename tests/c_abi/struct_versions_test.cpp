// The released layouts of the C structs (c_api/struct_versions.h) and the
// struct_size rule: a size that ends inside a field is refused, so a torn
// callback pointer can never reach ferry's completion thread. Each layout is
// frozen here for LP64 (x86-64, aarch64): a change that moves a field fails.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "c_api/struct_versions.h"
#include "ferry/ferry.h"

namespace {

using ferry::api::ReleasedSizes;

#define EXPECT_OFFSET(T, field, offset) EXPECT_EQ(offsetof(T, field), std::size_t{offset}) << #T "." #field

TEST(StructVersions, LayoutsAreFrozen) {
  if (sizeof(void*) != 8) GTEST_SKIP() << "the frozen offsets are those of LP64";
  EXPECT_EQ(sizeof(ferry::api::v1::context_options), 104u);
  EXPECT_EQ(sizeof(ferry::api::v2::context_options), 120u);
  EXPECT_EQ(sizeof(ferry_context_options), 128u);
  EXPECT_OFFSET(ferry_context_options, device_timing, 120);
  EXPECT_OFFSET(ferry_context_options, pinned_cache_bytes, 24);
  EXPECT_OFFSET(ferry_context_options, submit_nonblocking, 96);
  EXPECT_OFFSET(ferry_context_options, max_unreleased_batches, 104);
  EXPECT_OFFSET(ferry_context_options, pinned_method, 112);
  EXPECT_EQ(sizeof(ferry::api::v1::stats), 248u);
  EXPECT_EQ(sizeof(ferry::api::v2::stats), 264u);
  EXPECT_EQ(sizeof(ferry_stats), 288u);
  EXPECT_OFFSET(ferry_stats, timed_chunks, 280);
  EXPECT_OFFSET(ferry_stats, resident_bytes, 264);
  EXPECT_OFFSET(ferry_stats, resident_datasets, 272);
  EXPECT_OFFSET(ferry_stats, input_gbps, 240);
  EXPECT_OFFSET(ferry_stats, batches_unreleased, 248);
  EXPECT_OFFSET(ferry_stats, numa_node, 256);
  EXPECT_OFFSET(ferry_stats, numa_cpus, 260);
  EXPECT_EQ(sizeof(ferry_submit_options), 56u);
  EXPECT_OFFSET(ferry_submit_options, chunk_bytes, 32);
  EXPECT_OFFSET(ferry_submit_options, callback, 40);
  EXPECT_OFFSET(ferry_submit_options, user_data, 48);
  EXPECT_EQ(sizeof(ferry::api::v2::source), 112u);
  EXPECT_EQ(sizeof(ferry::api::v3::source), 120u);
  EXPECT_EQ(sizeof(ferry_source), 184u);
  EXPECT_OFFSET(ferry_source, sample_descs, 112);
  EXPECT_OFFSET(ferry_source, format, 120);
  EXPECT_OFFSET(ferry_source, plane_pitch, 160);
  EXPECT_EQ(sizeof(ferry_source), ReleasedSizes<ferry_source>::values.back());
  EXPECT_EQ(sizeof(ferry::api::v2::transform), 168u);
  EXPECT_EQ(sizeof(ferry::api::v3::transform), 248u);
  EXPECT_EQ(sizeof(ferry_transform), 256u);
  EXPECT_OFFSET(ferry_transform, resize_w, 168);
  EXPECT_OFFSET(ferry_transform, per_sample_window, 240);
  EXPECT_EQ(sizeof(ferry_transform), ReleasedSizes<ferry_transform>::values.back());
  EXPECT_EQ(sizeof(ferry_output), 56u);
  EXPECT_EQ(sizeof(ferry_tensor_info), 112u);
  EXPECT_EQ(sizeof(ferry_device_properties), ReleasedSizes<ferry_device_properties>::values.back());
  EXPECT_EQ(sizeof(ferry_stats), ReleasedSizes<ferry_stats>::values.back());
  EXPECT_EQ(sizeof(ferry_dataset_options), 40u);
  EXPECT_EQ(sizeof(ferry_dataset_info), 104u);
  EXPECT_OFFSET(ferry_dataset_info, upload_seconds, 96);
}

// The reproducer of the torn pointer: a size ending inside `callback` or
// `user_data` used to be accepted, and the completion thread jumped to the
// callback's low bytes.
TEST(StructVersions, SubmitOptionsSizeInsideAPointerIsRefused) {
  ferry_context_options co;
  ferry_context_options_init(&co, sizeof co);
  co.device_kind = FERRY_DEVICE_CPU;
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &co), FERRY_OK);
  std::uint8_t pixels[4 * 4 * 3] = {};
  ferry_source src;
  ferry_source_init(&src, sizeof src);
  src.data = pixels, src.bytes = sizeof pixels, src.n = 1, src.h = 4, src.w = 4, src.c = 3;
  auto callback = [](ferry_batch_t, ferry_status, void*) {};
  for (std::size_t size : {offsetof(ferry_submit_options, callback) + 5, offsetof(ferry_submit_options, user_data) + 3,
                           std::size_t{9}, sizeof(ferry_submit_options) - 1}) {
    ferry_submit_options o;
    ferry_submit_options_init(&o, sizeof o);
    o.callback = callback;
    o.struct_size = size;
    ferry_batch_t batch = nullptr;
    EXPECT_EQ(ferry_batch_submit(&batch, ctx, &src, nullptr, nullptr, &o), FERRY_ERR_STRUCT_SIZE) << size;
    EXPECT_NE(std::string(ferry_last_error()).find("options->struct_size is " + std::to_string(size)),
              std::string::npos)
        << ferry_last_error();
    EXPECT_EQ(batch, nullptr);
  }
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

// A 0.2 caller's options (120 bytes, its tail padding whatever was on its
// stack) are read as 0.2's: device_timing takes its default, the padding is
// never read.
TEST(StructVersions, ContextOptionsOf02ReadNothingPastTheirSize) {
  alignas(8) unsigned char buffer[sizeof(ferry_context_options)];
  std::memset(buffer, 0xab, sizeof buffer);
  auto* o = reinterpret_cast<ferry_context_options*>(buffer);
  ASSERT_EQ(ferry_context_options_init(o, sizeof(ferry::api::v2::context_options)), FERRY_OK);
  std::memset(buffer + offsetof(ferry_context_options, pinned_method) + 4, 0xab,
              sizeof buffer - offsetof(ferry_context_options, pinned_method) - 4);  // 0.2's padding, and past it
  o->device_kind = FERRY_DEVICE_CPU;
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, o), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
}

TEST(StructVersions, InitAcceptsReleasedSizesOnly) {
  alignas(8) unsigned char buffer[512];
  EXPECT_EQ(ferry_context_options_init(reinterpret_cast<ferry_context_options*>(buffer),
                                       sizeof(ferry::api::v1::context_options)),
            FERRY_OK);
  EXPECT_EQ(ferry_context_options_init(reinterpret_cast<ferry_context_options*>(buffer), 20), FERRY_ERR_STRUCT_SIZE);
  EXPECT_EQ(ferry_submit_options_init(reinterpret_cast<ferry_submit_options*>(buffer), 53), FERRY_ERR_STRUCT_SIZE);
  EXPECT_EQ(ferry_source_init(reinterpret_cast<ferry_source*>(buffer), sizeof(ferry_source) - 4),
            FERRY_ERR_STRUCT_SIZE);
  EXPECT_EQ(ferry_tensor_info_init(reinterpret_cast<ferry_tensor_info*>(buffer), 0), FERRY_ERR_STRUCT_SIZE);
  // A newer, larger header: accepted, its tail zeroed.
  std::memset(buffer, 0xab, sizeof buffer);
  EXPECT_EQ(ferry_output_init(reinterpret_cast<ferry_output*>(buffer), sizeof(ferry_output) + 16), FERRY_OK);
  for (std::size_t i = sizeof(ferry_output); i < sizeof(ferry_output) + 16; ++i) EXPECT_EQ(buffer[i], 0) << i;
}

}  // namespace
