// ferry example (C++): the staging loop of staging_loop.c with RAII owners,
// so every handle is released on every path, exceptions included.
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ferry/ferry.h"

namespace {

void check(ferry_status status, const char* what) {
  if (status != FERRY_OK)
    throw std::runtime_error(std::string(what) + ": " + ferry_status_string(status) + ": " + ferry_last_error());
}

struct ContextDeleter { void operator()(ferry_context_s* c) const { ferry_context_destroy(c); } };
struct BatchDeleter { void operator()(ferry_batch_s* b) const { ferry_batch_release(b); } };
using Context = std::unique_ptr<ferry_context_s, ContextDeleter>;
using Batch = std::unique_ptr<ferry_batch_s, BatchDeleter>;

Context make_context() {
  ferry_context_t ctx = nullptr;
  check(ferry_context_create(&ctx, nullptr), "ferry_context_create");
  return Context(ctx);
}

// Pinned memory from the context, given back when it goes out of scope.
class PinnedBuffer {
 public:
  PinnedBuffer(ferry_context_t ctx, size_t bytes) : ctx_(ctx), bytes_(bytes) {
    check(ferry_memory_alloc_host(&data_, ctx, bytes), "ferry_memory_alloc_host");
  }
  ~PinnedBuffer() { ferry_memory_free_host(ctx_, data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  unsigned char* data() const { return static_cast<unsigned char*>(data_); }
  size_t size() const { return bytes_; }

 private:
  ferry_context_t ctx_;
  void* data_ = nullptr;
  size_t bytes_;
};

}  // namespace

int main() try {
  constexpr int64_t n = 8, h = 48, w = 64, c = 3;
  Context ctx = make_context();
  PinnedBuffer frames(ctx.get(), static_cast<size_t>(n * h * w * c));

  ferry_transform transform;
  check(ferry_transform_init(&transform, sizeof transform), "ferry_transform_init");
  transform.out_dtype = FERRY_DTYPE_FLOAT16;
  transform.out_channels = 3;
  transform.channel_map[0] = 2; transform.channel_map[1] = 1; transform.channel_map[2] = 0;  // BGR -> RGB

  ferry_submit_options options;
  check(ferry_submit_options_init(&options, sizeof options), "ferry_submit_options_init");
  options.handoff_stream = nullptr;  // your cudaStream_t: it waits for each batch on the device
  options.has_handoff_stream = 1;

  for (int step = 0; step < 3; ++step) {
    std::memset(frames.data(), 10 * step, frames.size());
    ferry_source source;
    check(ferry_source_init(&source, sizeof source), "ferry_source_init");
    source.data = frames.data();
    source.bytes = frames.size();
    source.n = n; source.h = h; source.w = w; source.c = c;
    ferry_batch_t raw = nullptr;
    check(ferry_batch_submit(&raw, ctx.get(), &source, &transform, nullptr, &options), "ferry_batch_submit");
    Batch batch(raw);
    check(ferry_batch_wait(batch.get()), "ferry_batch_wait");
    ferry_tensor_info info;
    check(ferry_tensor_info_init(&info, sizeof info), "ferry_tensor_info_init");
    check(ferry_batch_describe_output(&info, batch.get()), "ferry_batch_describe_output");
    std::printf("step %d: float16 NCHW %lld x %lld x %lld x %lld, %zu bytes\n", step,
                static_cast<long long>(info.shape[0]), static_cast<long long>(info.shape[1]),
                static_cast<long long>(info.shape[2]), static_cast<long long>(info.shape[3]), info.bytes);
    if (info.bytes != static_cast<size_t>(n * c * h * w * 2)) throw std::runtime_error("unexpected output size");
  }
  std::puts("ok");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
