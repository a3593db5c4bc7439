// Large single samples (camera and render frames) end to end: frames from
// ferry's pinned memory, the caller's pinned or registered memory, pitched
// rows, with every mirror, a crop and several output forms, into ferry's
// output and into the caller's buffer with a hand-off stream (busy with the
// caller's work, or idle, when ferry records no event for it), back to back
// on the same context and from several threads at once, each compared byte
// for byte with the CPU backend on poisoned outputs.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/gpu/gpu_compare.h"
#include "tests/support/test_context.h"

namespace {

using namespace ferry::test;

constexpr std::uint8_t kPoison = 0xA7;

ferry_context_t context_of(ferry_device_kind kind, ferry_device_timing timing = FERRY_DEVICE_TIMING_AUTO) {
  return make_test_context(kind, 0, timing);
}

enum class FrameMemory { kFerryPinned, kCallerPinned, kRegistered };

// One frame's bytes in the memory kind asked for, random, rows `pitch` apart.
struct Frame {
  ferry_context_t ctx;
  FrameMemory memory;
  std::uint8_t* data = nullptr;
  std::vector<std::uint8_t> pageable;
  ferry_source source;
  Frame(ferry_context_t context, FrameMemory kind, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t pitch,
        std::uint32_t seed)
      : ctx(context), memory(kind) {
    const std::size_t bytes = static_cast<std::size_t>(h * pitch);
    if (kind == FrameMemory::kFerryPinned) {
      void* p = nullptr;
      EXPECT_EQ(ferry_memory_alloc_host(&p, ctx, bytes), FERRY_OK) << ferry_last_error();
      data = static_cast<std::uint8_t*>(p);
    } else if (kind == FrameMemory::kCallerPinned) {
      EXPECT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&data), bytes, cudaHostAllocDefault), cudaSuccess);
    } else {
      pageable.resize(bytes);
      data = pageable.data();
      EXPECT_EQ(ferry_memory_register_host(ctx, data, bytes), FERRY_OK) << ferry_last_error();
    }
    std::mt19937 rng(seed);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::uint8_t>(rng());
    ferry_source_init(&source, sizeof source);
    source.data = data;
    source.bytes = bytes;
    source.n = 1, source.h = h, source.w = w, source.c = c;
    source.stride_h = pitch;
  }
  ~Frame() {
    if (memory == FrameMemory::kFerryPinned) ferry_memory_free_host(ctx, data);
    if (memory == FrameMemory::kCallerPinned) cudaFreeHost(data);
    if (memory == FrameMemory::kRegistered) ferry_memory_unregister_host(ctx, data);
  }
};

struct FrameCase {
  std::string name;
  std::int64_t h, w, c, pitch;
  ferry_transform t;
};

std::vector<FrameCase> frame_cases() {
  std::vector<FrameCase> cases;
  for (int mirror : {0, int{FERRY_MIRROR_X}, int{FERRY_MIRROR_Y}, FERRY_MIRROR_X | FERRY_MIRROR_Y}) {
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    t.out_dtype = FERRY_DTYPE_FLOAT16;
    t.out_channels = 3;
    t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
    t.mirror = mirror;
    t.mean[0] = 0.485f, t.mean[1] = 0.456f, t.mean[2] = 0.406f;
    t.std[0] = 0.229f, t.std[1] = 0.224f, t.std[2] = 0.225f;
    cases.push_back({"1080p BGRA -> RGB f16 NCHW, mirror " + std::to_string(mirror), 1080, 1920, 4, 1920 * 4, t});
  }
  ferry_transform u8;
  ferry_transform_init(&u8, sizeof u8);
  u8.out_dtype = FERRY_DTYPE_UINT8;
  u8.out_layout = FERRY_LAYOUT_NHWC;
  u8.mirror = FERRY_MIRROR_Y;
  u8.crop = {31, 9, 1201, 697};
  cases.push_back({"720p RGB pitched, cropped, mirror Y -> u8 NHWC", 720, 1280, 3, 1280 * 3 + 96, u8});
  ferry_transform padded;
  ferry_transform_init(&padded, sizeof padded);
  padded.out_layout = FERRY_LAYOUT_NHWC;
  padded.pad_channels_to_4 = 1;
  cases.push_back({"odd 1001 x 1333 RGB -> f32 NHWC padded to 4", 1001, 1333, 3, 1333 * 3, padded});
  return cases;
}

