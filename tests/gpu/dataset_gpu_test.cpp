// Resident datasets (ferry/dataset.h) on the GPU, against the CPU backend: a
// CUDA and a CPU context build datasets from the same random sources (one
// pageable buffer, one pinned buffer uploaded in several parts, sample
// pointers, samples of different sizes with row pitches, a DistributedSampler
// shard) and gather the same epoch slices over several steps with CIFAR's
// training recipe, RandomResizedCrop + colour jitter + grayscale + erasing,
// and a uint8 identity: every output byte equal, the GPU outputs poisoned
// first (a caller's buffer between canaries; ferry-allocated blocks the test
// filled before giving them back, where the cache hands them out again), the
// drawn parameters equal. Also: a hand-off to the caller's stream read on that
// stream, a dataset destroyed while its gather is held in flight, the resident
// statistics and the device memory behind them, more memory than the device
// has, and indices out of range refused before anything runs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/gpu/gpu_test_util.h"

#if FERRY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tests/gpu/gpu_compare.h"
#include "tests/support/frame_cases.h"  // rgb_u8_transform: the uint8 NHWC identity
#include "tests/support/test_context.h"
#include "tests/support/variable_size_cases.h"

using namespace ferry::test;

namespace {

// GPU outputs start as kGpuPoison, CPU outputs as window_case_check.h's
// poison (0xCD): a byte neither backend wrote can never compare equal.
constexpr std::uint8_t kGpuPoison = 0xFF;

std::vector<std::uint8_t> random_bytes(std::size_t n, std::mt19937& rng) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

// One source both contexts build a dataset from, with the memory behind it.
struct SourceCase {
  std::string name;
  ferry_source source{};
  ferry_dataset_options options{};
  std::int64_t sample_bytes = 0;  // one size: h * w * c, samples packed
  std::vector<std::uint8_t> buffer;
  std::vector<std::vector<std::uint8_t>> pieces;
  std::vector<const void*> pointers;
  std::vector<VariableSample> variable;
  std::vector<ferry_sample_desc> descs;
  ferry_context_t pinned_owner = nullptr;
  void* pinned = nullptr;

  SourceCase(std::string n) : name(std::move(n)) {
    ferry_source_init(&source, sizeof source);
    ferry_dataset_options_init(&options, sizeof options);
  }
  ~SourceCase() {
    if (pinned != nullptr) ferry_memory_free_host(pinned_owner, pinned);
  }
  SourceCase(const SourceCase&) = delete;
  SourceCase& operator=(const SourceCase&) = delete;

  // Source sample g, packed h x w x c (one size only).
  const std::uint8_t* sample(std::int64_t g) const {
    if (source.samples != nullptr) return static_cast<const std::uint8_t*>(source.samples[g]);
    return static_cast<const std::uint8_t*>(source.data) + g * sample_bytes;
  }
};

// n h x w x 3 samples in one pageable buffer.
std::unique_ptr<SourceCase> one_buffer(std::string name, std::int64_t n, std::int64_t h, std::int64_t w,
                                       std::mt19937& rng) {
  auto s = std::make_unique<SourceCase>(std::move(name));
  s->sample_bytes = h * w * 3;
  s->buffer = random_bytes(static_cast<std::size_t>(n * s->sample_bytes), rng);
  s->source.data = s->buffer.data();
  s->source.bytes = s->buffer.size();
  s->source.n = n, s->source.h = h, s->source.w = w, s->source.c = 3;
  return s;
}

// The same in memory from ferry_memory_alloc_host (DMA'd, no staging copy).
std::unique_ptr<SourceCase> pinned_buffer(ferry_context_t gpu, std::int64_t n, std::int64_t h, std::int64_t w,
                                          std::mt19937& rng) {
  auto s = one_buffer("pinned buffer", n, h, w, rng);
  s->pinned_owner = gpu;
  EXPECT_EQ(ferry_memory_alloc_host(&s->pinned, gpu, s->buffer.size()), FERRY_OK) << ferry_last_error();
  if (s->pinned == nullptr) return s;
  std::memcpy(s->pinned, s->buffer.data(), s->buffer.size());
  s->buffer.clear();
  s->source.data = s->pinned;
  return s;
}

// n h x w x 3 samples, each in its own allocation, reached by pointer.
std::unique_ptr<SourceCase> sample_pointers(std::int64_t n, std::int64_t h, std::int64_t w, std::mt19937& rng) {
  auto s = std::make_unique<SourceCase>("sample pointers");
  s->sample_bytes = h * w * 3;
  for (std::int64_t i = 0; i < n; ++i) {
    s->pieces.push_back(random_bytes(static_cast<std::size_t>(s->sample_bytes), rng));
    s->pointers.push_back(s->pieces.back().data());
  }
  s->source.samples = s->pointers.data();
  s->source.sample_bytes = static_cast<std::size_t>(s->sample_bytes);
  s->source.n = n, s->source.h = h, s->source.w = w, s->source.c = 3;
  return s;
}

// n samples of 24-70 px a side (a 4-px padded RandomCrop of 32 fits), rows padded now and then.
std::unique_ptr<SourceCase> different_sizes(std::int64_t n, std::mt19937& rng) {
  auto s = std::make_unique<SourceCase>("samples of different sizes");
  std::uniform_int_distribution<int> side(24, 70);
  for (std::int64_t i = 0; i < n; ++i) s->variable.push_back(random_sample(rng, side(rng), side(rng), 3, FERRY_LAYOUT_NHWC));
  for (const VariableSample& v : s->variable) s->descs.push_back(v.desc());
  s->source = variable_source(s->descs, 3, FERRY_LAYOUT_NHWC);
  return s;
}

// Output bytes of a gather of n samples of a dataset shaped as `info` (described, never read).
std::size_t gather_bytes(const ferry_dataset_info& info, std::int64_t n, const ferry_transform& t) {
  static const std::uint8_t any = 0;
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = &any;
  s.n = n, s.h = info.h, s.w = info.w, s.c = info.c;
  s.layout = info.layout;
  s.bytes = static_cast<std::size_t>(n * info.h * info.w * info.c);
  ferry_tensor_info out;
  ferry_tensor_info_init(&out, sizeof out);
  EXPECT_EQ(ferry_transform_describe_output(&out, &s, &t), FERRY_OK) << ferry_last_error();
  return out.bytes;
}

// The gathers' transforms; `a` holds the augmentation the transform points at.
ferry_transform cifar_recipe(ferry_augment& a, std::uint64_t step) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT16;
  t.resize_w = t.resize_h = 32;
  const float mean[3] = {0.4914f, 0.4822f, 0.4465f}, stdev[3] = {0.2470f, 0.2435f, 0.2616f};
  for (int k = 0; k < 3; ++k) t.mean[k] = mean[k], t.std[k] = stdev[k];
  ferry_augment_init(&a, sizeof a);
  a.seed = 1234, a.step = step;
  a.crop = FERRY_AUGMENT_CROP_RANDOM;
  a.padding = 4;
  a.flip_x_probability = 0.5f;
  t.augment = &a;
  return t;
}

