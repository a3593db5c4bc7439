// The hand-off to a caller's stream, checked with kernels that read the
// output on that stream: the hand-off option, ferry_batch_handoff, a
// caller's destination reused while the hand-off stream still reads it, and
// the release of an output the hand-off stream still reads.
#include <gtest/gtest.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.h"
#include "tests/support/test_context.h"
#include "tests/support/stage_test_util.h"

namespace {

using namespace ferry::test;

// Copies bytes after spinning for `spin_cycles`, so a missing wait shows.
__global__ void slow_copy(const unsigned char* src, unsigned char* dst, size_t bytes, long long spin_cycles) {
  if (spin_cycles > 0) {
    const long long start = clock64();
    while (clock64() - start < spin_cycles) {
    }
  }
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// Reads device memory on a stream through a kernel (after `spin` cycles),
// into a scratch buffer allocated up front (reserve): nothing slow (an
// allocation) may stand between a submit and the read, or a missing hand-off
// wait would be hidden by luck. Frees its scratch (compute-sanitizer's leak
// check runs the suite).
class DeviceReader {
 public:
  DeviceReader() = default;
  DeviceReader(const DeviceReader&) = delete;
  DeviceReader& operator=(const DeviceReader&) = delete;
  ~DeviceReader() { cudaFree(scratch_); }

  void reserve(size_t bytes) {
    if (bytes <= bytes_) return;
    cudaFree(scratch_);
    scratch_ = nullptr;
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&scratch_), bytes), cudaSuccess);
    bytes_ = bytes;
  }
  std::vector<unsigned char> read(cudaStream_t s, const void* device, size_t bytes, long long spin = 0) {
    reserve(bytes);
    slow_copy<<<256, 256, 0, s>>>(static_cast<const unsigned char*>(device), scratch_, bytes, spin);
    std::vector<unsigned char> host(bytes);
    EXPECT_EQ(cudaMemcpyAsync(host.data(), scratch_, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    return host;
  }

 private:
  unsigned char* scratch_ = nullptr;
  size_t bytes_ = 0;
};

TEST(StageHandoff, KernelOnTheHandoffStreamSeesTheOutput) {
  FERRY_REQUIRE_GPU();
  ferry_context_t ctx = gpu_context();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  const std::int64_t n = 128, h = 224, w = 224;  // 19 MB: staged over several chunks
  auto src = make_source(ctx, SourceKind::kPacked, n, h, w, 31);
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  ferry_tensor_info shape;
  ferry_tensor_info_init(&shape, sizeof shape);
  ASSERT_EQ(ferry_transform_describe_output(&shape, &src->source, &tr->t), FERRY_OK);
  DeviceReader reader;
  reader.reserve(shape.bytes);
  ferry_submit_options opts;
  ferry_submit_options_init(&opts, sizeof opts);
  opts.handoff_stream = s;
  opts.has_handoff_stream = 1;
  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_batch_submit(&b, ctx, &src->source, &tr->t, nullptr, &opts), FERRY_OK) << ferry_last_error();
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_batch_describe_output(&info, b), FERRY_OK);
  // No host wait: the kernel on s must wait for ferry by itself.
  const auto got = reader.read(s, info.data, info.bytes);
  ferry_output packed;
  ferry_output_init(&packed, sizeof packed);
  const auto expected = expected_output(src->source, tr->t, packed, info.bytes);
  EXPECT_EQ(first_difference(got.data(), expected.data(), info.bytes), -1);
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);

  // The same through ferry_batch_handoff, from a pinned source (DMA path).
  void* pinned = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&pinned, ctx, src->source.bytes), FERRY_OK);
  std::memcpy(pinned, src->source.data, src->source.bytes);
  ferry_source ps = src->source;
  ps.data = pinned;
  ASSERT_EQ(ferry_batch_submit(&b, ctx, &ps, &tr->t, nullptr, nullptr), FERRY_OK);
  ASSERT_EQ(ferry_batch_handoff(b, s), FERRY_OK);
  ASSERT_EQ(ferry_batch_describe_output(&info, b), FERRY_OK);
  const auto got2 = reader.read(s, info.data, info.bytes);
  EXPECT_EQ(first_difference(got2.data(), expected.data(), info.bytes), -1);
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  ferry_memory_free_host(ctx, pinned);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  cudaStreamDestroy(s);
}