// caller_output: into a poisoned buffer of the caller's, handed off to
// `handoff`, which is still running the poisoning when ferry is called, or
// (handoff_idle) has finished it.
std::string check_frame(ferry_context_t gpu, ferry_context_t cpu, const ferry_source& src, const ferry_transform& t,
                        bool caller_output, cudaStream_t handoff, bool handoff_idle = false) {
  const std::vector<std::uint8_t> want = cpu_output(cpu, src, t);
  if (!caller_output) {
    std::string problem;
    const std::vector<std::uint8_t> got = submitted_output(gpu, src, t, 0, problem);
    return problem.empty() ? first_difference(got, want) : problem;
  }
  // The caller's buffer, poisoned, handed off to the caller's stream.
  void* out = nullptr;
  if (cudaMalloc(&out, want.size()) != cudaSuccess) return "cudaMalloc";
  cudaMemsetAsync(out, kPoison, want.size(), handoff);
  if (handoff_idle) cudaStreamSynchronize(handoff);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = out, o.bytes = want.size();
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.handoff_stream = handoff;
  so.has_handoff_stream = 1;
  ferry_batch_t b = nullptr;
  std::string problem;
  if (ferry_batch_submit(&b, gpu, &src, &t, &o, &so) != FERRY_OK) {
    problem = std::string("ferry_batch_submit: ") + ferry_last_error();
  } else if (ferry_batch_release(b) != FERRY_OK) {
    problem = "ferry_batch_release";
  }
  std::vector<std::uint8_t> got(want.size());
  // Stream-ordered: the hand-off stream holds the result.
  cudaMemcpyAsync(got.data(), out, got.size(), cudaMemcpyDeviceToHost, handoff);
  cudaStreamSynchronize(handoff);
  cudaFree(out);
  return problem.empty() ? first_difference(got, want) : problem;
}

TEST(StageFramesGpu, LargeFramesEqualTheCpuBackend) {
  FERRY_REQUIRE_GPU();
  ferry_context_t gpu = context_of(FERRY_DEVICE_CUDA), cpu = context_of(FERRY_DEVICE_CPU);
  cudaStream_t handoff = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&handoff, cudaStreamNonBlocking), cudaSuccess);
  std::uint32_t seed = 1;
  for (const FrameCase& c : frame_cases())
    for (FrameMemory memory : {FrameMemory::kFerryPinned, FrameMemory::kCallerPinned, FrameMemory::kRegistered})
      for (int output = 0; output < 3; ++output) {  // ferry's; the caller's, hand-off busy; idle
        Frame frame(gpu, memory, c.h, c.w, c.c, c.pitch, seed++);
        EXPECT_EQ(check_frame(gpu, cpu, frame.source, c.t, output > 0, handoff, output == 2), "")
            << c.name << ", memory " << static_cast<int>(memory) << ", output " << output;
      }
  cudaStreamDestroy(handoff);
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

