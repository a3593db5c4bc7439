// A multi-threaded stress test of the C ABI on the CPU backend, meant for
// ThreadSanitizer (and ASan): several contexts; threads submitting batches
// (blocking and non-blocking, with and without callbacks, a callback that
// submits) and checking every output against the scalar reference; one thread
// destroying and recreating a context that the others keep using; threads
// abusing handles (waiting on others' batches, releasing released ones,
// calling on destroyed contexts, foreign handles); one thread on the memory API.
// Every status must be one the C ABI documents for the situation.
//   ferry_stress_test [seconds=5] [submit_threads=4]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/support/convert_reference.h"

namespace {

std::atomic<bool> stop{false};
std::atomic<long> failures{0};
std::atomic<long> ops{0};
std::mutex print_mutex;

void failure(const char* what, ferry_status st, const char* message) {
  if (failures.fetch_add(1) < 20) {
    std::lock_guard<std::mutex> lock(print_mutex);
    std::fprintf(stderr, "stress: FAILURE: %s: %s (%s)\n", what, ferry_status_string(st), message);
  }
}

ferry_context_t make_context(int kind) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 1 + kind % 2;
  o.staging_threads = 1;
  o.max_batches_in_flight = 1 + kind % 3;
  o.submit_nonblocking = kind == 2;
  ferry_context_t ctx = nullptr;
  const ferry_status st = ferry_context_create(&ctx, &o);
  if (st != FERRY_OK) failure("ferry_context_create", st, ferry_last_error());
  return ctx;
}

// Contexts 0..2 live for the whole run; slot 3 is destroyed and recreated all along.
constexpr int long_lived = 3;
std::atomic<ferry_context_t> contexts[long_lived + 1];

// A source no one ever frees: batches whose handles other threads may release
// early read it (and write a ferry-allocated output).
std::vector<std::uint8_t>& shared_pixels() {
  static std::vector<std::uint8_t> pixels = [] {
    std::vector<std::uint8_t> p(4 * 16 * 16 * 3);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(i * 37 + 11);
    return p;
  }();
  return pixels;
}

ferry_source shared_source() {
  ferry_source s;
  ferry_source_init(&s, sizeof s);
  s.data = shared_pixels().data();
  s.bytes = shared_pixels().size();
  s.n = 4, s.h = 16, s.w = 16, s.c = 3;
  return s;
}

// Handles shared with the abuse threads: recent batches, live or released.
struct HandleBoard {
  std::mutex mutex;
  std::vector<ferry_batch_t> seen;
  std::vector<ferry_batch_t> abusable;  // ferry-allocated output, shared source: anyone may release
  void publish(ferry_batch_t b, bool may_release) {
    std::lock_guard<std::mutex> lock(mutex);
    if (seen.size() > 64) seen.erase(seen.begin());
    seen.push_back(b);
    if (may_release) {
      if (abusable.size() > 64) abusable.erase(abusable.begin());
      abusable.push_back(b);
    }
  }
  ferry_batch_t any(std::mt19937& rng, bool releasable) {
    std::lock_guard<std::mutex> lock(mutex);
    auto& v = releasable ? abusable : seen;
    if (v.empty()) return nullptr;
    return v[rng() % v.size()];
  }
} board;

// Tensor references to outputs, released by other threads, some after their context is gone.
std::mutex tensor_mutex;
std::vector<ferry_tensor_t> tensors;

// Reads a referenced output (a use after free is a sanitizer report) and releases it.
void read_and_release(ferry_tensor_t t) {
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  const ferry_status ds = ferry_tensor_describe(&info, t);
  if (ds != FERRY_OK) {
    failure("ferry_tensor_describe", ds, ferry_last_error());
  } else {
    volatile unsigned sum = 0;
    const auto* p = static_cast<const std::uint8_t*>(info.data);
    for (std::size_t i = 0; i < info.bytes; i += 64) sum = sum + p[i];
  }
  const ferry_status rs = ferry_tensor_release(t);
  if (rs != FERRY_OK) failure("ferry_tensor_release", rs, ferry_last_error());
  if (ferry_tensor_release(t) != FERRY_ERR_INVALID_HANDLE) failure("a second tensor release", FERRY_OK, "");
}

