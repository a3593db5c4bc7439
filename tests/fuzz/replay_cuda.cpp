// The convert fuzz target's inputs on a CUDA context, checked against the CPU
// backend: each input (convert_case.h) is run through ferry_transform_apply and
// ferry_batch_submit on a CPU context and on a CUDA context; the statuses must
// agree, and where both succeed the GPU's output block (canaries and gaps
// included) must equal the CPU's (float32 within 1 ulp, the rest bit for bit).
// First every file given (a corpus), then random inputs for --seconds.
//   ferry_fuzz_convert_cuda [--seconds N] [--seed S] [--device D] FILE|DIR...
// Without a CUDA device it prints "skipped: no CUDA device" and exits 0.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "ferry/ferry.h"
#include "tests/fuzz/convert_case.h"

using namespace ferry::fuzz;

namespace {

long inputs = 0, compared = 0, agreed_errors = 0, mismatches = 0, skipped = 0, resized_compared = 0,
     own_sizes_compared = 0;

void mismatch(const std::string& what, const ConvertCase& c, const std::uint8_t* bytes, std::size_t size) {
  if (++mismatches <= 20) {
    std::string hex;
    char b[4];
    for (std::size_t i = 0; i < size && i < 512; ++i) std::snprintf(b, sizeof b, "%02x", bytes[i]), hex += b;
    std::fprintf(stderr, "replay_cuda: MISMATCH: %s\n  case: %s\n  input (hex): %s\n", what.c_str(),
                 describe(c).c_str(), hex.c_str());
  }
}

// A source that cannot be copied to the device: fine if the CPU backend
// refused the call too (a stand-in pointer), a finding if it accepted it.
void not_replayable(ferry_status cpu_st, const ConvertCase& c, const std::uint8_t* bytes, std::size_t size) {
  if (cpu_st == FERRY_OK)
    mismatch("the source the CPU backend converted cannot be copied to the device", c, bytes, size);
  else
    ++skipped;
}

// The input being replayed, for the report of a CUDA error (after which the
// process cannot go on): its bytes in hex, to replay it alone as a file.
const std::uint8_t* current_bytes = nullptr;
std::size_t current_size = 0;

[[noreturn]] void cuda_failed(const char* call, cudaError_t e) {
  std::fprintf(stderr, "replay_cuda: %s failed: %s\n  on input (hex): ", call, cudaGetErrorString(e));
  for (std::size_t i = 0; i < current_size; ++i) std::fprintf(stderr, "%02x", current_bytes[i]);
  std::fprintf(stderr, "\n");
  std::exit(2);
}

#define CUDA_CHECK(call)                    \
  do {                                      \
    const cudaError_t e_ = (call);          \
    if (e_ != cudaSuccess) cuda_failed(#call, e_); \
  } while (0)

// A device copy of a host buffer at the same address modulo 256 (unaligned stays unaligned).
// `ok` is false when the host range cannot be copied (an input's stand-in
// pointer or declared size that no buffer backs): the case is not replayable.
struct DeviceCopy {
  std::uint8_t* base = nullptr;
  std::uint8_t* ptr = nullptr;
  bool ok = true;
  DeviceCopy(const void* host, std::size_t bytes) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&base), bytes + 256));
    ptr = base + (reinterpret_cast<std::uintptr_t>(host) & 255);
    if (bytes > 0 && cudaMemcpy(ptr, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
      (void)cudaGetLastError();
      ok = false;
    }
  }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  ~DeviceCopy() { cudaFree(base); }
};