ferry_transform jitter_recipe(ferry_augment& a, std::uint64_t step) {
  ferry_transform t;
  ferry_transform_init(&t, sizeof t);
  t.out_dtype = FERRY_DTYPE_FLOAT32;
  t.resize_w = t.resize_h = 24;
  t.mean[0] = t.mean[1] = t.mean[2] = 0.5f;
  t.std[0] = t.std[1] = t.std[2] = 0.25f;
  ferry_augment_init(&a, sizeof a);
  a.seed = 99, a.step = step;
  a.crop = FERRY_AUGMENT_CROP_RANDOM_RESIZED;
  a.flip_x_probability = 0.5f;
  a.brightness[0] = a.contrast[0] = a.saturation[0] = 0.6f;
  a.brightness[1] = a.contrast[1] = a.saturation[1] = 1.4f;
  a.hue[0] = -0.1f, a.hue[1] = 0.1f;
  a.grayscale_probability = 0.2f;
  a.erase_probability = 0.5f;
  a.erase_fill = step % 2 ? FERRY_ERASE_RANDOM : FERRY_ERASE_VALUE;  // both fills over the steps
  t.augment = &a;
  return t;
}

// Holds a stream at a host function until open() (or 30 s, so that a broken
// test cannot hang): work queued behind it, and work made to wait for it,
// cannot start before. Needs no kernel of its own. Its destructor opens it
// and waits for the host function to return (a failed ASSERT between close
// and open must not leave the function reading a gate that is gone).
struct StreamGate {
  std::atomic<bool> opened{false}, timed_out{false}, closed{false}, returned{false};
  cudaError_t close(cudaStream_t stream) {
    const cudaError_t e = cudaLaunchHostFunc(stream, &StreamGate::hold, this);
    closed = e == cudaSuccess;
    return e;
  }
  void open() { opened = true; }
  ~StreamGate() {
    open();
    while (closed && !returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  static void CUDART_CB hold(void* self) {
    auto* g = static_cast<StreamGate*>(self);
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!g->opened) {
      if (std::chrono::steady_clock::now() > limit) {
        g->timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    g->returned = true;
  }
};

// Device memory with canary zones before and after `bytes` of poison.
struct GuardedOutput {
  std::uint8_t* base = nullptr;
  std::size_t bytes = 0;
  cudaError_t status;
  explicit GuardedOutput(std::size_t n) : bytes(n) {
    status = cudaMalloc(reinterpret_cast<void**>(&base), guard_bytes + n + guard_bytes);
    if (status == cudaSuccess) status = cudaMemset(base, canary, guard_bytes + n + guard_bytes);
    if (status == cudaSuccess) status = cudaMemset(base + guard_bytes, kGpuPoison, n);
    // cudaMemset is queued on the legacy stream, which ferry's non-blocking streams do not follow.
    if (status == cudaSuccess) status = cudaDeviceSynchronize();
  }
  ~GuardedOutput() { cudaFree(base); }
  GuardedOutput(const GuardedOutput&) = delete;
  GuardedOutput& operator=(const GuardedOutput&) = delete;
  void* data() const { return base + guard_bytes; }
  ferry_output output() const {
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = data(), o.bytes = bytes;
    return o;
  }
  // The output bytes, copied back on `stream` (after what it waits for), or
  // `problem` set when the copy fails or a canary was overwritten.
  std::vector<std::uint8_t> read(cudaStream_t stream, std::string& problem) const {
    std::vector<std::uint8_t> all(guard_bytes + bytes + guard_bytes);
    const cudaError_t copied = cudaMemcpyAsync(all.data(), base, all.size(), cudaMemcpyDeviceToHost, stream);
    const cudaError_t synced = cudaStreamSynchronize(stream);
    if (copied != cudaSuccess || synced != cudaSuccess) {
      problem = std::string("copy back: ") + cudaGetErrorString(copied != cudaSuccess ? copied : synced);
      return {};
    }
    for (std::size_t b = 0; b < guard_bytes; ++b)
      if (all[b] != canary || all[guard_bytes + bytes + b] != canary) {
        problem = "a canary beside the output was overwritten";
        return {};
      }
    return std::vector<std::uint8_t>(all.begin() + guard_bytes, all.end() - guard_bytes);
  }
};

struct DatasetPair {
  ferry_dataset_t cpu = nullptr, gpu = nullptr;
};

class DatasetGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    FERRY_REQUIRE_GPU();
    cpu_ = make_test_context(FERRY_DEVICE_CPU, 4);
    gpu_ = make_test_context(FERRY_DEVICE_CUDA, 4);
    ASSERT_NE(cpu_, nullptr);
    ASSERT_NE(gpu_, nullptr);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&reader_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    cases_.clear();  // pinned sources go back to the GPU context before it goes
    if (reader_ != nullptr) cudaStreamDestroy(reader_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    ferry_context_destroy(gpu_);
    ferry_context_destroy(cpu_);
  }

  ferry_stats stats() {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    EXPECT_EQ(ferry_stats_get(&s, gpu_), FERRY_OK) << ferry_last_error();
    return s;
  }

  static ferry_dataset_info info_of(ferry_dataset_t ds) {
    ferry_dataset_info info;
    ferry_dataset_info_init(&info, sizeof info);
    EXPECT_EQ(ferry_dataset_get_info(&info, ds), FERRY_OK) << ferry_last_error();
    return info;
  }

  // The same source on both contexts; their descriptions agree but for the device.
  DatasetPair create(const SourceCase& s) {
    DatasetPair p;
    EXPECT_EQ(ferry_dataset_create(&p.cpu, cpu_, &s.source, &s.options), FERRY_OK) << s.name << ": " << ferry_last_error();
    EXPECT_EQ(ferry_dataset_create(&p.gpu, gpu_, &s.source, &s.options), FERRY_OK) << s.name << ": " << ferry_last_error();
    if (p.cpu == nullptr || p.gpu == nullptr) return p;
    const ferry_dataset_info c = info_of(p.cpu), g = info_of(p.gpu);
    EXPECT_EQ(g.device_kind, FERRY_DEVICE_CUDA) << s.name;
    EXPECT_GE(g.device_index, 0) << s.name;
    EXPECT_EQ(c.device_kind, FERRY_DEVICE_CPU) << s.name;
    EXPECT_EQ(g.count, c.count) << s.name;
    EXPECT_EQ(g.source_count, c.source_count) << s.name;
    EXPECT_EQ(g.h, c.h) << s.name;
    EXPECT_EQ(g.w, c.w) << s.name;
    EXPECT_EQ(g.c, c.c) << s.name;
    EXPECT_EQ(g.layout, c.layout) << s.name;
    EXPECT_EQ(g.variable_sizes, c.variable_sizes) << s.name;
    EXPECT_EQ(g.bytes, c.bytes) << s.name;
    EXPECT_EQ(g.epoch_size, c.epoch_size) << s.name;
    EXPECT_EQ(g.placement, c.placement) << s.name;
    EXPECT_EQ(g.rank, c.rank) << s.name;
    EXPECT_GT(g.upload_seconds, 0.0) << s.name;
    return p;
  }

  // The CPU dataset's gather into a host buffer poisoned with 0xCD.
  std::vector<std::uint8_t> cpu_gather(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                       const ferry_transform& t) {
    std::vector<std::uint8_t> out(gather_bytes(info_of(ds), static_cast<std::int64_t>(indices.size()), t), poison);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out.data(), o.bytes = out.size();
    ferry_batch_t b = nullptr;
    EXPECT_EQ(ferry_dataset_gather(&b, ds, indices.data(), static_cast<std::int64_t>(indices.size()), &t, &o, nullptr),
              FERRY_OK)
        << ferry_last_error();
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
    ferry_batch_release(b);
    return out;
  }

  // The GPU dataset's gather into a caller's buffer (poisoned, between canaries).
  std::vector<std::uint8_t> gpu_gather_into_caller(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                                   const ferry_transform& t, std::string& problem) {
    const GuardedOutput out(gather_bytes(info_of(ds), static_cast<std::int64_t>(indices.size()), t));
    if (out.status != cudaSuccess) {
      problem = std::string("output buffer: ") + cudaGetErrorString(out.status);
      return {};
    }
    const ferry_output o = out.output();
    ferry_batch_t b = nullptr;
    if (ferry_dataset_gather(&b, ds, indices.data(), static_cast<std::int64_t>(indices.size()), &t, &o, nullptr) !=
            FERRY_OK ||
        ferry_batch_wait(b) != FERRY_OK) {
      problem = std::string("gather: ") + ferry_last_error();
      ferry_batch_release(b);
      return {};
    }
    ferry_batch_release(b);
    return out.read(stream_, problem);
  }

  // The GPU dataset's gather into memory ferry allocates. Each block is
  // filled with kGpuPoison before it goes back, so a later gather that gets
  // it again starts from poison (counted in reused_poisoned_).
  std::vector<std::uint8_t> gpu_gather_into_ferry(ferry_dataset_t ds, const std::vector<std::int64_t>& indices,
                                                  const ferry_transform& t, std::string& problem) {
    ferry_batch_t b = nullptr;
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    if (ferry_dataset_gather(&b, ds, indices.data(), static_cast<std::int64_t>(indices.size()), &t, nullptr,
                             nullptr) != FERRY_OK ||
        ferry_batch_wait(b) != FERRY_OK || ferry_batch_describe_output(&info, b) != FERRY_OK) {
      problem = std::string("gather: ") + ferry_last_error();
      ferry_batch_release(b);
      return {};
    }
    const auto known = poisoned_.find(info.data);
    if (known != poisoned_.end() && known->second >= info.bytes) ++reused_poisoned_;
    ++ferry_outputs_;
    std::vector<std::uint8_t> out(info.bytes);
    if (cudaMemcpy(out.data(), info.data, info.bytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemset(info.data, kGpuPoison, info.bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
      problem = "copy back or poison";
    poisoned_[info.data] = info.bytes;
    ferry_batch_release(b);
    // The block's free is stream-ordered: once the device is idle the cache may hand it out to any stream.
    if (cudaDeviceSynchronize() != cudaSuccess) problem = "cudaDeviceSynchronize";
    return out;
  }

  ferry_context_t cpu_ = nullptr, gpu_ = nullptr;
  cudaStream_t stream_ = nullptr, reader_ = nullptr;
  std::vector<std::unique_ptr<SourceCase>> cases_;
  std::map<void*, std::size_t> poisoned_;  // ferry-allocated blocks the test filled with kGpuPoison
  int ferry_outputs_ = 0, reused_poisoned_ = 0;
};

// Every recipe, several steps, every kind of source; both output kinds.
TEST_F(DatasetGpu, GathersEqualTheCpuBackendByteForByte) {
  std::mt19937 rng(17);
  cases_.push_back(one_buffer("pageable buffer", 500, 32, 32, rng));
  cases_.push_back(pinned_buffer(gpu_, 500, 32, 32, rng));
  cases_.back()->options.part_bytes = 37 * 32 * 32 * 3;  // 14 parts, the last of 19 samples
  cases_.push_back(sample_pointers(200, 36, 44, rng));
  cases_.push_back(different_sizes(120, rng));
  cases_.back()->options.part_bytes = 20000;  // parts end at every change of size
  cases_.push_back(one_buffer("shard 2 of 3", 500, 32, 32, rng));
  cases_.back()->options.placement = FERRY_DATASET_SHARD;
  cases_.back()->options.world_size = 3, cases_.back()->options.rank = 2;  // 167 places, the last wraps to 0
  cases_.back()->options.part_bytes = 50 * 32 * 32 * 3;

  std::vector<DatasetPair> pairs;
  std::uint64_t held = 0;
  for (const auto& s : cases_) {
    pairs.push_back(create(*s));
    ASSERT_NE(pairs.back().gpu, nullptr) << s->name;
    ASSERT_NE(pairs.back().cpu, nullptr) << s->name;
    held += info_of(pairs.back().gpu).bytes;
  }
  ferry_stats before = stats();
  EXPECT_EQ(before.resident_bytes, held);
  EXPECT_EQ(before.resident_datasets, cases_.size());

  int gpu_gathers = 0;
  for (std::size_t k = 0; k < cases_.size(); ++k) {
    const SourceCase& s = *cases_[k];
    const DatasetPair& p = pairs[k];
    const ferry_dataset_info info = info_of(p.gpu);
    for (std::uint64_t step = 0; step < 4; ++step) {
      // This step's slice of the epoch (the same order on both backends), the last sample and a repeat.
      const std::uint64_t epoch = step / 2;
      std::vector<std::int64_t> order(static_cast<std::size_t>(info.epoch_size)), cpu_order(order.size());
      ASSERT_EQ(ferry_dataset_epoch(order.data(), info.epoch_size, p.gpu, 5, epoch, 1), FERRY_OK) << ferry_last_error();
      ASSERT_EQ(ferry_dataset_epoch(cpu_order.data(), info.epoch_size, p.cpu, 5, epoch, 1), FERRY_OK);
      EXPECT_EQ(order, cpu_order) << s.name;
      std::vector<std::int64_t> indices;
      for (std::int64_t i = 0; i < 64; ++i)
        indices.push_back(order[static_cast<std::size_t>((static_cast<std::int64_t>(step % 2) * 64 + i) % info.epoch_size)]);
      indices.push_back(info.count - 1);
      indices.push_back(indices.front());
      const auto n = static_cast<std::int64_t>(indices.size());

      for (int recipe = 0; recipe < 3; ++recipe) {
        ferry_augment augment{};  // the identity leaves it unread
        ferry_transform t = recipe == 0 ? cifar_recipe(augment, step)
                            : recipe == 1 ? jitter_recipe(augment, step)
                                          : rgb_u8_transform();  // uint8 NHWC, as stored
        const std::string what = s.name + ", step " + std::to_string(step) + ", recipe " +
                                 (recipe == 0 ? "CIFAR" : recipe == 1 ? "RandomResizedCrop + jitter" : "uint8 identity");
        if (recipe == 2 && info.variable_sizes) {
          // Samples of different sizes have no one output size without a resize: refused alike, nothing run.
          ferry_batch_t b = nullptr;
          EXPECT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), n, &t, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
          EXPECT_NE(std::string(ferry_last_error()).find("resize"), std::string::npos) << ferry_last_error();
          EXPECT_EQ(ferry_dataset_gather(&b, p.cpu, indices.data(), n, &t, nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
          EXPECT_EQ(b, nullptr);
          continue;
        }
        std::vector<ferry_augment_params> cpu_drawn(indices.size()), gpu_drawn(indices.size());
        augment.drawn = cpu_drawn.data();
        const std::vector<std::uint8_t> want = cpu_gather(p.cpu, indices, t);
        augment.drawn = gpu_drawn.data();
        std::string problem;
        const bool caller = (step + static_cast<std::uint64_t>(recipe)) % 2 == 0;
        const std::vector<std::uint8_t> got = caller ? gpu_gather_into_caller(p.gpu, indices, t, problem)
                                                     : gpu_gather_into_ferry(p.gpu, indices, t, problem);
        ++gpu_gathers;
        ASSERT_EQ(problem, "") << what;
        EXPECT_EQ(first_difference(got, want), "") << what << (caller ? ", caller's output" : ", ferry's output");
        if (recipe < 2) {
          EXPECT_EQ(std::memcmp(cpu_drawn.data(), gpu_drawn.data(), cpu_drawn.size() * sizeof(ferry_augment_params)), 0)
              << what << ": the drawn parameters differ";
        } else {
          // uint8 NHWC identity: the source samples themselves, as each dataset index maps to the source.
          for (std::int64_t i = 0; i < n; ++i) {
            std::int64_t g = -1;
            ASSERT_EQ(ferry_dataset_source_index(&g, p.gpu, indices[static_cast<std::size_t>(i)]), FERRY_OK);
            ASSERT_EQ(std::memcmp(got.data() + i * s.sample_bytes, s.sample(g), static_cast<std::size_t>(s.sample_bytes)), 0)
                << what << ": batch sample " << i << " (source sample " << g << ")";
          }
        }
      }
    }
  }
  // A gather moves nothing over the bus: no input bytes counted, every gather completed.
  const ferry_stats after = stats();
  EXPECT_EQ(after.input_bytes, before.input_bytes);
  EXPECT_EQ(after.batches_completed - before.batches_completed, static_cast<std::uint64_t>(gpu_gathers));
  EXPECT_EQ(after.batches_failed, before.batches_failed);
  std::printf("[          ] %d of %d ferry-allocated outputs landed on a block the test had filled with 0x%02X\n",
              reused_poisoned_, ferry_outputs_, kGpuPoison);
  for (DatasetPair& p : pairs) {
    EXPECT_EQ(ferry_dataset_destroy(p.gpu), FERRY_OK);
    EXPECT_EQ(ferry_dataset_destroy(p.cpu), FERRY_OK);
  }
  EXPECT_EQ(stats().resident_bytes, 0u);
  EXPECT_EQ(stats().resident_datasets, 0u);
}

// A big gather handed off to the caller's stream: work queued there after
// the hand-off sees the finished output without any host wait.
TEST_F(DatasetGpu, HandOffToACallersStreamIsReadOnThatStream) {
  std::mt19937 rng(23);
  cases_.push_back(one_buffer("pageable buffer", 4096, 32, 32, rng));
  const DatasetPair p = create(*cases_.back());
  ASSERT_NE(p.gpu, nullptr);
  std::vector<std::int64_t> indices(4096);
  ASSERT_EQ(ferry_dataset_epoch(indices.data(), 4096, p.gpu, 3, 0, 1), FERRY_OK);
  ferry_augment augment;
  const ferry_transform t = jitter_recipe(augment, 8);
  const std::vector<std::uint8_t> want = cpu_gather(p.cpu, indices, t);

  {
    // ferry_batch_handoff onto reader_, the gather held back by a gate: the
    // whole read is queued on reader_ while the gate is closed, so if reader_
    // did not wait for the batch it would copy the poison.
    SCOPED_TRACE("ferry_batch_handoff, caller's output");
    GuardedOutput out(want.size());
    ASSERT_EQ(out.status, cudaSuccess);
    void* host = nullptr;  // pinned: a copy into pageable memory would block the host until the gate opens
    ASSERT_EQ(ferry_memory_alloc_host(&host, gpu_, want.size()), FERRY_OK);
    StreamGate gate;
    ASSERT_EQ(gate.close(stream_), cudaSuccess);
    ferry_submit_options so;
    ferry_submit_options_init(&so, sizeof so);
    so.handoff_stream = stream_, so.has_handoff_stream = 1;  // a caller's output waits for its stream: the gate
    const ferry_output o = out.output();
    ferry_batch_t b = nullptr;
    EXPECT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), 4096, &t, &o, &so), FERRY_OK) << ferry_last_error();
    EXPECT_EQ(ferry_batch_handoff(b, reader_), FERRY_OK) << ferry_last_error();
    EXPECT_EQ(cudaMemcpyAsync(host, out.data(), want.size(), cudaMemcpyDeviceToHost, reader_), cudaSuccess);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(cudaStreamQuery(reader_), cudaErrorNotReady) << "the hand-off stream did not wait for the gather";
    EXPECT_EQ(ferry_batch_query(b), FERRY_ERR_NOT_READY);
    gate.open();
    EXPECT_EQ(cudaStreamSynchronize(reader_), cudaSuccess);
    EXPECT_FALSE(gate.timed_out);
    const auto* read = static_cast<const std::uint8_t*>(host);
    EXPECT_EQ(first_difference(std::vector<std::uint8_t>(read, read + want.size()), want), "");
    std::string problem;
    out.read(reader_, problem);  // the canaries
    EXPECT_EQ(problem, "");
    EXPECT_EQ(ferry_batch_wait(b), FERRY_OK);
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
    ferry_memory_free_host(gpu_, host);
  }
  {
    // The hand-off in the gather's options, into memory ferry allocates:
    // first a gather of the same size whose block is poisoned and given back.
    SCOPED_TRACE("options.handoff_stream, ferry's output");
    std::string problem;
    EXPECT_EQ(first_difference(gpu_gather_into_ferry(p.gpu, indices, t, problem), want), "");
    ASSERT_EQ(problem, "");
    ferry_submit_options so;
    ferry_submit_options_init(&so, sizeof so);
    so.handoff_stream = reader_, so.has_handoff_stream = 1;
    ferry_batch_t b = nullptr;
    ASSERT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), 4096, &t, nullptr, &so), FERRY_OK) << ferry_last_error();
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    ASSERT_EQ(ferry_batch_describe_output(&info, b), FERRY_OK);
    ASSERT_EQ(info.bytes, want.size());
    std::printf("[          ] the hand-off's output %s the block poisoned before\n",
                poisoned_.count(info.data) ? "reuses" : "does not reuse");
    void* host = nullptr;  // pinned: the read is queued on reader_, truly asynchronous
    ASSERT_EQ(ferry_memory_alloc_host(&host, gpu_, info.bytes), FERRY_OK);
    EXPECT_EQ(cudaMemcpyAsync(host, info.data, info.bytes, cudaMemcpyDeviceToHost, reader_), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(reader_), cudaSuccess);
    const std::vector<std::uint8_t> got(static_cast<std::uint8_t*>(host), static_cast<std::uint8_t*>(host) + info.bytes);
    EXPECT_EQ(first_difference(got, want), "");
    EXPECT_EQ(ferry_batch_release(b), FERRY_OK);  // no wait: the hand-off was enough
    ferry_memory_free_host(gpu_, host);
  }
  ferry_dataset_destroy(p.gpu);
  ferry_dataset_destroy(p.cpu);
}