// For each way a batch runs: by the submitting thread, its entry event
// recorded on the hand-off stream only after its first copy is queued (a
// short batch, a source in ferry's pinned memory: Stager::follow_entry), and
// by the staging thread (a long pageable batch, the event recorded in submit).
TEST(StageHandoff, ReusedDestinationWaitsForTheHandoffStreamsReaders) {
  FERRY_REQUIRE_GPU();
  struct Case {
    SourceKind kind;
    std::int64_t n;
  };
  const Case cases[] = {{SourceKind::kPacked, 16}, {SourceKind::kFerryPinned, 16}, {SourceKind::kPacked, 128}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(name_of(k.kind)) + " source, " + std::to_string(k.n) + " samples");
    ferry_context_t ctx = gpu_context();
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    const std::int64_t n = k.n, h = 64, w = 64;
    auto a = make_source(ctx, k.kind, n, h, w, 1);
    auto c = make_source(ctx, k.kind, n, h, w, 2);
    auto tr = make_transform(TransformKind::kDefault, n, h, w);
    std::size_t bytes = 0;
    ferry_output dest = padded_output(a->source, tr->t, &bytes);
    void* device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(device, kPoison, bytes), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    dest.data = device;
    ferry_submit_options opts;
    ferry_submit_options_init(&opts, sizeof opts);
    opts.handoff_stream = s;
    opts.has_handoff_stream = 1;
    ferry_batch_t first = nullptr, second = nullptr;
    ASSERT_EQ(ferry_batch_submit(&first, ctx, &a->source, &tr->t, &dest, &opts), FERRY_OK);
    // A slow reader of batch A's output on s (about 20 ms of spinning first).
    unsigned char* copy = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&copy), bytes), cudaSuccess);
    slow_copy<<<64, 256, 0, s>>>(static_cast<const unsigned char*>(device), copy, bytes, 40ll * 1000 * 1000);
    // Batch C into the same destination: it must not start before the reader is done.
    ASSERT_EQ(ferry_batch_submit(&second, ctx, &c->source, &tr->t, &dest, &opts), FERRY_OK);
    ASSERT_EQ(ferry_batch_wait(second), FERRY_OK);
    std::vector<unsigned char> got(bytes);
    ASSERT_EQ(cudaMemcpy(got.data(), copy, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    const auto expected_a = expected_output(a->source, tr->t, dest, bytes);
    EXPECT_EQ(first_difference(got.data(), expected_a.data(), bytes), -1);
    DeviceReader reader;
    const auto now = reader.read(s, device, bytes);
    const auto expected_c = expected_output(c->source, tr->t, dest, bytes);
    EXPECT_EQ(first_difference(now.data(), expected_c.data(), bytes), -1);
    ferry_batch_release(first);
    ferry_batch_release(second);
    cudaFree(copy);
    cudaFree(device);
    EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
    cudaStreamDestroy(s);
  }
}