std::atomic<long> callbacks{0};
std::mutex orphan_mutex;
std::vector<ferry_batch_t> orphans;  // batches submitted from callbacks

// user_data: the batch's context. Every 16th callback tries to destroy it (a documented
// misuse: a status, never std::terminate); every 4th submits another batch.
void on_complete(ferry_batch_t batch, ferry_status status, void* user_data) {
  const long call = callbacks.fetch_add(1);
  const ferry_status q = ferry_batch_query(batch);
  if (q != status && q != FERRY_ERR_INVALID_HANDLE) failure("query from a callback differs", q, "");
  if (call % 16 == 5) {
    const ferry_status ds = ferry_context_destroy(static_cast<ferry_context_t>(user_data));
    if (ds == FERRY_OK || ds == FERRY_ERR_INTERNAL) failure("ferry_context_destroy from a callback", ds, ferry_last_error());
  }
  if (call % 4 == 1) {
    // Submitting from a callback never blocks (BUSY at the limit).
    auto ctx = static_cast<ferry_context_t>(user_data);
    const ferry_source s = shared_source();
    ferry_batch_t b = nullptr;
    const ferry_status st = ferry_batch_submit(&b, ctx, &s, nullptr, nullptr, nullptr);
    if (st == FERRY_OK) {
      std::lock_guard<std::mutex> lock(orphan_mutex);
      orphans.push_back(b);
    } else if (st != FERRY_ERR_BUSY && st != FERRY_ERR_INVALID_HANDLE) {
      failure("submit from a callback", st, ferry_last_error());
    }
  }
}

// A status ferry documents, not a bug. FERRY_ERR_OUTPUT_TOO_SMALL is the last (new ones are appended).
bool known_failure(ferry_status st) {
  return st != FERRY_ERR_INTERNAL && st >= FERRY_OK && st <= FERRY_ERR_OUTPUT_TOO_SMALL;
}

