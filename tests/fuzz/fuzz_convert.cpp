// libFuzzer target over the conversion descriptors on the CPU backend:
// ferry_transform_describe_output, ferry_transform_apply and ferry_batch_submit with
// source, transform, output and submit-option structs decoded from the input
// (convert_case.h). Every buffer is allocated to exactly the size its struct
// declares, the output between canaries; a call that returns FERRY_OK is
// checked element by element (and the canaries byte by byte) against the
// scalar reference, a call that fails must leave the output untouched, and a
// plain call on what output_info accepts must succeed.
//   build: -DFERRY_FUZZ=ON (clang); replay without libFuzzer: ferry_fuzz_convert_replay FILE|DIR...
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ferry/ferry.h"
#include "tests/fuzz/convert_case.h"

using namespace ferry::fuzz;

namespace {

ferry_context_t context(int index) {
  static ferry_context_t contexts[2] = {nullptr, nullptr};
  if (contexts[index] != nullptr) return contexts[index];
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  if (index == 0) {
    o.cpu_threads = 2;
  } else {
    // Small everything: one thread, one batch in flight, non-blocking submit.
    o.cpu_threads = 1;
    o.staging_threads = 1;
    o.stream_count = 1;
    o.max_batches_in_flight = 1;
    o.submit_nonblocking = 1;
    o.chunk_bytes = 4096;
    o.max_staging_bytes = 1u << 20;
    o.pinned_cache_bytes = 8u << 20;
    o.pinned_wait_at_cap = 0;
  }
  if (ferry_context_create(&contexts[index], &o) != FERRY_OK) fail("ferry_context_create failed:", ferry_last_error());
  return contexts[index];
}

struct CallbackRecord {
  std::atomic<int> calls{0};
  std::atomic<int> status{-1};
  std::atomic<int> query{-1};
  ferry_batch_t batch = nullptr;
};
std::atomic<CallbackRecord*> expected_record{nullptr};

void on_complete(ferry_batch_t batch, ferry_status status, void* user_data) {
  auto* r = static_cast<CallbackRecord*>(user_data);
  if (r != expected_record.load()) fail("the completion callback got a user_data the caller never passed");
  r->batch = batch;
  r->status = status;
  // A callback may query its batch: the batch is complete by now.
  r->query = ferry_batch_query(batch);
  r->calls.fetch_add(1);
}

void check_error(ferry_status st, const char* call) {
  FERRY_FUZZ_CHECK(is_known_status(st), "%s returned %d, not a ferry_status", call, static_cast<int>(st));
  if (st != FERRY_OK)
    FERRY_FUZZ_CHECK(ferry_last_error()[0] != '\0', "%s returned %s with no message", call, ferry_status_string(st));
}

void check_output_info(const ferry_tensor_info& info, const Geometry& g, const ConvertCase& c) {
  FERRY_FUZZ_CHECK(!c.torn(false, false), "output_info accepted a struct_size that tears a pointer: %s",
                   describe(c).c_str());
  const ferry_transform t = c.eff_transform();
  FERRY_FUZZ_CHECK(g.sane, "output_info accepted a case the harness finds insane: %s", describe(c).c_str());
  FERRY_FUZZ_CHECK(get_enum(info.dtype) == get_enum(t.out_dtype) && get_enum(info.layout) == get_enum(t.out_layout) &&
                       info.ndim == 4,
                   "output_info dtype %d layout %d ndim %d", get_enum(info.dtype), get_enum(info.layout), info.ndim);
  const bool nchw = get_enum(t.out_layout) == FERRY_LAYOUT_NCHW;
  const std::int64_t shape[4] = {g.n, nchw ? g.oct : g.oh, nchw ? g.oh : g.ow, nchw ? g.ow : g.oct};
  std::int64_t packed[4];
  packed[3] = g.e;
  for (int d = 2; d >= 0; --d) packed[d] = packed[d + 1] * shape[d + 1];
  for (int d = 0; d < 4; ++d)
    FERRY_FUZZ_CHECK(info.shape[d] == shape[d] && info.strides[d] == packed[d],
                     "output_info dim %d: shape %lld stride %lld, want %lld %lld (%s)", d,
                     static_cast<long long>(info.shape[d]), static_cast<long long>(info.strides[d]),
                     static_cast<long long>(shape[d]), static_cast<long long>(packed[d]), describe(c).c_str());
  FERRY_FUZZ_CHECK(info.bytes == g.packed_output, "output_info bytes %zu, want %llu", info.bytes,
                   static_cast<unsigned long long>(g.packed_output));
}

// Checks a converted caller's output (data between canaries) against the reference.
void check_converted(ConvertCase& c, const Geometry& g, const char* call) {
  FERRY_FUZZ_CHECK(!c.torn(true, c.api != Api::convert), "%s accepted a struct_size that tears a pointer: %s", call,
                   describe(c).c_str());
  const ferry_source s = c.eff_source();
  const ferry_output o = c.eff_output();
  FERRY_FUZZ_CHECK(g.sane, "%s accepted a case the harness finds insane: %s", call, describe(c).c_str());
  FERRY_FUZZ_CHECK(s.sample_descs == nullptr || g.descs_valid,
                   "%s accepted source.sample_descs with a batch-wide field set, a NULL sample or a sample's bytes "
                   "short of its strides' extent: %s",
                   call, describe(c).c_str());
  FERRY_FUZZ_CHECK(s.sample_descs == nullptr || !c.sample_in_output || o.data == nullptr,
                   "%s accepted a source.sample_descs entry inside the output: %s", call, describe(c).c_str());
  FERRY_FUZZ_CHECK(s.sample_descs != nullptr || s.samples != nullptr || g.source_extent <= s.bytes,
                   "%s accepted source.bytes %zu, the strides reach %llu: %s", call, s.bytes,
                   static_cast<unsigned long long>(g.source_extent), describe(c).c_str());
  FERRY_FUZZ_CHECK(s.sample_descs != nullptr || s.samples == nullptr || g.sample_extent <= s.sample_bytes,
                   "%s accepted sample_bytes %zu, the strides reach %llu: %s", call, s.sample_bytes,
                   static_cast<unsigned long long>(g.sample_extent), describe(c).c_str());
  FERRY_FUZZ_CHECK(g.output_extent <= o.bytes, "%s accepted output.bytes %zu, the strides reach %llu: %s", call,
                   o.bytes, static_cast<unsigned long long>(g.output_extent), describe(c).c_str());
  const long canary = c.out.check_canaries();
  FERRY_FUZZ_CHECK(canary == 0, "%s wrote the canary at %ld (negative: before the output): %s", call, canary,
                   describe(c).c_str());
  const std::string diff = compare_with_reference(s, c.eff_transform(), o, c.out.size(), 0xCD, c.out.whole());
  FERRY_FUZZ_CHECK(diff.empty(), "%s differs from the reference: %s; %s", call, diff.c_str(), describe(c).c_str());
}

void check_untouched(ConvertCase& c, const char* call, ferry_status st) {
  const std::string message = ferry_last_error();
  const std::uint8_t* b = c.out.whole();
  const std::size_t at = first_not(b + Guarded::canary, c.out.size(), 0xCD);
  FERRY_FUZZ_CHECK(at == c.out.size(), "%s failed (%s: %s) but wrote output byte %zu: %s", call,
                   ferry_status_string(st), message.c_str(), at, describe(c).c_str());
  const long canary = c.out.check_canaries();  // re-poisons them
  FERRY_FUZZ_CHECK(canary == 0, "%s failed (%s) but wrote the canary at %ld: %s", call, ferry_status_string(st),
                   canary, describe(c).c_str());
}

// Moves the source into pinned (ferry_memory_alloc_host) memory, or registers it:
// source.data, the buffers of source.samples, or those of source.sample_descs.
struct SourcePlacement {
  ferry_context_t ctx = nullptr;
  std::vector<void*> pinned;
  std::vector<const void*> registered;
  std::vector<const void*> pointers;

