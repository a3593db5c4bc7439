// Camera and video frames (ferry_source.format) on the GPU: every output byte
// equal to the CPU backend's, for every format, matrix, range and chroma
// filter, odd and even sizes, frames packed, padded or with their planes
// apart, through ferry_transform_apply on device frames (a decoder's surface;
// the device output poisoned first) and through ferry_batch_submit from
// pageable, registered and pinned memory (batches in one buffer, frames of different
// sizes, one chunk and several; resized from pageable memory, only the plane
// rows the decoder reads are staged: core/stage/source_footprint.h). Frames 16, 48 and 64 pixels wide in packed
// planes take the decoder's whole-word path (decodes_in_words) for every
// format and filter, a group at the right edge among them, and 33 rows a last
// single row; the odd sizes and padded planes take its byte-wise one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/support/frame_cases.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/gpu/gpu_compare.h"

using namespace ferry::test;

namespace {

// The frame's conversion on the GPU from a copy of it in device memory, into a poisoned device buffer.
std::vector<std::uint8_t> device_output(ferry_context_t gpu, const TestFrame& frame, ferry_source src,
                                        const ferry_transform& t, std::string& problem) {
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &src, &t), FERRY_OK) << ferry_last_error();
  void* in = nullptr;
  void* out = nullptr;
  std::vector<std::uint8_t> result(info.bytes);
  if (cudaMalloc(&in, frame.bytes.size()) != cudaSuccess || cudaMalloc(&out, info.bytes) != cudaSuccess ||
      cudaMemcpy(in, frame.bytes.data(), frame.bytes.size(), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemset(out, poison, info.bytes) != cudaSuccess) {
    problem = "cuda allocation or copy";
  } else {
    src.data = in;
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out, o.bytes = info.bytes;
    if (ferry_transform_apply(gpu, &src, &t, &o, nullptr) != FERRY_OK)
      problem = std::string("ferry_transform_apply: ") + ferry_last_error();
    else if (cudaMemcpy(result.data(), out, info.bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
      problem = "copy back";
  }
  cudaFree(in);
  cudaFree(out);
  return result;
}

// A detector's input: letterboxed to 64 x 48, normalized, f16 NCHW.
ferry_transform letterbox_f16() {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.resize_w = 64, t.resize_h = 48;
  t.resize_mode = FERRY_RESIZE_LETTERBOX;
  t.letterbox_value[0] = t.letterbox_value[1] = t.letterbox_value[2] = 0.5f;
  return t;
}

}  // namespace

TEST(FrameGpu, EveryFormatMatchesTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  ferry_context_t cpu = make_test_context(FERRY_DEVICE_CPU, 4);
  ferry_context_t gpu = make_test_context(FERRY_DEVICE_CUDA, 4);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  std::mt19937 rng(151);
  const ColorOptions options[] = {{FERRY_COLOR_BT601, FERRY_RANGE_LIMITED, FERRY_CHROMA_NEAREST},
                                  {FERRY_COLOR_BT709, FERRY_RANGE_LIMITED, FERRY_CHROMA_LINEAR},
                                  {FERRY_COLOR_BT2020, FERRY_RANGE_FULL, FERRY_CHROMA_LINEAR}};
  const std::int64_t sizes[][2] = {{2, 2}, {7, 5}, {4, 16}, {33, 48}, {48, 64}, {135, 241}};
  int compared = 0;
  for (ferry_pixel_format f : all_frame_formats)
    for (const ColorOptions& o : options)
      for (const auto& hw : sizes)
        for (PlaneLayout layout : {PlaneLayout::packed, PlaneLayout::padded, PlaneLayout::apart})
          for (const ferry_transform& t : {rgb_u8_transform(), letterbox_f16()}) {
            const TestFrame frame = random_frame(rng, f, hw[0], hw[1], layout);
            ferry_source src = frame_source(frame);
            src.color_matrix = o.matrix, src.color_range = o.range, src.chroma_filter = o.chroma;
            std::string problem;
            const std::vector<std::uint8_t> got = device_output(gpu, frame, src, t, problem);
            ASSERT_EQ(problem, "");
            ASSERT_EQ(first_difference(got, cpu_output(cpu, src, t)), "")
                << "format " << f << " matrix " << o.matrix << " range " << o.range << " chroma " << o.chroma << " "
                << hw[1] << "x" << hw[0] << " layout " << static_cast<int>(layout) << " dtype " << t.out_dtype;
            ++compared;
          }
  EXPECT_EQ(compared, 10 * 3 * 6 * 3 * 2);
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

TEST(FrameGpu, BatchesFromPageableAndPinnedMemoryMatchTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  ferry_context_t cpu = make_test_context(FERRY_DEVICE_CPU, 4);
  ferry_context_t gpu = make_test_context(FERRY_DEVICE_CUDA, 4);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  std::mt19937 rng(152);
  // The letterbox (decoded by the resample kernel, or into scratch then
  // resized) and RGB uint8 (decoded straight into the output, chunk by chunk).
  for (const ferry_transform& t : {letterbox_f16(), rgb_u8_transform()}) {
    for (ferry_pixel_format f : all_frame_formats) {
      // Eight 1080p-like frames in one buffer (smaller: 270 x 480), chunks of about two frames.
      std::vector<TestFrame> frames;
      for (int i = 0; i < 8; ++i) frames.push_back(random_frame(rng, f, 270, 480, PlaneLayout::padded));
      const std::size_t stride = frames[0].bytes.size();
      std::vector<std::uint8_t> buffer(stride * frames.size());
      for (std::size_t i = 0; i < frames.size(); ++i)
        std::memcpy(buffer.data() + i * stride, frames[i].bytes.data(), stride);
      ferry_source batch = frame_source(frames[0]);
      batch.data = buffer.data(), batch.bytes = buffer.size(), batch.n = static_cast<std::int64_t>(frames.size());
      const std::vector<std::uint8_t> want = cpu_output(cpu, batch, t);
      std::string problem;
      EXPECT_EQ(first_difference(submitted_output(gpu, batch, t, 2 * stride, problem), want), "")
          << "pageable, format " << f << " dtype " << t.out_dtype;
      EXPECT_EQ(problem, "");
      // All eight in one chunk: launches of more than two frames take the
      // resample kernel's other row plan (rows_per_thread).
      EXPECT_EQ(first_difference(submitted_output(gpu, batch, t, buffer.size(), problem), want), "")
          << "pageable, one chunk, format " << f << " dtype " << t.out_dtype;
      EXPECT_EQ(problem, "");
      if (t.resize_w != 0) {  // the staged footprint of linear chroma: a chroma row more each side
        ferry_source linear = batch;
        linear.chroma_filter = FERRY_CHROMA_LINEAR;
        EXPECT_EQ(first_difference(submitted_output(gpu, linear, t, 2 * stride, problem), cpu_output(cpu, linear, t)),
                  "")
            << "pageable, linear chroma, format " << f;
        EXPECT_EQ(problem, "");
      }
      ASSERT_EQ(ferry_memory_register_host(gpu, buffer.data(), buffer.size()), FERRY_OK) << ferry_last_error();
      EXPECT_EQ(first_difference(submitted_output(gpu, batch, t, 2 * stride, problem), want), "")
          << "registered, format " << f;
      EXPECT_EQ(problem, "");
      EXPECT_EQ(ferry_memory_unregister_host(gpu, buffer.data()), FERRY_OK) << ferry_last_error();
      void* pinned = nullptr;
      ASSERT_EQ(ferry_memory_alloc_host(&pinned, gpu, buffer.size()), FERRY_OK) << ferry_last_error();
      std::memcpy(pinned, buffer.data(), buffer.size());
      batch.data = pinned;
      EXPECT_EQ(first_difference(submitted_output(gpu, batch, t, 2 * stride, problem), want), "")
          << "pinned, format " << f;
      EXPECT_EQ(problem, "");
      // One pinned frame, letterboxed by three (its taps read luma rows 3r + 1 and 3r + 2).
      ferry_source one = batch;
      one.n = 1, one.bytes = stride;
      ferry_transform by_three = letterbox_f16();
      by_three.resize_w = by_three.resize_h = 160;
      EXPECT_EQ(first_difference(submitted_output(gpu, one, by_three, 0, problem), cpu_output(cpu, one, by_three)), "")
          << "one pinned frame, format " << f;
      EXPECT_EQ(problem, "");
      EXPECT_EQ(ferry_memory_free_host(gpu, pinned), FERRY_OK);
      // The batch by three from pageable memory, two frames a chunk: 4:2:0
      // frames with nearest chroma stage rows 3r + 1 and their chroma only.
      ferry_source pageable_by_three = batch;
      pageable_by_three.data = buffer.data();
      EXPECT_EQ(first_difference(submitted_output(gpu, pageable_by_three, by_three, 2 * stride, problem),
                                 cpu_output(cpu, pageable_by_three, by_three)),
                "")
          << "pageable by three, format " << f;
      EXPECT_EQ(problem, "");
      // Frames of different sizes, their planes apart from one another in pageable memory
      // (resized: without a resize frames of different sizes have no one output size).
      if (t.resize_w == 0) continue;
      std::vector<TestFrame> sized;
      for (int i = 0; i < 5; ++i) sized.push_back(random_frame(rng, f, 2 + 37 * i, 3 + 51 * i, PlaneLayout::padded));
      const std::vector<ferry_sample_desc> descs = frame_descs(sized);
      const ferry_source variable = frames_source(f, descs);
      const std::vector<std::uint8_t> sized_want = cpu_output(cpu, variable, t);
      EXPECT_EQ(first_difference(submitted_output(gpu, variable, t, 64 << 10, problem), sized_want), "")
          << "different sizes, format " << f;
      EXPECT_EQ(problem, "");
    }
  }
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

#else
TEST(FrameGpu, EveryFormatMatchesTheCpuBackend) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
