// The timed rows of ferry_bench_dataset (dataset_bench_timing.h).
#include "bench/dataset_bench_timing.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_baselines.h"
#include "ferry/ferry.h"

#if FERRY_HAVE_CUDA
#include "bench/bare_gather.h"
#include "bench/gpu_timing.h"
#include "tests/support/stream_gate.h"
#endif

namespace ferry::bench::dataset {

namespace {

// After device memory is freed the driver goes on working for ~15 ms, and H2D
// copies meanwhile run slower (an H200: 2.46 GB in 50 ms against 44.3 ms,
// also into memory allocated long before; a 256 MB copy 10.1 ms, then 5.4,
// then 4.9 as always). A timed upload that follows the previous repetition's
// free would measure that, which an upload at a program's start does not
// meet: each repetition waits for it to pass first.
void settle_after_free(const Backend& b) {
#if FERRY_HAVE_CUDA
  if (!b.gpu) return;
  fb::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
#else
  (void)b;
#endif
}

}  // namespace

CreateTimes create_times(const Backend& b, const ferry_source& src, int reps, bool settle, bool cold) {
  std::vector<double> call, upload;
  for (int r = 0; r <= reps; ++r) {  // the first warms the pinned ring and the staging threads up
    if (cold) check(ferry_memory_trim(b.ctx, FERRY_MEMORY_DEVICE), "ferry_memory_trim");
    if (settle) settle_after_free(b);
    ferry_dataset_t ds = nullptr;
    const auto t0 = Clock::now();
    check(ferry_dataset_create(&ds, b.ctx, &src, nullptr), "ferry_dataset_create");
    const double ms = ms_since(t0);
    ferry_dataset_info info;
    ferry_dataset_info_init(&info, sizeof info);
    check(ferry_dataset_get_info(&info, ds), "ferry_dataset_get_info");
    check(ferry_dataset_destroy(ds), "ferry_dataset_destroy");
    if (r == 0) continue;
    call.push_back(ms);
    upload.push_back(info.upload_seconds * 1e3);
  }
  return {fb::median(call), fb::median(upload)};
}

#if FERRY_HAVE_CUDA
double fresh_buffer_copy_ms(const Backend& b, const std::uint8_t* pinned, std::size_t bytes, int reps) {
  std::vector<double> ms;
  for (int r = 0; r <= reps; ++r) {
    settle_after_free(b);
    const auto t0 = Clock::now();
    void* fresh = nullptr;
    fb::check_cuda(cudaMalloc(&fresh, bytes), "cudaMalloc");
    fb::check_cuda(cudaMemcpy(fresh, pinned, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    const double t = ms_since(t0);
    fb::check_cuda(cudaFree(fresh), "cudaFree");
    if (r > 0) ms.push_back(t);
  }
  return fb::median(ms);
}

double pageable_copy_ms(const Backend& b, const std::uint8_t* pageable, std::size_t bytes, int reps) {
  void* to = nullptr;
  fb::check_cuda(cudaMalloc(&to, bytes), "cudaMalloc");
  std::vector<double> ms;
  for (int r = 0; r <= reps; ++r) {
    const auto t0 = Clock::now();
    fb::check_cuda(cudaMemcpy(to, pageable, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    if (r > 0) ms.push_back(ms_since(t0));
  }
  fb::check_cuda(cudaFree(to), "cudaFree");
  settle_after_free(b);
  return fb::median(ms);
}
#endif

double host_copy_ms(const std::uint8_t* from, std::uint8_t* to, std::size_t bytes, int threads, int reps) {
  std::vector<double> ms;
  const std::size_t share = (bytes / static_cast<std::size_t>(threads) + 4095) / 4096 * 4096;
  for (int r = 0; r <= reps; ++r) {
    const auto t0 = Clock::now();
    std::vector<std::thread> copiers;
    for (std::size_t at = 0; at < bytes; at += share)
      copiers.emplace_back([=] { std::memcpy(to + at, from + at, std::min(share, bytes - at)); });
    for (std::thread& t : copiers) t.join();
    if (r > 0) ms.push_back(ms_since(t0));
  }
  return fb::median(ms);
}

namespace {

// Gathers `batch` indices at a time from the epoch's order, the augmentation's step advanced per gather.
struct Gatherer {
  ferry_dataset_t ds;
  const std::vector<std::int64_t>& order;
  std::int64_t batch;
  ferry_augment augment{};
  ferry_transform transform{};
  std::size_t next = 0;

  ferry_batch_t gather(const ferry_submit_options* options = nullptr, const ferry_output* output = nullptr) {
    if (next + static_cast<std::size_t>(batch) > order.size()) next = 0;
    ferry_batch_t out = nullptr;
    check(ferry_dataset_gather(&out, ds, order.data() + next, batch, &transform, output, options),
          "ferry_dataset_gather");
    next += static_cast<std::size_t>(batch);
    ++augment.step;
    return out;
  }
};

// Milliseconds per gather, `depth` in flight (gather k+1 is submitted before
// k is waited for at depth 2): median of reps runs of `batches` gathers.
double pipelined_ms(Gatherer& g, int depth, int batches, int reps) {
  std::vector<double> runs;
  for (int r = 0; r <= reps; ++r) {  // run 0 warms the cache up to `depth` outputs
    std::deque<ferry_batch_t> in_flight;
    auto retire_oldest = [&] {
      check(ferry_batch_wait(in_flight.front()), "ferry_batch_wait");
      check(ferry_batch_release(in_flight.front()), "ferry_batch_release");
      in_flight.pop_front();
    };
    const auto t0 = Clock::now();
    for (int i = 0; i < batches; ++i) {
      in_flight.push_back(g.gather());
      if (static_cast<int>(in_flight.size()) >= depth) retire_oldest();
    }
    while (!in_flight.empty()) retire_oldest();
    if (r > 0) runs.push_back(ms_since(t0) / batches);
  }
  return fb::median(runs);
}

std::uint64_t convert_ns(ferry_context_t ctx) {
  ferry_stats s;
  ferry_stats_init(&s, sizeof s);
  check(ferry_stats_get(&s, ctx), "ferry_stats_get");
  return s.convert_ns;
}

// The conversion time ferry adds to its statistics for the one gather just
// waited for: ferry_batch_wait returns once the GPU is done, and ferry's
// completion thread reads the gather's timing events just after.
double convert_ms_after(ferry_context_t ctx, std::uint64_t before_ns) {
  const auto t0 = Clock::now();
  for (;;) {
    const std::uint64_t now_ns = convert_ns(ctx);
    if (now_ns != before_ns) return static_cast<double>(now_ns - before_ns) / 1e6;
    if (ms_since(t0) > 5000) {
      std::fprintf(stderr, "ferry_bench_dataset: the gather's conversion time never reached ferry_stats.convert_ns\n");
      std::exit(1);
    }
    std::this_thread::yield();
  }
}

#if FERRY_HAVE_CUDA
// Median milliseconds of what enqueue() queues on b.stream, over `reps` calls
// after `warmups` more: events around it on the stream held until all is
// queued (so the host's enqueueing is not counted), as ferry's timing events
// around the gather's kernel are.
template <typename Enqueue>
double held_ms(Backend& b, int warmups, int reps, Enqueue&& enqueue) {
  cudaEvent_t start, stop;
  fb::check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  fb::check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int r = -warmups; r < reps; ++r) {
    {
      ferry::test::StreamGate hold;
      fb::check_cuda(hold.close(b.stream), "cudaLaunchHostFunc");
      fb::check_cuda(cudaEventRecord(start, b.stream), "cudaEventRecord");
      enqueue();
      fb::check_cuda(cudaEventRecord(stop, b.stream), "cudaEventRecord");
    }
    fb::check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    fb::check_cuda(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (r >= 0) ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return fb::median(ms);
}

// Milliseconds of one D2D copy of `bytes` (3 warm-ups), each copy in memory the previous ones did not touch.
double held_copy_ms(Backend& b, std::size_t bytes, int reps) {
  return held_ms(b, 3, reps, [&] {
    if (b.d2d_at + bytes > kD2DSpan) b.d2d_at = 0;
    fb::check_cuda(cudaMemcpyAsync(b.d2d_to + b.d2d_at, b.d2d_from + b.d2d_at, bytes, cudaMemcpyDeviceToDevice, b.stream),
                   "cudaMemcpyAsync");
    b.d2d_at += (bytes + 4095) / 4096 * 4096;
  });
}

// Milliseconds of one bare gather (bare_gather.h) of `batch` indices of
// `order` from b.set_copy (5 warm-ups, as the gather's), the batches taken
// on from `next` as the Gatherer takes them. The last one's output is
// checked against `host_bytes` (the set's source): a wrong baseline ends the run.
double bare_gather_ms(Backend& b, const SetShape& s, const std::vector<std::int64_t>& order, std::size_t next,
                      std::int64_t batch, const std::uint8_t* host_bytes, int reps) {
  const std::size_t sample = s.bytes() / static_cast<std::size_t>(s.n), n = static_cast<std::size_t>(batch);
  const std::int64_t* indices = nullptr;
  const double ms = held_ms(b, 5, reps, [&] {
    if (next + n > order.size()) next = 0;
    indices = order.data() + next;
    next += n;
    fb::check_cuda(fb::launch_bare_gather(b.set_copy, sample, indices, static_cast<int>(batch), b.timed_out, b.stream),
                   "launch_bare_gather");
  });
  // Vector j of the batch (sample j / vps) went to planes 0 and 1 at j, its bytes widened.
  std::vector<std::uint16_t> got(n * sample);
  fb::check_cuda(cudaMemcpy(got.data(), b.timed_out, 2 * n * sample, cudaMemcpyDeviceToHost), "cudaMemcpy");
  const std::size_t vectors = n * sample / 16;
  for (std::size_t j = 0; j < vectors; ++j)
    for (std::size_t k = 0; k < 16; ++k) {
      const std::size_t sample_k = j * 16 / sample, byte = j * 16 % sample + k;
      const std::uint8_t want = host_bytes[static_cast<std::size_t>(indices[sample_k]) * sample + byte];
      const std::uint16_t have = got[(k < 8 ? j : vectors + j) * 8 + k % 8];
      if (have != want) {
        std::fprintf(stderr, "ferry_bench_dataset: the bare gather's output differs at vector %zu byte %zu\n", j, k);
        std::exit(1);
      }
    }
  return ms;
}
#endif

}  // namespace

GatherRow measure_gather(Backend& b, ferry_dataset_t ds, const SetShape& s, const std::vector<std::int64_t>& order,
                         std::int64_t batch, bool augmented, const std::uint8_t* host_bytes, const Options& o) {
  Gatherer g{ds, order, batch};
  g.transform = gather_transform(augmented, g.augment, s.side);
  GatherRow row{augmented ? "CIFAR recipe: RandomCrop(pad 4) + flip, f16 NCHW normalized"
                          : "no augmentation: f16 NCHW normalized, no resize",
                batch, 0, 0, 0, 0, 0, -1, 0, augmented};
  gather_bytes(s, batch, g.transform, &row.in_bytes, &row.out_bytes);
  // The kernel alone: ferry's own timing of each single gather (events
  // around the kernel on a GPU, its stream held until the call returned;
  // the conversion's wall time on the CPU).
  ferry_submit_options held;
  ferry_submit_options_init(&held, sizeof held);
  ferry_output timed_out;
  ferry_output_init(&timed_out, sizeof timed_out);
#if FERRY_HAVE_CUDA
  held.handoff_stream = b.stream, held.has_handoff_stream = 1;
  timed_out.data = b.timed_out, timed_out.bytes = b.timed_out_bytes;
  // The copy first: its copies through memory not touched before leave the L2
  // cache and the GPU's address translations as a training step would, and
  // every row's kernel starts from there. Timed right after the upload (the
  // first row's place before), the CIFAR batch-256 kernel took 6.0 us against
  // 6.8-7.1 us elsewhere on an H200: the upload had just written its samples.
  if (b.gpu) {
    const std::size_t moved = row.in_bytes + row.out_bytes;
    row.copy_ms = held_copy_ms(b, moved / 2, o.reps);  // reads and writes `moved` bytes in all
  }
#endif
  std::vector<double> kernel, host;
  for (int r = -5; r < o.reps; ++r) {
    const std::uint64_t before_ns = convert_ns(b.ctx);
    ferry_batch_t batch_handle = nullptr;
    double call_ms = 0;
#if FERRY_HAVE_CUDA
    if (b.gpu) {
      // A gather into a caller's output handed this stream at submit starts
      // its kernel only after the stream's earlier work: held until the call
      // has returned, ferry's timing events around the kernel do not count
      // the host's work in the call (on an idle stream they would be
      // recorded before that work ends).
      ferry::test::StreamGate hold;
      fb::check_cuda(hold.close(b.stream), "cudaLaunchHostFunc");
      const auto t0 = Clock::now();
      batch_handle = g.gather(&held, &timed_out);
      call_ms = ms_since(t0);
    }
#endif
    if (!b.gpu) {
      const auto t0 = Clock::now();
      batch_handle = g.gather();
      call_ms = ms_since(t0);
    }
    check(ferry_batch_wait(batch_handle), "ferry_batch_wait");
    check(ferry_batch_release(batch_handle), "ferry_batch_release");
    const double ms = convert_ms_after(b.ctx, before_ns);
    if (r < 0) continue;  // warm-up
    kernel.push_back(ms);
    host.push_back(call_ms);
  }
  row.kernel_ms = fb::median(kernel);
  row.host_ms = fb::median(host);
#if FERRY_HAVE_CUDA
  // The bare gather right after ferry's, of the batches that follow, from the same state.
  if (b.gpu && b.set_copy != nullptr) row.bare_ms = bare_gather_ms(b, s, order, g.next, batch, host_bytes, o.reps);
  if (b.gpu) {
    ferry_submit_options so;
    ferry_submit_options_init(&so, sizeof so);
    so.handoff_stream = b.stream, so.has_handoff_stream = 1;
    row.burst_ms = fb::burst_ms(b.stream, o.reps, [&] { check(ferry_batch_release(g.gather(&so)), "ferry_batch_release"); });
  }
#endif
  if (!b.gpu) row.copy_ms = b.base->limit_ms(host_bytes, row.in_bytes, row.out_bytes, 1, o.reps);
  row.pipelined_ms = pipelined_ms(g, o.in_flight, o.batches, o.reps);
  return row;
}

}  // namespace ferry::bench::dataset