// Frames back to back without waiting, each into its own output, then
// checked: a frame's kernel must never read a stream's input buffer after the
// next frame's copy has started writing it.
TEST(StageFramesGpu, FramesBackToBackEachKeepsItsOwnBytes) {
  FERRY_REQUIRE_GPU();
  ferry_context_t gpu = context_of(FERRY_DEVICE_CUDA), cpu = context_of(FERRY_DEVICE_CPU);
  const FrameCase c = frame_cases()[2];  // mirror Y
  constexpr int kFrames = 12;
  std::vector<std::unique_ptr<Frame>> frames;
  std::vector<ferry_batch_t> batches(kFrames, nullptr);
  for (int i = 0; i < kFrames; ++i)
    frames.push_back(std::make_unique<Frame>(gpu, FrameMemory::kFerryPinned, c.h, c.w, c.c, c.pitch, 100u + i));
  for (int i = 0; i < kFrames; ++i)
    ASSERT_EQ(ferry_batch_submit(&batches[i], gpu, &frames[i]->source, &c.t, nullptr, nullptr), FERRY_OK)
        << ferry_last_error();
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_EQ(ferry_batch_wait(batches[i]), FERRY_OK) << ferry_last_error();
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    ASSERT_EQ(ferry_batch_describe_output(&info, batches[i]), FERRY_OK);
    std::vector<std::uint8_t> got(info.bytes);
    ASSERT_EQ(cudaMemcpy(got.data(), info.data, info.bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(first_difference(got, cpu_output(cpu, frames[i]->source, c.t)), "") << "frame " << i;
    ferry_batch_release(batches[i]);
  }
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

// Several threads submit frames on one context at once, each with its own
// hand-off stream, busy or idle.
TEST(StageFramesGpu, ThreadsSubmittingFramesAtOnce) {
  FERRY_REQUIRE_GPU();
  ferry_context_t gpu = context_of(FERRY_DEVICE_CUDA), cpu = context_of(FERRY_DEVICE_CPU);
  const std::vector<FrameCase> cases = frame_cases();
  std::vector<std::string> problems(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t handoff = nullptr;
      cudaStreamCreateWithFlags(&handoff, cudaStreamNonBlocking);
      for (int i = 0; i < 6 && problems[t].empty(); ++i) {
        const FrameCase& c = cases[static_cast<std::size_t>(t + i) % cases.size()];
        Frame frame(gpu, FrameMemory::kFerryPinned, c.h, c.w, c.c, c.pitch, static_cast<std::uint32_t>(1000 + 10 * t + i));
        const std::string p = check_frame(gpu, cpu, frame.source, c.t, (i % 3) != 0, handoff, (i % 3) == 2);
        if (!p.empty()) problems[t] = c.name + ": " + p;
      }
      cudaStreamDestroy(handoff);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(problems[t], "") << "thread " << t;
  ferry_context_destroy(gpu);
  ferry_context_destroy(cpu);
}

// device_timing: AUTO times batches of more than one sample, not a lone
// frame; ON times the frame too; OFF times nothing; a short batch (256 KiB or
// less) is never timed. Each output stays right.
TEST(StageFramesGpu, DeviceTimingChoosesWhichBatchesAreTimed) {
  FERRY_REQUIRE_GPU();
  ferry_context_t cpu = context_of(FERRY_DEVICE_CPU);
  ferry_transform t = frame_cases()[2].t;
  struct Expect {
    ferry_device_timing timing;
    bool frame, pair, small;  // timed?
  };
  for (const Expect& e : {Expect{FERRY_DEVICE_TIMING_AUTO, false, true, false},
                          Expect{FERRY_DEVICE_TIMING_ON, true, true, false},
                          Expect{FERRY_DEVICE_TIMING_OFF, false, false, false}}) {
    ferry_context_t gpu = context_of(FERRY_DEVICE_CUDA, e.timing);
    Frame frame(gpu, FrameMemory::kFerryPinned, 1080, 1920, 4, 1920 * 4, 7);
    Frame small(gpu, FrameMemory::kFerryPinned, 64, 64, 4, 64 * 4, 8);  // 16 KiB: the short path
    ferry_source pair = frame.source;  // two frames of 540 rows
    pair.n = 2, pair.h = 540;
    struct Run {
      const char* name;
      const ferry_source* src;
      bool timed;
    };
    for (const Run& r : {Run{"one frame", &frame.source, e.frame}, Run{"two frames", &pair, e.pair},
                         Run{"a short batch", &small.source, e.small}}) {
      ferry_stats before, after;
      ferry_stats_init(&before, sizeof before);
      ferry_stats_init(&after, sizeof after);
      ASSERT_EQ(ferry_stats_get(&before, gpu), FERRY_OK);
      std::string problem;
      const std::vector<std::uint8_t> got = submitted_output(gpu, *r.src, t, 0, problem);
      ASSERT_EQ(problem, "");
      EXPECT_EQ(first_difference(got, cpu_output(cpu, *r.src, t)), "") << r.name;
      ASSERT_EQ(ferry_stats_get(&after, gpu), FERRY_OK);
      const std::string where = std::string(r.name) + ", device_timing " + std::to_string(e.timing);
      EXPECT_EQ(after.timed_chunks > before.timed_chunks, r.timed) << where;
      EXPECT_EQ(after.h2d_ns > before.h2d_ns, r.timed) << where;
      EXPECT_EQ(after.convert_ns > before.convert_ns, r.timed) << where;
    }
    ferry_context_destroy(gpu);
  }
  ferry_context_destroy(cpu);
}

}  // namespace

#else
TEST(StageFramesGpu, LargeFramesEqualTheCpuBackend) { GTEST_SKIP() << "built without CUDA"; }
#endif