// GPU block against CPU block: float32 elements within 1 ulp, everything else identical.
// `offset`: where the output starts in the block (past the canary, or 0 for a ferry-allocated one).
std::string compare_blocks(const std::vector<std::uint8_t>& gpu, const std::uint8_t* cpu, std::size_t size,
                           int dtype, std::size_t offset) {
  for (std::size_t i = 0; i < size; ++i) {
    if (gpu[i] == cpu[i]) continue;
    if (dtype == FERRY_DTYPE_FLOAT32 && i >= offset) {
      const std::size_t at = offset + ((i - offset) & ~std::size_t{3});
      if (at + 4 <= size) {
        std::int32_t g, c;
        std::memcpy(&g, &gpu[at], 4);
        std::memcpy(&c, cpu + at, 4);
        if (static_cast<std::int64_t>(g) - c <= 1 && static_cast<std::int64_t>(c) - g <= 1) {
          i = at + 3;
          continue;
        }
      }
    }
    return "byte " + std::to_string(static_cast<long long>(i) - static_cast<long long>(offset)) + " of " +
           std::to_string(size - 2 * offset) + ": gpu " + std::to_string(gpu[i]) + ", cpu " + std::to_string(cpu[i]);
  }
  return "";
}

struct Contexts {
  ferry_context_t cpu = nullptr, gpu = nullptr;
  cudaStream_t stream = nullptr;  // a real stream for inputs that hand off to one
};