// Spins one thread for `ns` nanoseconds of the GPU's global timer: work the
// caller left on its hand-off stream (a model's forward pass) at submit.
__global__ void busy_for(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// A hand-off does not put the transfer behind the hand-off stream's queue:
// with a long kernel queued there before submit, the H2D copies complete
// while it runs (wait_source returns with the kernel's end event not reached);
// a conversion into the caller's destination waits for the kernel (it may
// still read that destination), one into ferry's own output does not.
TEST(StageHandoff, CopiesRunWhileTheHandoffStreamIsBusy) {
  FERRY_REQUIRE_GPU();
  ferry_context_t ctx = gpu_context();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t kernel_end = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&kernel_end, cudaEventDisableTiming), cudaSuccess);
  const std::int64_t n = 64, h = 224, w = 224;  // 9.6 MB: DMA'd in timed chunks, not the short path
  auto src = make_source(ctx, SourceKind::kPacked, n, h, w, 7);
  void* pinned = nullptr;
  ASSERT_EQ(ferry_memory_alloc_host(&pinned, ctx, src->source.bytes), FERRY_OK);
  std::memcpy(pinned, src->source.data, src->source.bytes);
  ferry_source ps = src->source;
  ps.data = pinned;
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  ferry_submit_options opts;
  ferry_submit_options_init(&opts, sizeof opts);
  opts.handoff_stream = s;
  opts.has_handoff_stream = 1;
  const unsigned long long kBusyNs = 800ull * 1000 * 1000;  // far longer than the copy (about 0.2 ms)

  // The caller's destination.
  std::size_t bytes = 0;
  ferry_output dest = padded_output(ps, tr->t, &bytes);
  void* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(device, kPoison, bytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  dest.data = device;
  // Warm up: CUDA loads a kernel lazily at its first launch, and loading may
  // synchronize the whole device, which would wait for the busy kernel below.
  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_batch_submit(&b, ctx, &ps, &tr->t, &dest, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_release(b), FERRY_OK);
  busy_for<<<1, 1, 0, s>>>(1000);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaMemset(device, kPoison, bytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  busy_for<<<1, 1, 0, s>>>(kBusyNs);
  ASSERT_EQ(cudaEventRecord(kernel_end, s), cudaSuccess);
  ASSERT_EQ(ferry_batch_submit(&b, ctx, &ps, &tr->t, &dest, &opts), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait_source(b), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(cudaEventQuery(kernel_end), cudaErrorNotReady) << "the copies waited for the hand-off stream's kernel";
  // Asked in this order, a complete batch with the kernel still running is caught whatever the timing.
  const ferry_status early = ferry_batch_query(b);
  EXPECT_TRUE(early == FERRY_ERR_NOT_READY || cudaEventQuery(kernel_end) == cudaSuccess)
      << "the conversion into the caller's destination did not wait for the hand-off stream's kernel";
  ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(cudaEventQuery(kernel_end), cudaSuccess);
  std::vector<unsigned char> got(bytes);
  ASSERT_EQ(cudaMemcpy(got.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  const auto expected_caller = expected_output(ps, tr->t, dest, bytes);
  EXPECT_EQ(first_difference(got.data(), expected_caller.data(), bytes), -1);
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);

  // Ferry's own output: the whole batch completes while the kernel runs.
  ferry_tensor_info shape;
  ferry_tensor_info_init(&shape, sizeof shape);
  ASSERT_EQ(ferry_transform_describe_output(&shape, &ps, &tr->t), FERRY_OK);
  DeviceReader reader;
  reader.reserve(shape.bytes);
  busy_for<<<1, 1, 0, s>>>(kBusyNs);
  ASSERT_EQ(cudaEventRecord(kernel_end, s), cudaSuccess);
  ASSERT_EQ(ferry_batch_submit(&b, ctx, &ps, &tr->t, nullptr, &opts), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(cudaEventQuery(kernel_end), cudaErrorNotReady)
      << "a conversion into ferry's own output waited for the hand-off stream's kernel";
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ASSERT_EQ(ferry_batch_describe_output(&info, b), FERRY_OK);
  const auto got_own = reader.read(s, info.data, info.bytes);  // after the kernel, on the hand-off stream
  ferry_output packed;
  ferry_output_init(&packed, sizeof packed);
  const auto expected_own = expected_output(ps, tr->t, packed, info.bytes);
  EXPECT_EQ(first_difference(got_own.data(), expected_own.data(), info.bytes), -1);
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);

  ferry_memory_free_host(ctx, pinned);
  cudaFree(device);
  cudaEventDestroy(kernel_end);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  cudaStreamDestroy(s);
}

// Images (or frames) into the caller's buffers with a hand-off, submitted
// back to back while the hand-off stream is busy, more of them than ferry has
// pipeline streams: each image's kernel waits for the busy kernel (the entry
// event), and a later image's copy into the same stream's input buffer must
// not overwrite it before that kernel has read it. Half the images carry a
// per-sample mirror, whose table is copied before the image.
TEST(StageHandoff, ImagesIntoCallerBuffersBehindABusyHandoffStreamKeepTheirBytes) {
  FERRY_REQUIRE_GPU();
  ferry_context_t ctx = gpu_context(0, 16);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  constexpr int kImages = 12;
  const std::int64_t h = 720, w = 1280;  // 2.8 MB: one chunk, copied, not read in place
  std::vector<std::unique_ptr<TestSource>> sources;
  std::vector<std::unique_ptr<TestTransform>> transforms;
  std::vector<void*> dests(kImages, nullptr);
  std::vector<std::size_t> bytes(kImages, 0);
  std::vector<ferry_output> outs(kImages);
  for (int i = 0; i < kImages; ++i) {
    sources.push_back(make_source(ctx, SourceKind::kFerryPinned, 1, h, w, 900u + static_cast<std::uint32_t>(i)));
    transforms.push_back(make_transform(i % 2 ? TransformKind::kHalfCropMirror : TransformKind::kDefault, 1, h, w));
    outs[i] = padded_output(sources[i]->source, transforms[i]->t, &bytes[i]);
    ASSERT_EQ(cudaMalloc(&dests[i], bytes[i]), cudaSuccess);
    outs[i].data = dests[i];
  }
  ferry_submit_options opts;
  ferry_submit_options_init(&opts, sizeof opts);
  opts.handoff_stream = s;
  opts.has_handoff_stream = 1;
  ferry_batch_t b = nullptr;  // warm up: the kernels loaded before the busy kernel
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(ferry_batch_submit(&b, ctx, &sources[i]->source, &transforms[i]->t, &outs[i], &opts), FERRY_OK)
        << ferry_last_error();
    ASSERT_EQ(ferry_batch_release(b), FERRY_OK);
  }
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  for (int i = 0; i < kImages; ++i) ASSERT_EQ(cudaMemset(dests[i], kPoison, bytes[i]), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  busy_for<<<1, 1, 0, s>>>(300ull * 1000 * 1000);  // far longer than the twelve copies (about 0.6 ms)
  for (int i = 0; i < kImages; ++i) {
    ASSERT_EQ(ferry_batch_submit(&b, ctx, &sources[i]->source, &transforms[i]->t, &outs[i], &opts), FERRY_OK)
        << ferry_last_error();
    ASSERT_EQ(ferry_batch_release(b), FERRY_OK);  // stream-ordered: the hand-off stream holds the result
  }
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  for (int i = 0; i < kImages; ++i) {
    std::vector<std::uint8_t> got(bytes[i]);
    ASSERT_EQ(cudaMemcpy(got.data(), dests[i], bytes[i], cudaMemcpyDeviceToHost), cudaSuccess);
    const auto expected = expected_output(sources[i]->source, transforms[i]->t, outs[i], bytes[i]);
    EXPECT_EQ(first_difference(got.data(), expected.data(), bytes[i]), -1) << "image " << i;
    cudaFree(dests[i]);
  }
  sources.clear();
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  cudaStreamDestroy(s);
}

// Releasing a handed-off output while the hand-off stream is still busy: the
// block goes back in that stream's order, and no ferry stream is made to wait
// for it. With one pipeline stream, the next batch runs on the stream the
// released one ran on; it must neither wait for the caller's kernel (a loop
// that releases batch k-2 before submitting batch k would then copy one batch
// at a time) nor be given the block the kernel may still read.
TEST(StageHandoff, ReleasedOutputHoldsNoFerryStreamBehindTheHandoffStream) {
  FERRY_REQUIRE_GPU();
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CUDA;
  o.stream_count = 1;
  ferry_context_t ctx = nullptr;
  ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t kernel_end = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&kernel_end, cudaEventDisableTiming), cudaSuccess);
  const std::int64_t n = 16, h = 224, w = 224;
  auto src = make_source(ctx, SourceKind::kPacked, n, h, w, 11);
  auto tr = make_transform(TransformKind::kDefault, n, h, w);
  ferry_submit_options handoff;
  ferry_submit_options_init(&handoff, sizeof handoff);
  handoff.handoff_stream = s;
  handoff.has_handoff_stream = 1;
  auto output_of = [](ferry_batch_t batch) {
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_batch_describe_output(&info, batch), FERRY_OK) << ferry_last_error();
    return info;
  };
  // Warm up: CUDA's lazy kernel loading may synchronize the device.
  ferry_batch_t a = nullptr;
  ASSERT_EQ(ferry_batch_submit(&a, ctx, &src->source, &tr->t, nullptr, &handoff), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(a), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_release(a), FERRY_OK);
  busy_for<<<1, 1, 0, s>>>(1000);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);

  ASSERT_EQ(ferry_batch_submit(&a, ctx, &src->source, &tr->t, nullptr, &handoff), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(a), FERRY_OK) << ferry_last_error();
  const void* released = output_of(a).data;
  busy_for<<<1, 1, 0, s>>>(800ull * 1000 * 1000);  // the caller still reads a's output after this
  ASSERT_EQ(cudaEventRecord(kernel_end, s), cudaSuccess);
  ASSERT_EQ(ferry_batch_release(a), FERRY_OK);

  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_batch_submit(&b, ctx, &src->source, &tr->t, nullptr, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(cudaEventQuery(kernel_end), cudaErrorNotReady)
      << "the next batch waited for the hand-off stream's kernel: the release held ferry's stream behind it";
  const ferry_tensor_info got = output_of(b);
  EXPECT_NE(got.data, released) << "the released block was handed out while the hand-off stream may still read it";
  std::vector<unsigned char> host(got.bytes);
  ASSERT_EQ(cudaMemcpy(host.data(), got.data, got.bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  ferry_output packed;
  ferry_output_init(&packed, sizeof packed);
  const auto expected = expected_output(src->source, tr->t, packed, got.bytes);
  EXPECT_EQ(first_difference(host.data(), expected.data(), got.bytes), -1);
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);

  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  cudaEventDestroy(kernel_end);
  EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  cudaStreamDestroy(s);
}

}  // namespace