// The gather is held in flight by a gate on its hand-off stream while its
// dataset is destroyed: the batch keeps the memory, and its output is right.
TEST_F(DatasetGpu, ADatasetDestroyedWhileItsGatherIsInFlightStillGivesItsOutput) {
  std::mt19937 rng(29);
  cases_.push_back(one_buffer("pageable buffer", 2048, 32, 32, rng));
  const DatasetPair p = create(*cases_.back());
  ASSERT_NE(p.gpu, nullptr);
  const std::uint64_t bytes = info_of(p.gpu).bytes;
  std::vector<std::int64_t> indices(2048);
  ASSERT_EQ(ferry_dataset_epoch(indices.data(), 2048, p.gpu, 4, 1, 1), FERRY_OK);
  ferry_augment augment;
  const ferry_transform t = cifar_recipe(augment, 3);
  const std::vector<std::uint8_t> want = cpu_gather(p.cpu, indices, t);
  const ferry_stats before = stats();
  ASSERT_EQ(before.resident_bytes, bytes);

  GuardedOutput out(want.size());
  ASSERT_EQ(out.status, cudaSuccess);
  StreamGate gate;
  ASSERT_EQ(gate.close(stream_), cudaSuccess);
  ferry_submit_options so;
  ferry_submit_options_init(&so, sizeof so);
  so.handoff_stream = stream_, so.has_handoff_stream = 1;
  const ferry_output o = out.output();
  ferry_batch_t b = nullptr;
  ASSERT_EQ(ferry_dataset_gather(&b, p.gpu, indices.data(), 2048, &t, &o, &so), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_batch_query(b), FERRY_ERR_NOT_READY);  // in flight for certain: the gate holds it
  ASSERT_EQ(ferry_dataset_destroy(p.gpu), FERRY_OK);
  EXPECT_EQ(ferry_dataset_destroy(p.gpu), FERRY_ERR_INVALID_HANDLE);
  ferry_dataset_info gone;
  ferry_dataset_info_init(&gone, sizeof gone);
  EXPECT_EQ(ferry_dataset_get_info(&gone, p.gpu), FERRY_ERR_INVALID_HANDLE);
  // The handle is gone, the memory is not: the batch holds it.
  EXPECT_EQ(stats().resident_bytes, bytes);
  EXPECT_EQ(stats().resident_datasets, 1u);
  gate.open();
  ASSERT_EQ(ferry_batch_wait(b), FERRY_OK) << ferry_last_error();
  EXPECT_FALSE(gate.timed_out);
  std::string problem;
  const std::vector<std::uint8_t> got = out.read(stream_, problem);
  ASSERT_EQ(problem, "");
  EXPECT_EQ(first_difference(got, want), "");
  EXPECT_EQ(ferry_batch_release(b), FERRY_OK);
  EXPECT_EQ(stats().resident_bytes, 0u);
  EXPECT_EQ(stats().resident_datasets, 0u);
  ferry_dataset_destroy(p.cpu);
}