  void place(ConvertCase& c) {
    std::vector<std::pair<const void*, std::size_t>> buffers;
    if (c.source.sample_descs != nullptr) {
      for (auto& s : c.desc_buffers) buffers.emplace_back(s->data(), s->size());
    } else if (c.source.samples != nullptr) {
      for (auto& s : c.samples) buffers.emplace_back(s->data(), s->size());
    } else if (c.source.data != nullptr) {
      buffers.emplace_back(c.source.data, c.source.bytes);
    }
    for (auto& b : buffers) pointers.push_back(b.first);
    if (buffers.empty()) return;
    if (c.memory == SourceMemory::pinned) {
      std::vector<const void*> moved;
      for (auto& b : buffers) {
        void* p = nullptr;
        if (b.second == 0 || ferry_memory_alloc_host(&p, ctx, b.second) != FERRY_OK) {
          for (void* q : pinned) ferry_memory_free_host(ctx, q);
          pinned.clear();
          return;  // stays pageable
        }
        std::memcpy(p, b.first, b.second);
        pinned.push_back(p);
        moved.push_back(p);
      }
      if (c.source.sample_descs != nullptr) {
        // Entry i has buffer i (its data is that buffer's, NULL, or inside the output).
        auto* d = reinterpret_cast<ferry_sample_desc*>(c.descs.data());
        for (std::size_t i = 0; i < moved.size(); ++i)
          if (d[i].data == c.desc_buffers[i]->data()) d[i].data = moved[i];
      } else if (c.source.samples != nullptr) {
        auto** arr = reinterpret_cast<const void**>(c.sample_pointers.data());
        for (std::size_t i = 0; i < moved.size(); ++i)
          if (arr[i] != nullptr) arr[i] = moved[i];
        if (c.source.data != nullptr) c.source.data = moved[0];
      } else {
        c.source.data = moved[0];
      }
      c.set_source_struct();
    } else if (c.memory == SourceMemory::registered) {
      for (auto& b : buffers)
        if (b.second > 0 && ferry_memory_register_host(ctx, b.first, b.second) == FERRY_OK)
          registered.push_back(b.first);
    }
  }
  // After the batch: implicit (FERRY_SOURCE_REGISTER) and explicit registrations of
  // the harness's buffers end before they are freed; pinned blocks go back.
  void undo() {
    for (const void* p : pointers) ferry_memory_unregister_host(ctx, p);
    for (void* p : pinned) {
      const ferry_status st = ferry_memory_free_host(ctx, p);
      FERRY_FUZZ_CHECK(st == FERRY_OK, "ferry_memory_free_host of a pinned source: %s", ferry_last_error());
    }
  }
};

void run_submit(ConvertCase& c, ferry_context_t ctx, ferry_status st_info, const Geometry& g) {
  // A ferry-allocated output larger than any buffer the harness allocates (up to gigabytes) would
  // be slow to convert and to check, and is no more interesting: such cases are not submitted.
  if ((c.api == Api::submit_ferry_output || c.output_null) && st_info == FERRY_OK && g.packed_output > max_buffer)
    return;
  CallbackRecord record;
  expected_record = &record;
  c.options.callback = c.callback ? &on_complete : nullptr;
  c.options.user_data = &record;
  c.set_options_struct();
  SourcePlacement placement;
  placement.ctx = ctx;
  placement.place(c);

  const bool ferry_allocates = c.api == Api::submit_ferry_output || c.output_null;
  const ferry_output* out = ferry_allocates ? nullptr : c.output_ptr();
  ferry_batch_t batch = nullptr;
  const ferry_status st = ferry_batch_submit(&batch, ctx, c.source_ptr(), c.transform_ptr(), out, c.options_ptr());
  const std::string message = ferry_last_error();
  check_error(st, "ferry_batch_submit");
  static const bool verbose = std::getenv("FERRY_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "  submit %s (%s)\n", ferry_status_string(st), ferry_last_error());
  if (st != FERRY_OK) {
    FERRY_FUZZ_CHECK(batch == nullptr, "a failed submit wrote its out parameter");
    FERRY_FUZZ_CHECK(record.calls == 0, "a failed submit called the callback");
    check_untouched(c, "ferry_batch_submit", st);
    const bool plain_options = get_enum(c.options.source_policy) >= 0 && get_enum(c.options.source_policy) <= 2 &&
                               c.options.priority >= 0;
    const bool must = st_info == FERRY_OK && c.context_index == 0 && plain_options &&
                      (ferry_allocates ? (g.packed_output <= max_buffer && c.source_size == sizeof(ferry_source) &&
                                       c.transform_size == sizeof(ferry_transform) &&
                                       c.options_size == sizeof(ferry_submit_options) && !c.source_null &&
                                       !c.any_null_sample &&
                                       (c.source.sample_descs == nullptr || g.descs_valid))
                                    : c.must_succeed(g));
    FERRY_FUZZ_CHECK(!must, "submit refused a plain case output_info accepts: %s (%s); %s", ferry_status_string(st),
                     message.c_str(), describe(c).c_str());
    placement.undo();
    expected_record = nullptr;
    return;
  }
  FERRY_FUZZ_CHECK(st_info == FERRY_OK, "submit accepted what output_info refuses: %s", describe(c).c_str());
  FERRY_FUZZ_CHECK(!c.torn(!ferry_allocates, true), "submit accepted a struct_size that tears a pointer: %s",
                   describe(c).c_str());
  FERRY_FUZZ_CHECK(batch != nullptr, "submit returned FERRY_OK and a NULL batch");
  const ferry_status ws = ferry_batch_wait(batch);
  check_error(ws, "ferry_batch_wait");
  const ferry_status qs = ferry_batch_query(batch);
  FERRY_FUZZ_CHECK(qs == ws, "query %s after wait %s", ferry_status_string(qs), ferry_status_string(ws));
  int reusable = -1;
  FERRY_FUZZ_CHECK(ferry_batch_query_source(&reusable, batch) == FERRY_OK && reusable == 1,
                   "source not reusable after wait (%d)", reusable);
  if (ws == FERRY_OK) {
    ferry_tensor_info info;
    ferry_tensor_info_init(&info, sizeof info);
    FERRY_FUZZ_CHECK(ferry_batch_describe_output(&info, batch) == FERRY_OK, "ferry_batch_describe_output: %s",
                     ferry_last_error());
    FERRY_FUZZ_CHECK(get_enum(info.device_kind) == FERRY_DEVICE_CPU, "batch output on device kind %d",
                     get_enum(info.device_kind));
    if (ferry_allocates) {
      FERRY_FUZZ_CHECK(info.data != nullptr, "a ferry-allocated output is NULL");
      FERRY_FUZZ_CHECK(info.bytes == g.packed_output, "ferry-allocated output of %zu bytes, want %llu", info.bytes,
                       static_cast<unsigned long long>(g.packed_output));
      // A tensor reference keeps the output alive past the batch's release: read it from there.
      ferry_tensor_t tensor = nullptr;
      if (c.retain) {
        FERRY_FUZZ_CHECK(ferry_tensor_retain(&tensor, batch) == FERRY_OK && tensor != nullptr,
                         "ferry_tensor_retain: %s", ferry_last_error());
        FERRY_FUZZ_CHECK(ferry_batch_release(batch) == FERRY_OK, "release: %s", ferry_last_error());
        ferry_tensor_info described;
        ferry_tensor_info_init(&described, sizeof described);
        FERRY_FUZZ_CHECK(ferry_tensor_describe(&described, tensor) == FERRY_OK, "ferry_tensor_describe: %s",
                         ferry_last_error());
        FERRY_FUZZ_CHECK(described.data == info.data && described.bytes == info.bytes,
                         "the tensor describes %p (%zu bytes), the batch's output was %p (%zu)", described.data,
                         described.bytes, info.data, info.bytes);
      }
      // Copy it between canaries and compare as a packed caller output.
      Guarded copy(info.bytes);
      std::memcpy(copy.data(), info.data, info.bytes);
      if (c.retain) {
        FERRY_FUZZ_CHECK(ferry_tensor_release(tensor) == FERRY_OK, "ferry_tensor_release: %s", ferry_last_error());
        FERRY_FUZZ_CHECK(ferry_tensor_release(tensor) == FERRY_ERR_INVALID_HANDLE, "a second tensor release");
      }
      ferry_output o;
      ferry_output_init(&o, sizeof o);
      o.data = copy.data();
      o.bytes = info.bytes;
      const std::string diff =
          compare_with_reference(c.eff_source(), c.eff_transform(), o, copy.size(), 0xCD, copy.whole());
      FERRY_FUZZ_CHECK(diff.empty(), "submit (ferry output) differs from the reference: %s; %s", diff.c_str(),
                       describe(c).c_str());
    } else {
      FERRY_FUZZ_CHECK(info.data == c.eff_output().data, "batch output %p, the caller's is %p", info.data,
                       c.eff_output().data);
      check_converted(c, g, "submit");
    }
  } else {
    FERRY_FUZZ_CHECK(ws != FERRY_ERR_NOT_READY, "wait returned NOT_READY");
  }
  const bool released = c.retain && ferry_allocates && ws == FERRY_OK;  // above, before reading the tensor
  ferry_submit_options defaults;
  ferry_submit_options_init(&defaults, sizeof defaults);
  const bool callback_set = !c.options_null && effective(c.options, c.options_size, defaults).callback != nullptr;
  if (callback_set) {
    // The callback may run just after wait returns: spin a little, then sleep (10 s in all).
    for (int i = 0; i < 2000 && record.calls.load() == 0; ++i) std::this_thread::yield();
    for (int i = 0; i < 100000 && record.calls.load() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    FERRY_FUZZ_CHECK(record.calls.load() == 1, "the callback ran %d times", record.calls.load());
    FERRY_FUZZ_CHECK(record.status.load() == ws && record.batch == batch,
                     "the callback got status %d batch %p, wait %d batch %p", record.status.load(),
                     static_cast<void*>(record.batch), static_cast<int>(ws), static_cast<void*>(batch));
    FERRY_FUZZ_CHECK(record.query.load() == ws || (released && record.query.load() == FERRY_ERR_INVALID_HANDLE),
                     "query from the callback %d, wait %d", record.query.load(), static_cast<int>(ws));
  }
  if (!released) FERRY_FUZZ_CHECK(ferry_batch_release(batch) == FERRY_OK, "release: %s", ferry_last_error());
  FERRY_FUZZ_CHECK(ferry_batch_release(batch) == FERRY_ERR_INVALID_HANDLE, "a second release did not say INVALID_HANDLE");
  FERRY_FUZZ_CHECK(ferry_batch_query(batch) == FERRY_ERR_INVALID_HANDLE, "query after release");
  if (callback_set) FERRY_FUZZ_CHECK(record.calls.load() == 1, "the callback ran again");
  placement.undo();
  expected_record = nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto cp = decode_convert_case(data, size);
  ConvertCase& c = *cp;
  ferry_context_t ctx = context(c.context_index);

  // Baseline: output_info on the case's source and transform, a proper info struct.
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  const ferry_status st_info = ferry_transform_describe_output(&info, c.source_ptr(), c.transform_ptr());
  check_error(st_info, "ferry_transform_describe_output");
  const Geometry g = geometry_of(c.eff_source(), c.eff_transform(), c.eff_output());
  if (st_info == FERRY_OK) {
    ferry_output packed;
    ferry_output_init(&packed, sizeof packed);
    check_output_info(info, geometry_of(c.eff_source(), c.eff_transform(), packed), c);
  }
  static const bool verbose = std::getenv("FERRY_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    const std::string message = ferry_last_error();
    std::fprintf(stderr, "api %d output_info %s (%s)\n  %s\n", static_cast<int>(c.api),
                 ferry_status_string(st_info), message.c_str(), describe(c).c_str());
  }

  switch (c.api) {
    case Api::output_info: {
      // The same call with the case's tensor_info struct size: nothing written past it.
      ferry_tensor_info full;
      ferry_tensor_info_init(&full, sizeof full);
      SizedStruct sized;
      sized.set(&full, sizeof full, c.info_size, 0);
      const ferry_status st = ferry_transform_describe_output(static_cast<ferry_tensor_info*>(sized.get()),
                                                          c.source_ptr(), c.transform_ptr());
      check_error(st, "ferry_transform_describe_output (sized)");
      if (c.info_size == sizeof full) FERRY_FUZZ_CHECK(st == st_info, "two output_info calls disagree");
      break;
    }
    case Api::convert: {
      const ferry_status st = ferry_transform_apply(ctx, c.source_ptr(), c.transform_ptr(), c.output_ptr(), c.stream);
      const std::string message = ferry_last_error();
      check_error(st, "ferry_transform_apply");
      static const bool verbose = std::getenv("FERRY_FUZZ_VERBOSE") != nullptr;
      if (verbose) std::fprintf(stderr, "  convert %s (%s)\n", ferry_status_string(st), ferry_last_error());
      if (st == FERRY_OK) {
        FERRY_FUZZ_CHECK(st_info == FERRY_OK, "convert accepted what output_info refuses: %s", describe(c).c_str());
        check_converted(c, g, "ferry_transform_apply");
      } else {
        check_untouched(c, "ferry_transform_apply", st);
        FERRY_FUZZ_CHECK(st_info != FERRY_OK || !c.must_succeed(g),
                         "convert refused a plain case output_info accepts: %s (%s); %s", ferry_status_string(st),
                         message.c_str(), describe(c).c_str());
      }
      break;
    }
    case Api::submit_caller_output:
    case Api::submit_ferry_output: run_submit(c, ctx, st_info, g); break;
  }
  return 0;
}
