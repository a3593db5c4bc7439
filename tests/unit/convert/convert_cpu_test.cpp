// The CPU backend's conversion (through ferry_transform_apply on a CPU context)
// against the scalar reference, for every combination in convert_test_cases.h.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <cstring>
#include <string>
#include <vector>

#include "c_api/struct_convert.h"
#include "core/convert/convert_cpu.h"
#include "core/convert/convert_plan.h"
#include "core/device/host_runtime.h"
#include "core/memory/memory_system.h"
#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"
#include "tests/support/convert_test_cases.h"

namespace {

using namespace ferry::test;

struct CpuContext {
  ferry_context_t ctx = nullptr;
  explicit CpuContext(int threads) {
    ferry_context_options o;
    ferry_context_options_init(&o, sizeof o);
    o.device_kind = FERRY_DEVICE_CPU;
    o.cpu_threads = threads;
    EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  }
  ~CpuContext() { ferry_context_destroy(ctx); }
};

using ferry::core::CpuConvertIsa;

// Converts one case on the CPU and compares every byte of the output buffer
// (elements and the gaps between them) with the reference. Returns "" or a
// description of the first difference. `best` goes through ferry_transform_apply
// (the kernels the CPU supports); `portable` calls the CPU conversion with
// the portable kernels forced.
std::string check_case(ferry_context_t ctx, ConvertCase& c, double& worst_error,
                       CpuConvertIsa isa = CpuConvertIsa::best) {
  std::vector<std::uint8_t> got(c.output_bytes, 0xCD), want(c.output_bytes, 0xCD);
  c.output.data = got.data();
  if (isa == CpuConvertIsa::best) {
    if (ferry_transform_apply(ctx, &c.source, &c.transform, &c.output, nullptr) != FERRY_OK)
      return std::string("ferry_transform_apply failed: ") + ferry_last_error();
  } else {
    static ferry::core::ThreadPool pool(3);
    const ferry::core::SourceDesc source = ferry::api::to_core(c.source);
    const ferry::core::OutputDesc output = ferry::api::to_core(c.output);
    const ferry::core::ConvertPlan plan =
        ferry::core::make_convert_plan(source, ferry::api::to_core(c.transform), &output);
    ferry::core::convert_on_cpu(plan, ferry::core::source_view_of(plan, source), 0, plan.n, got.data(), pool, isa);
  }
  ferry_output o = c.output;
  worst_error = std::max(worst_error, reference_convert(c.source, c.transform, o, want.data()));
  for (std::size_t b = 0; b < got.size(); ++b)
    if (got[b] != want[b])
      return "byte " + std::to_string(b) + " of " + std::to_string(got.size()) + ": got " +
             std::to_string(got[b]) + ", want " + std::to_string(want[b]);
  return "";
}

}  // namespace

class ConvertCpuIsa : public ::testing::TestWithParam<CpuConvertIsa> {};

INSTANTIATE_TEST_SUITE_P(Kernels, ConvertCpuIsa, ::testing::Values(CpuConvertIsa::best, CpuConvertIsa::portable),
                         [](const ::testing::TestParamInfo<CpuConvertIsa>& i) {
                           return std::string(i.param == CpuConvertIsa::best ? "Best" : "Portable");
                         });

TEST_P(ConvertCpuIsa, EveryCombinationMatchesTheScalarReference) {
  CpuContext cpu(3);
  int cases = 0, failures = 0;
  double worst = 0;
  for_each_case_key([&](const CaseKey& key, int index) {
    auto c = make_case(key, static_cast<std::uint32_t>(index) * 2654435761u + 1);
    ASSERT_NE(c, nullptr) << "case " << index << ": " << ferry_last_error();
    ++cases;
    const std::string diff = check_case(cpu.ctx, *c, worst, GetParam());
    if (!diff.empty() && ++failures <= 10) ADD_FAILURE() << c->name << ": " << diff;
  });
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_GT(cases, 20000);
  // The folded multiply-add stays within a few float32 ulps of the unfolded formula.
  EXPECT_LT(worst, 4e-7) << "worst relative error of the folded arithmetic";
}