std::size_t device_free_bytes() {
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  return free_bytes;
}

// The statistics count each dataset's device memory, which really is taken
// from the device and given back at destroy.
TEST_F(DatasetGpu, StatisticsCountTheDeviceMemoryHeld) {
  std::mt19937 rng(31);
  cases_.push_back(one_buffer("96 MiB", 32768, 32, 32, rng));
  cases_.push_back(one_buffer("small", 10, 8, 8, rng));
  ferry_dataset_t big = nullptr, small = nullptr;
  // The upload's own buffers (staging ring, stream inputs) are made by a first dataset.
  ASSERT_EQ(ferry_dataset_create(&small, gpu_, &cases_[1]->source, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto free_before = static_cast<std::int64_t>(device_free_bytes());
  ASSERT_EQ(ferry_dataset_create(&big, gpu_, &cases_[0]->source, nullptr), FERRY_OK) << ferry_last_error();
  const auto free_with = static_cast<std::int64_t>(device_free_bytes());
  const std::uint64_t big_bytes = info_of(big).bytes, small_bytes = info_of(small).bytes;
  EXPECT_EQ(big_bytes, 32768u * 32 * 32 * 3);
  EXPECT_GE(free_before - free_with, static_cast<std::int64_t>(big_bytes)) << "the dataset is not in device memory";
  ferry_stats s = stats();
  EXPECT_EQ(s.resident_bytes, big_bytes + small_bytes);
  EXPECT_EQ(s.resident_datasets, 2u);
  ASSERT_EQ(ferry_stats_reset(gpu_), FERRY_OK);  // a gauge: a reset leaves it
  EXPECT_EQ(stats().resident_bytes, big_bytes + small_bytes);
  ASSERT_EQ(ferry_dataset_destroy(big), FERRY_OK);
  EXPECT_GE(static_cast<std::int64_t>(device_free_bytes()) - free_with, static_cast<std::int64_t>(big_bytes))
      << "the dataset's memory did not go back";
  s = stats();
  EXPECT_EQ(s.resident_bytes, small_bytes);
  EXPECT_EQ(s.resident_datasets, 1u);
  ASSERT_EQ(ferry_dataset_destroy(small), FERRY_OK);
  EXPECT_EQ(stats().resident_bytes, 0u);
  EXPECT_EQ(stats().resident_datasets, 0u);
}

// More memory than the device has: FERRY_ERR_OUT_OF_MEMORY naming the bytes
// and the device's memory; no handle, no statistic moved, no memory kept.
// The sources claim bytes they do not have: nothing reads them before the
// allocation fails.
TEST_F(DatasetGpu, MoreThanTheDeviceHasIsOutOfMemoryAndLeavesNothing) {
  std::mt19937 rng(37);
  cases_.push_back(one_buffer("tiny", 4, 4, 4, rng));
  ferry_dataset_t warm = nullptr;  // the context's upload buffers exist before anything is measured
  ASSERT_EQ(ferry_dataset_create(&warm, gpu_, &cases_[0]->source, nullptr), FERRY_OK) << ferry_last_error();
  ASSERT_EQ(ferry_dataset_destroy(warm), FERRY_OK);
  std::size_t free_before = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  const ferry_stats before = stats();

  // 2^20 samples of 2^15 x 2^15 x 4 (2^52 bytes); and just past the device's whole memory, 4 GiB samples.
  const std::int64_t side = std::int64_t{1} << 15, sample = side * side * 4;
  const std::int64_t counts[] = {std::int64_t{1} << 20, static_cast<std::int64_t>(total) / sample + 1};
  for (std::int64_t n : counts) {
    ferry_source huge = cases_[0]->source;
    huge.n = n, huge.h = side, huge.w = side, huge.c = 4;
    huge.bytes = static_cast<std::size_t>(n * sample);
    ferry_dataset_t ds = nullptr;
    EXPECT_EQ(ferry_dataset_create(&ds, gpu_, &huge, nullptr), FERRY_ERR_OUT_OF_MEMORY) << n << " samples";
    const std::string message = ferry_last_error();
    EXPECT_NE(message.find(std::to_string(n * sample) + " bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("device memory"), std::string::npos) << message;
    EXPECT_NE(message.find("of " + std::to_string(total) + " are free"), std::string::npos) << message;
    EXPECT_EQ(ds, nullptr);
  }
  const ferry_stats after = stats();
  EXPECT_EQ(after.resident_bytes, before.resident_bytes);
  EXPECT_EQ(after.resident_datasets, before.resident_datasets);
  EXPECT_EQ(after.device_in_use_bytes, before.device_in_use_bytes);
  EXPECT_EQ(after.device_cached_bytes, before.device_cached_bytes);
  EXPECT_EQ(after.pinned_in_use_bytes, before.pinned_in_use_bytes);
  EXPECT_EQ(after.batches_submitted, before.batches_submitted);
  EXPECT_EQ(after.batches_unreleased, before.batches_unreleased);
  EXPECT_GE(device_free_bytes(), free_before) << "device memory was kept";
  // The context is unharmed.
  ASSERT_EQ(ferry_dataset_create(&warm, gpu_, &cases_[0]->source, nullptr), FERRY_OK) << ferry_last_error();
  EXPECT_EQ(ferry_dataset_destroy(warm), FERRY_OK);
}

// An index past the end (or negative) is FERRY_ERR_OUT_OF_RANGE on both
// backends before any work: no batch, nothing submitted, the output untouched.
TEST_F(DatasetGpu, IndicesOutOfRangeAreRefusedBeforeAnythingRuns) {
  std::mt19937 rng(41);
  cases_.push_back(one_buffer("pageable buffer", 50, 32, 32, rng));
  const DatasetPair p = create(*cases_.back());
  ASSERT_NE(p.gpu, nullptr);
  ferry_augment augment;
  const ferry_transform t = cifar_recipe(augment, 0);
  GuardedOutput out(gather_bytes(info_of(p.gpu), 3, t));
  ASSERT_EQ(out.status, cudaSuccess);
  const ferry_output o = out.output();
  const ferry_stats before = stats();
  const std::vector<std::vector<std::int64_t>> bad{{0, 1, 50}, {-1, 0, 1}, {49, std::int64_t{1} << 40, 0}};
  for (const auto& indices : bad) {
    for (ferry_dataset_t ds : {p.gpu, p.cpu}) {
      ferry_batch_t b = nullptr;
      EXPECT_EQ(ferry_dataset_gather(&b, ds, indices.data(), 3, &t, ds == p.gpu ? &o : nullptr, nullptr),
                FERRY_ERR_OUT_OF_RANGE);
      const std::string message = ferry_last_error();
      const std::size_t at = indices[0] < 0 ? 0 : indices[1] > 49 ? 1 : 2;
      EXPECT_NE(message.find("indices[" + std::to_string(at) + "] is " + std::to_string(indices[at])),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("50 samples"), std::string::npos) << message;
      EXPECT_EQ(b, nullptr);
    }
  }
  const ferry_stats after = stats();
  EXPECT_EQ(after.batches_submitted, before.batches_submitted);
  EXPECT_EQ(after.batches_unreleased, before.batches_unreleased);
  EXPECT_EQ(after.device_in_use_bytes, before.device_in_use_bytes);
  std::string problem;
  const std::vector<std::uint8_t> untouched = out.read(stream_, problem);
  ASSERT_EQ(problem, "");
  EXPECT_EQ(first_difference(untouched, std::vector<std::uint8_t>(out.bytes, kGpuPoison)), "");
  std::int64_t g = 0;
  EXPECT_EQ(ferry_dataset_source_index(&g, p.gpu, 50), FERRY_ERR_OUT_OF_RANGE);
  ferry_dataset_destroy(p.gpu);
  ferry_dataset_destroy(p.cpu);
}

}  // namespace

#else
TEST(DatasetGpu, GathersEqualTheCpuBackendByteForByte) { GTEST_SKIP() << "built without the CUDA backend"; }
#endif