void run_one(const Contexts& ctx, const std::uint8_t* bytes, std::size_t size) {
  ++inputs;
  current_bytes = bytes, current_size = size;
  auto cp = decode_convert_case(bytes, size);
  ConvertCase& c = *cp;
  c.options.callback = nullptr;  // no callbacks: the two runs are compared after wait
  // A hand-off stream in an input is a stand-in (0x1000: the CPU backend
  // ignores streams); CUDA needs a real one (a garbage cudaStream_t crashes the
  // driver, and no API can tell one from a real one).
  if (c.options.handoff_stream != nullptr) c.options.handoff_stream = ctx.stream;
  c.set_options_struct();
  const bool submit = c.api == Api::submit_caller_output || c.api == Api::submit_ferry_output;
  const bool ferry_output = c.api == Api::submit_ferry_output || c.output_null;

  // ---- CPU ----
  ferry_status cpu_st;
  std::vector<std::uint8_t> cpu_block;
  int dtype = get_enum(c.eff_transform().out_dtype);
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  if (ferry_transform_describe_output(&info, c.source_ptr(), c.transform_ptr()) == FERRY_OK && ferry_output &&
      info.bytes > max_buffer)
    return;  // as the fuzz target: not submitted
  if (!submit) {
    cpu_st = ferry_transform_apply(ctx.cpu, c.source_ptr(), c.transform_ptr(), c.output_ptr(), nullptr);
    if (cpu_st == FERRY_OK) cpu_block.assign(c.out.whole(), c.out.whole() + c.out.whole_size());
  } else {
    ferry_batch_t b = nullptr;
    cpu_st = ferry_batch_submit(&b, ctx.cpu, c.source_ptr(), c.transform_ptr(), ferry_output ? nullptr : c.output_ptr(),
                                c.options_ptr());
    if (cpu_st == FERRY_OK) {
      cpu_st = ferry_batch_wait(b);
      if (cpu_st == FERRY_OK) {
        if (ferry_output) {
          ferry_batch_describe_output(&info, b);
          const auto* p = static_cast<const std::uint8_t*>(info.data);
          cpu_block.assign(p, p + info.bytes);
        } else {
          cpu_block.assign(c.out.whole(), c.out.whole() + c.out.whole_size());
        }
      }
      ferry_batch_release(b);
    }
  }
  // The output between fresh canaries again for the GPU run.
  const std::size_t out_bytes = c.out.size();
  c.out.reset(out_bytes);

  // ---- GPU: the source in device memory for ferry_transform_apply; host memory for submit ----
  std::vector<std::unique_ptr<DeviceCopy>> device_samples;
  std::unique_ptr<DeviceCopy> device_data;
  std::vector<std::unique_ptr<DeviceCopy>> device_descs;
  if (!submit) {
    if (c.source.sample_descs != nullptr) {
      // Samples of their own sizes: each entry's buffer copied, its data re-pointed.
      // The batch-wide fields may be set as well (a 0.2.0-sized struct reads them): below.
      // An entry pointing into the caller's output is re-pointed with the output, below.
      auto* d = reinterpret_cast<ferry_sample_desc*>(c.descs.data());
      for (std::size_t i = 0; i < c.desc_buffers.size(); ++i) {
        device_descs.push_back(std::make_unique<DeviceCopy>(c.desc_buffers[i]->data(), c.desc_buffers[i]->size()));
        if (!device_descs.back()->ok) {
          not_replayable(cpu_st, c, bytes, size);
          return;
        }
        if (d[i].data == c.desc_buffers[i]->data()) d[i].data = device_descs.back()->ptr;
      }
    }
    if (c.source.samples != nullptr) {
      // Each sample buffer copied once; every pointer to it (several may share one) re-pointed.
      for (const auto& sample : c.samples) {
        device_samples.push_back(std::make_unique<DeviceCopy>(sample->data(), sample->size()));
        if (!device_samples.back()->ok) {
          not_replayable(cpu_st, c, bytes, size);
          return;
        }
      }
      auto device_of = [&](const void* host) -> const void* {
        for (std::size_t j = 0; j < c.samples.size(); ++j)
          if (c.samples[j]->data() == host) return device_samples[j]->ptr;
        return host;
      };
      auto** ptrs = reinterpret_cast<const void**>(c.sample_pointers.data());
      const std::size_t count = c.sample_pointers.size() / sizeof(void*);
      for (std::size_t i = 0; i < count; ++i)
        if (ptrs[i] != nullptr) ptrs[i] = device_of(ptrs[i]);
      if (c.source.data != nullptr) c.source.data = device_of(c.source.data);
    } else if (c.source.data != nullptr) {
      device_data = std::make_unique<DeviceCopy>(c.source.data, c.source.bytes);
      if (!device_data->ok) {
        not_replayable(cpu_st, c, bytes, size);
        return;
      }
      c.source.data = device_data->ptr;
    }
    c.set_source_struct();
  }
  std::unique_ptr<DeviceCopy> device_out;
  if (!ferry_output) {
    device_out = std::make_unique<DeviceCopy>(c.out.whole(), c.out.whole_size());
    if (!device_out->ok) {
      not_replayable(cpu_st, c, bytes, size);
      return;
    }
    c.output.data = c.output.data == nullptr ? nullptr : device_out->ptr + Guarded::canary;
    c.set_output_struct();
    if (!submit && c.source.sample_descs != nullptr) {
      // A sample inside the caller's output (ferry must refuse the overlap) lies
      // inside the device output on the GPU, as a caller's would.
      auto* d = reinterpret_cast<ferry_sample_desc*>(c.descs.data());
      const std::uint8_t* lo = c.out.whole();
      for (std::size_t i = 0; i < c.descs.size() / sizeof(ferry_sample_desc); ++i) {
        const auto* p = static_cast<const std::uint8_t*>(d[i].data);
        if (p >= lo && p < lo + c.out.whole_size()) d[i].data = device_out->ptr + (p - lo);
      }
      c.set_source_struct();
    }
  }
  // cudaMemcpy from pageable memory may return before its DMA lands, and
  // ferry's streams do not wait for the legacy stream it ran on.
  CUDA_CHECK(cudaDeviceSynchronize());
  ferry_status gpu_st;
  std::vector<std::uint8_t> gpu_block;
  if (!submit) {
    gpu_st = ferry_transform_apply(ctx.gpu, c.source_ptr(), c.transform_ptr(), c.output_ptr(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  } else {
    ferry_batch_t b = nullptr;
    gpu_st = ferry_batch_submit(&b, ctx.gpu, c.source_ptr(), c.transform_ptr(), ferry_output ? nullptr : c.output_ptr(),
                                c.options_ptr());
    if (gpu_st == FERRY_OK) {
      gpu_st = ferry_batch_wait(b);
      if (gpu_st == FERRY_OK && ferry_output) {
        ferry_batch_describe_output(&info, b);
        gpu_block.resize(info.bytes);
        CUDA_CHECK(cudaMemcpy(gpu_block.data(), info.data, info.bytes, cudaMemcpyDeviceToHost));
      }
      ferry_batch_release(b);
    }
    // FERRY_SOURCE_REGISTER leaves the source in the registration cache, and
    // the caller must not free a registered buffer (ferry_memory_register_host): the
    // input's buffers are freed after this case, so drop the cache's entries.
    ferry_memory_trim(ctx.gpu, FERRY_MEMORY_REGISTERED);
  }
  if (device_out) {
    gpu_block.resize(c.out.whole_size());
    CUDA_CHECK(cudaMemcpy(gpu_block.data(), device_out->ptr, gpu_block.size(), cudaMemcpyDeviceToHost));
  }

  const ferry_transform et = c.eff_transform();
  const bool resized = !c.transform_null && (et.resize_w != 0 || et.resize_h != 0);
  const bool own_sizes = !c.source_null && c.eff_source().sample_descs != nullptr;
  if (gpu_st != cpu_st) {
    mismatch(std::string(submit ? "submit" : "convert") + ": cpu " + ferry_status_string(cpu_st) + ", gpu " +
                 ferry_status_string(gpu_st) + " (" + ferry_last_error() + ")",
             c, bytes, size);
    return;
  }
  if (cpu_st != FERRY_OK) {
    ++agreed_errors;
    // A refused call leaves the device output as it was.
    if (device_out && std::memcmp(gpu_block.data(), c.out.whole(), gpu_block.size()) != 0)
      mismatch("a refused call wrote the device output", c, bytes, size);
    return;
  }
  ++compared;
  if (resized) ++resized_compared;
  if (own_sizes) ++own_sizes_compared;
  if (gpu_block.size() != cpu_block.size()) {
    mismatch("output sizes differ", c, bytes, size);
    return;
  }
  const std::string diff =
      compare_blocks(gpu_block, cpu_block.data(), cpu_block.size(), dtype, ferry_output ? 0 : Guarded::canary);
  if (!diff.empty()) mismatch(std::string(submit ? "submit" : "convert") + ": " + diff, c, bytes, size);
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0;
  std::uint64_t seed = 1;
  int device = 0;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--device" && i + 1 < argc) {
      device = std::atoi(argv[++i]);
    } else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (std::filesystem::is_regular_file(a)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "usage: %s [--seconds N] [--seed S] [--device D] FILE|DIR...\n", argv[0]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  int count = 0;
  if (ferry_device_count(&count) != FERRY_OK || count <= device) {
    std::printf("replay_cuda: skipped: no CUDA device\n");
    return 0;
  }
  Contexts ctx;
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 2;
  if (ferry_context_create(&ctx.cpu, &o) != FERRY_OK) {
    std::fprintf(stderr, "replay_cuda: CPU context: %s\n", ferry_last_error());
    return 2;
  }
  o.device_kind = FERRY_DEVICE_CUDA;
  o.device_index = device;
  o.cpu_threads = 0;
  if (ferry_context_create(&ctx.gpu, &o) != FERRY_OK) {
    std::fprintf(stderr, "replay_cuda: CUDA context: %s\n", ferry_last_error());
    return 2;
  }
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
  for (const auto& f : files) {
    const std::vector<std::uint8_t> bytes = read_file(f);
    run_one(ctx, bytes.data(), bytes.size());
  }
  const long from_files = inputs;
  // Random descriptors: random bytes of random length, which the decoder maps mostly to valid cases.
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::uint8_t> bytes;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    bytes.resize(state % 160);
    fill_random(bytes.data(), bytes.size(), state);
    run_one(ctx, bytes.data(), bytes.size());
  }
  ferry_context_destroy(ctx.gpu);
  ferry_context_destroy(ctx.cpu);
  cudaStreamDestroy(ctx.stream);
  std::printf("replay_cuda: %ld inputs (%ld from files, %ld random), %ld outputs compared, %ld refused by both, "
              "%ld not replayable on the device, %ld resized and %ld sample_descs outputs among those compared, "
              "%ld mismatches\n",
              inputs, from_files, inputs - from_files, compared, agreed_errors, skipped, resized_compared,
              own_sizes_compared, mismatches);
  return mismatches == 0 ? 0 : 1;
}