// Widths around the block size, and (the last two) outputs of over 4 MiB,
// which the vector kernels write with streaming stores; 1001 columns keep
// some rows off the vector boundary, where they store as usual.
TEST_P(ConvertCpuIsa, LargeWidthsSpanSeveralBlocksAndThreads) {
  CpuContext cpu(4);
  double worst = 0;
  for (int w : {255, 256, 257, 1000, 1024, 1001}) {
    const bool large = w > 1000;
    const int h = large ? 360 : 37, n = large ? 2 : 5;
    for (ferry_dtype d : {FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16, FERRY_DTYPE_UINT8}) {
      for (int mirror = 0; mirror < 4; ++mirror) {
        if (large && (mirror == 1 || mirror == 2)) continue;
        for (ChannelCase ch : {ChannelCase::bgr_to_rgb, ChannelCase::identity, ChannelCase::pad_to_4}) {
          CaseKey key{d, mirror & 1 ? FERRY_LAYOUT_NHWC : FERRY_LAYOUT_NCHW, ch, CropCase::none,
                      MirrorCase::none, false, FERRY_LAYOUT_NHWC, SourceForm::packed, false, 4};
          auto c = make_case(key, static_cast<std::uint32_t>(w * 7 + mirror));
          ASSERT_NE(c, nullptr);
          // Rebuild as a w x h batch of n samples.
          c->source.w = w;
          c->source.h = h;
          c->source.n = n;
          c->data.assign(static_cast<std::size_t>(w) * h * 3 * n, 0);
          for (std::size_t b = 0; b < c->data.size(); ++b) c->data[b] = static_cast<std::uint8_t>(b * 131 + 7);
          c->source.data = c->data.data();
          c->source.bytes = c->data.size();
          c->transform.mirror = mirror;
          ferry_tensor_info info;
          ferry_tensor_info_init(&info, sizeof info);
          ASSERT_EQ(ferry_transform_describe_output(&info, &c->source, &c->transform), FERRY_OK) << ferry_last_error();
          c->output_bytes = info.bytes;
          c->output.bytes = info.bytes;
          const std::string diff = check_case(cpu.ctx, *c, worst, GetParam());
          EXPECT_EQ(diff, "") << "w " << w << " dtype " << d << " mirror " << mirror << " channels "
                              << static_cast<int>(ch);
        }
      }
    }
  }
}

TEST(ConvertCpu, ConcurrentCallsOnOneContext) {
  CpuContext cpu(2);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 30; ++r) {
        CaseKey key{FERRY_DTYPE_FLOAT16, FERRY_LAYOUT_NCHW, ChannelCase::bgr_to_rgb, CropCase::per_sample,
                    MirrorCase::per_sample, true, FERRY_LAYOUT_NHWC, SourceForm::pitched_unaligned, true, (t + r) % 5};
        auto c = make_case(key, static_cast<std::uint32_t>(t * 1000 + r));
        double worst = 0;
        if (!c || !check_case(cpu.ctx, *c, worst).empty()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

#include "core/convert/converter.h"
#include "core/error.h"

// The staging pipeline's use on the CPU backend: chunks of whole samples from
// a packed staged copy, per-sample values indexed by the global sample.
TEST(ConvertCpu, ChunksFromAPackedStagedCopyMatchOneCall) {
  CaseKey key{FERRY_DTYPE_FLOAT32, FERRY_LAYOUT_NCHW, ChannelCase::bgr_to_rgb, CropCase::per_sample,
              MirrorCase::per_sample, true, FERRY_LAYOUT_NHWC, SourceForm::pitched_unaligned, true, 1};
  auto c = make_case(key, 5);
  ASSERT_NE(c, nullptr);
  CpuContext cpu(2);
  std::vector<std::uint8_t> want(c->output_bytes, 0xCD), got(c->output_bytes, 0xCD);
  c->output.data = want.data();
  ASSERT_EQ(ferry_transform_apply(cpu.ctx, &c->source, &c->transform, &c->output, nullptr), FERRY_OK)
      << ferry_last_error();
  const ferry::core::OutputDesc out_desc = ferry::api::to_core(c->output);
  const ferry::core::ConvertPlan plan = ferry::core::make_convert_plan(
      ferry::api::to_core(c->source), ferry::api::to_core(c->transform), &out_desc);
  ferry::core::MemorySystem memory(std::make_shared<ferry::core::HostRuntime>(), ferry::core::ContextOptions{});
  ferry::core::Converter converter(memory, 3);
  const std::int64_t w = c->source.w, h = c->source.h, row = w * 3, packed = row * h;
  for (std::int64_t first = 0; first < c->source.n; first += 2) {
    const std::int64_t count = std::min<std::int64_t>(2, c->source.n - first);
    std::vector<std::uint8_t> staged(static_cast<std::size_t>(packed * count));
    for (std::int64_t i = 0; i < count; ++i)
      for (std::int64_t y = 0; y < h; ++y)
        std::memcpy(&staged[static_cast<std::size_t>(i * packed + y * row)],
                    static_cast<const std::uint8_t*>(c->source.data) + (first + i) * c->source.stride_n +
                        y * c->source.stride_h,
                    static_cast<std::size_t>(row));
    ferry::core::SourceView view;
    view.base = staged.data();
    view.strides = {packed, 1, row, 3};
    converter.convert(plan, view, first, count, got.data(), nullptr);
  }
  EXPECT_EQ(got, want);
  ferry::core::SourceView view;
  view.base = want.data();
  EXPECT_THROW(converter.convert(plan, view, 2, 2, got.data(), nullptr), ferry::Error);  // past n = 3
}