void submitter(int id) {
  std::mt19937 rng(static_cast<std::uint32_t>(id * 7919 + 1));
  while (!stop) {
    const int slot = static_cast<int>(rng() % (long_lived + 1));
    const bool churned = slot == long_lived;
    ferry_context_t ctx = contexts[slot].load();
    const bool abusable = rng() % 4 == 0;
    // A small case: dtype, crop, mirror, channel order vary.
    const std::int64_t n = 1 + rng() % 3, h = 3 + rng() % 13, w = 3 + rng() % 21;
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(n * h * w * 3));
    for (auto& p : pixels) p = static_cast<std::uint8_t>(rng());
    ferry_source s;
    if (abusable) {
      s = shared_source();
    } else {
      ferry_source_init(&s, sizeof s);
      s.data = pixels.data(), s.bytes = pixels.size(), s.n = n, s.h = h, s.w = w, s.c = 3;
    }
    ferry_transform t;
    ferry_transform_init(&t, sizeof t);
    const ferry_dtype dtypes[] = {FERRY_DTYPE_FLOAT32, FERRY_DTYPE_FLOAT16, FERRY_DTYPE_BFLOAT16, FERRY_DTYPE_UINT8};
    t.out_dtype = dtypes[rng() % 4];
    t.out_layout = rng() % 2 ? FERRY_LAYOUT_NCHW : FERRY_LAYOUT_NHWC;
    if (rng() % 2) t.out_channels = 3, t.channel_map[0] = 2, t.channel_map[1] = 1, t.channel_map[2] = 0;
    t.mirror = static_cast<int>(rng() % 4);
    if (rng() % 3 == 0) {
      t.crop = ferry_rect{static_cast<std::int64_t>(rng() % 5) - 2, 1, 3, 2};
      t.pad_outside = 1;
    }
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    if (ferry_transform_describe_output(&info, &s, &t) != FERRY_OK) {
      failure("output_info", FERRY_ERR_INTERNAL, ferry_last_error());
      continue;
    }
    std::vector<std::uint8_t> out(info.bytes, 0xCD);
    ferry_output o;
    ferry_output_init(&o, sizeof o);
    o.data = out.data(), o.bytes = out.size();
    ferry_submit_options opts;
    ferry_submit_options_init(&opts, sizeof opts);
    if (rng() % 3 == 0) {
      opts.callback = on_complete;
      opts.user_data = static_cast<void*>(ctx);
    }
    if (rng() % 4 == 0) opts.chunk_bytes = 1 + rng() % 2048;
    if (rng() % 4 == 0) opts.source_policy = FERRY_SOURCE_STAGE;

    ferry_batch_t b = nullptr;
    const ferry_status st = ferry_batch_submit(&b, ctx, &s, &t, abusable ? nullptr : &o, &opts);
    ops.fetch_add(1);
    if (st != FERRY_OK) {
      const bool ok = (churned && known_failure(st)) || st == FERRY_ERR_BUSY;
      if (!ok) failure("submit", st, ferry_last_error());
      continue;
    }
    board.publish(b, abusable);
    const ferry_status ws = rng() % 3 ? ferry_batch_wait(b) : [&] {
      ferry_status q;
      while ((q = ferry_batch_query(b)) == FERRY_ERR_NOT_READY) std::this_thread::yield();
      return q;
    }();
    if (ws != FERRY_OK && !(churned && known_failure(ws)) && !(abusable && ws == FERRY_ERR_INVALID_HANDLE)) {
      failure("wait", ws, ferry_last_error());
    } else if (ws == FERRY_OK && !abusable) {
      std::vector<std::uint8_t> want(out.size(), 0xCD);
      ferry::test::reference_convert(s, t, o, want.data());
      if (want != out) failure("output differs from the reference", ws, "");
    }
    if (ws == FERRY_OK && abusable && rng() % 2 == 0) {
      // Keep the output past the batch (and maybe its context): another thread reads and releases it.
      ferry_tensor_t t = nullptr;
      const ferry_status ts = ferry_tensor_retain(&t, b);
      if (ts == FERRY_OK) {
        std::lock_guard<std::mutex> lock(tensor_mutex);
        tensors.push_back(t);
      } else if (ts != FERRY_ERR_INVALID_HANDLE) {  // an abuser may have released the batch already
        failure("ferry_tensor_retain", ts, ferry_last_error());
      }
    }
    const ferry_status rs = ferry_batch_release(b);
    if (rs != FERRY_OK && rs != FERRY_ERR_INVALID_HANDLE) failure("release", rs, ferry_last_error());
    if (rs == FERRY_ERR_INVALID_HANDLE && !churned && !abusable) failure("release of an owned batch", rs, ferry_last_error());
  }
}

// Destroys and recreates contexts[long_lived] while the others use it.
void churner() {
  std::mt19937 rng(99);
  while (!stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + rng() % 20));
    ferry_context_t fresh = make_context(static_cast<int>(rng() % 3));
    ferry_context_t old = contexts[long_lived].exchange(fresh);
    const ferry_status st = ferry_context_destroy(old);
    if (st != FERRY_OK) failure("destroy", st, ferry_last_error());
    ops.fetch_add(1);
  }
}

// Abuses handles from other threads: waits, queries and outputs on others'
// batches; releases of released or early-released batches; stale contexts.
void abuser(int id) {
  std::mt19937 rng(static_cast<std::uint32_t>(id * 31 + 5));
  std::vector<ferry_context_t> stale;
  while (!stop) {
    ops.fetch_add(1);
    switch (rng() % 9) {
      case 0: case 1: {
        ferry_batch_t b = board.any(rng, false);
        if (b == nullptr) break;
        const ferry_status st = rng() % 2 ? ferry_batch_query(b) : ferry_batch_wait(b);
        if (!known_failure(st)) failure("abuse query/wait", st, ferry_last_error());
        ferry_tensor_info info;
        ferry_tensor_info_init(&info, sizeof info);
        const ferry_status os = ferry_batch_describe_output(&info, b);
        if (os != FERRY_OK && os != FERRY_ERR_INVALID_HANDLE) failure("abuse output", os, ferry_last_error());
        int reusable = 0;
        const ferry_status rs = ferry_batch_query_source(&reusable, b);
        if (rs != FERRY_OK && rs != FERRY_ERR_INVALID_HANDLE) failure("abuse source_reusable", rs, ferry_last_error());
        const ferry_status sw = ferry_batch_handoff(b, nullptr);
        if (sw == FERRY_ERR_INTERNAL) failure("abuse stream_wait", sw, ferry_last_error());
        break;
      }
      case 2: {
        // Release a batch its owner lets anyone release (shared source, ferry output).
        ferry_batch_t b = board.any(rng, true);
        if (b == nullptr) break;
        const ferry_status st = ferry_batch_release(b);
        if (st != FERRY_OK && st != FERRY_ERR_INVALID_HANDLE) failure("abuse release", st, ferry_last_error());
        break;
      }
      case 3: {
        ferry_context_t c = contexts[long_lived].load();
        if (stale.size() < 16) stale.push_back(c);
        // A context that may be destroyed meanwhile: any documented status, no crash.
        void* p = nullptr;
        const ferry_status st = ferry_memory_alloc_host(&p, c, 1 + rng() % 4096);
        if (st == FERRY_OK) {
          const ferry_status fs = ferry_memory_free_host(c, p);
          if (fs != FERRY_OK && fs != FERRY_ERR_INVALID_HANDLE) failure("free on a churned context", fs, ferry_last_error());
        } else if (!known_failure(st)) {
          failure("host_alloc on a churned context", st, ferry_last_error());
        }
        break;
      }
      case 4: {
        if (stale.empty()) break;
        ferry_context_t c = stale[rng() % stale.size()];
        ferry_stats s;
        ferry_stats_init(&s, sizeof s);
        const ferry_status st = ferry_stats_get(&s, c);
        if (st != FERRY_OK && st != FERRY_ERR_INVALID_HANDLE) failure("stats on a stale context", st, ferry_last_error());
        ferry_device_kind kind;
        int index;
        const ferry_status ds = ferry_context_get_device(&kind, &index, c);
        if (ds != FERRY_OK && ds != FERRY_ERR_INVALID_HANDLE) failure("device on a stale context", ds, ferry_last_error());
        break;
      }
      case 5: {
        // Handles never issued.
        // Handles never issued: another type tag (top byte) than live ones carry.
        const std::uintptr_t tag_flip = std::uintptr_t{1} << 63;
        auto fake_batch = reinterpret_cast<ferry_batch_t>(
            (static_cast<std::uintptr_t>(rng()) << 8 | 0x5) ^ (reinterpret_cast<std::uintptr_t>(board.any(rng, false)) & ~(tag_flip - 1)) ^ tag_flip);
        auto fake_ctx = reinterpret_cast<ferry_context_t>(
            (static_cast<std::uintptr_t>(rng()) << 8 | 0x3) ^ (reinterpret_cast<std::uintptr_t>(contexts[0].load()) & ~(tag_flip - 1)) ^ tag_flip);
        if (ferry_batch_release(fake_batch) != FERRY_ERR_INVALID_HANDLE) failure("release of a fake handle", FERRY_OK, "");
        if (ferry_batch_query(fake_batch) != FERRY_ERR_INVALID_HANDLE) failure("query of a fake handle", FERRY_OK, "");
        if (ferry_memory_trim(fake_ctx, FERRY_MEMORY_ALL) != FERRY_ERR_INVALID_HANDLE) failure("trim on a fake context", FERRY_OK, "");
        break;
      }
      case 6: {
        ferry_tensor_t t = nullptr;
        {
          std::lock_guard<std::mutex> lock(tensor_mutex);
          if (tensors.size() < 4) break;  // let some outlive a context's destroy
          t = tensors.front();
          tensors.erase(tensors.begin());
        }
        read_and_release(t);
        break;
      }
      default: {
        std::vector<ferry_batch_t> mine;
        {
          std::lock_guard<std::mutex> lock(orphan_mutex);
          mine.swap(orphans);
        }
        for (ferry_batch_t b : mine) {
          const ferry_status ws = ferry_batch_wait(b);
          if (ws == FERRY_ERR_INTERNAL) failure("wait on a callback's batch", ws, ferry_last_error());
          const ferry_status rs = ferry_batch_release(b);
          if (rs != FERRY_OK && rs != FERRY_ERR_INVALID_HANDLE) failure("release of a callback's batch", rs, ferry_last_error());
        }
        break;
      }
    }
  }
}

// Memory API on every context, the churned one included.
void memory_user() {
  std::mt19937 rng(4242);
  while (!stop) {
    const int slot = static_cast<int>(rng() % (long_lived + 1));
    ferry_context_t c = contexts[slot].load();
    const bool churned = slot == long_lived;
    void* p = nullptr;
    void* d = nullptr;
    ops.fetch_add(1);
    const std::size_t hbytes = 1 + rng() % 65536, dbytes = 1 + rng() % 65536;
    const ferry_status hs = ferry_memory_alloc_host(&p, c, hbytes);
    const ferry_status ds = ferry_memory_alloc_device(&d, c, dbytes, nullptr);
    for (ferry_status st : {hs, ds})
      if (st != FERRY_OK && !(churned && known_failure(st))) failure("memory alloc", st, ferry_last_error());
    // Blocks of the churned context are freed by its destroy at any moment: written only
    // on the others.
    if (hs == FERRY_OK) {
      if (!churned) std::memset(p, 1, std::min<std::size_t>(hbytes, 64));
      const ferry_status st =
          rng() % 2 ? ferry_memory_free_host(c, p) : ferry_memory_free_host_on_stream(c, p, nullptr);
      if (st != FERRY_OK && !(churned && st == FERRY_ERR_INVALID_HANDLE)) failure("host free", st, ferry_last_error());
    }
    if (ds == FERRY_OK) {
      if (!churned) std::memset(d, 1, std::min<std::size_t>(dbytes, 64));
      const ferry_status st = ferry_memory_free_device(c, d, nullptr);
      if (st != FERRY_OK && !(churned && st == FERRY_ERR_INVALID_HANDLE)) failure("device free", st, ferry_last_error());
    }
    if (rng() % 8 == 0) {
      const ferry_status st = ferry_memory_trim(c, FERRY_MEMORY_ALL);
      if (st != FERRY_OK && !(churned && st == FERRY_ERR_INVALID_HANDLE)) failure("trim", st, ferry_last_error());
    }
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    const ferry_status ss = ferry_stats_get(&s, c);
    if (ss != FERRY_OK && !(churned && ss == FERRY_ERR_INVALID_HANDLE)) failure("stats", ss, ferry_last_error());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  const int submitters = argc > 2 ? std::atoi(argv[2]) : 4;
  for (int i = 0; i <= long_lived; ++i) contexts[i] = make_context(i);
  std::vector<std::thread> threads;
  for (int i = 0; i < submitters; ++i) threads.emplace_back(submitter, i);
  threads.emplace_back(churner);
  threads.emplace_back(abuser, 0);
  threads.emplace_back(abuser, 1);
  threads.emplace_back(memory_user);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  {
    // Batches submitted from callbacks after the abusers stopped.
    std::lock_guard<std::mutex> lock(orphan_mutex);
    for (ferry_batch_t b : orphans) {
      ferry_batch_wait(b);
      ferry_batch_release(b);
    }
    orphans.clear();
  }
  for (int i = 0; i <= long_lived; ++i) {
    const ferry_status st = ferry_context_destroy(contexts[i].load());
    if (st != FERRY_OK) failure("final destroy", st, ferry_last_error());
  }
  // References outlive every context.
  for (ferry_tensor_t t : tensors) read_and_release(t);
  tensors.clear();
  std::printf("stress: %ld operations, %ld callbacks, %ld failures in %.1f s\n", ops.load(), callbacks.load(),
              failures.load(), seconds);
  return failures.load() == 0 ? 0 : 1;
}
