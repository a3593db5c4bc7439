// libFuzzer target over the memory API on the CPU backend, in random
// sequences: ferry_memory_alloc_host / free / free_on_stream, ferry_memory_alloc_device /
// free, ferry_memory_register_host / unregister, ferry_memory_trim, stats and
// reset_stats, with bad pointers (foreign, interior, freed twice, the other
// allocator's), NULL out parameters, bad handles, odd sizes and kinds, on a
// shared context or on a fresh one with small caps.
// Checked: live blocks are aligned, writable and never overlap, and keep
// their contents; a bad free fails and frees nothing; registrations follow a
// model of page-granular overlap; the pinned cap (in use + cached) holds; at
// the end, with everything given back, nothing is in use.
//   build: -DFERRY_FUZZ=ON (clang); replay without libFuzzer: ferry_fuzz_memory_replay FILE|DIR...
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ferry/ferry.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ferry::fuzz;

namespace {

enum class Kind { pinned, device };

struct Block {
  std::uint8_t* p;
  std::size_t bytes;
  Kind kind;
  std::uint8_t tag;
};

struct Registration {
  std::uintptr_t start;
  std::size_t bytes;
};

constexpr std::size_t arena_bytes = 1u << 20;

std::uint8_t* register_arena() {
  static std::uint8_t* arena = static_cast<std::uint8_t*>(std::aligned_alloc(1u << 16, arena_bytes));
  return arena;
}

// Any int in an enum field, as a C caller can store one.
template <typename E>
void set_enum(E& field, int v) {
  static_assert(sizeof(E) == sizeof(int), "a C enum field");
  std::memcpy(&field, &v, sizeof v);
}

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// Bytes touched at each end of a block (all of a small one).
constexpr std::size_t touch = 256;

void stamp(const Block& b) {
  if (b.bytes <= 2 * touch) {
    std::memset(b.p, b.tag, b.bytes);
  } else {
    std::memset(b.p, b.tag, touch);
    std::memset(b.p + b.bytes - touch, b.tag, touch);
  }
}

void verify(const Block& b) {
  auto check = [&](std::size_t from, std::size_t n) {
    const std::size_t i = from + first_not(b.p + from, n, b.tag);
    FERRY_FUZZ_CHECK(i == from + n, "%s block %p (%zu bytes) changed at byte %zu: %u, want %u",
                     b.kind == Kind::pinned ? "pinned" : "device", static_cast<void*>(b.p), b.bytes, i, b.p[i],
                     b.tag);
  };
  if (b.bytes <= 2 * touch) {
    check(0, b.bytes);
  } else {
    check(0, touch);
    check(b.bytes - touch, touch);
  }
}

class Session {
 public:
  Session(Input& in, ferry_context_t ctx, std::uint64_t pinned_cap) : in_(in), ctx_(ctx), pinned_cap_(pinned_cap) {}

  void run() {
    ferry_stats before = stats();
    const int ops = 1 + in_.pick(48);
    for (int i = 0; i < ops && in_.remaining() > 0; ++i) step();
    finish(before);
  }

 private:
  std::size_t size_choice(Kind kind) {
    switch (in_.pick(16)) {
      case 0: return 0;
      case 1: return 1;
      case 2: case 3: case 4: case 5: case 6: return 1 + in_.u16() % 4096;
      case 7: case 8: return 1 + in_.u8();
      case 9: return 4096 * static_cast<std::size_t>(in_.range(1, 16));
      case 10: return 1 + in_.u16() % (256u << 10);
      case 11: return 255 + static_cast<std::size_t>(in_.pick(3));
      case 12: return in_.flag() ? 1 + in_.u16() : (1u << 20) + static_cast<std::size_t>(in_.range(-1, 1));
      case 13: return in_.pick(4) == 0 ? 1 + (static_cast<std::size_t>(in_.u16()) << 6) : 1 + in_.u8();  // to 4 MiB
      case 14: {
        // Sizes that must fail; 2 GiB + 1 only where the pinned cap refuses it (a device
        // allocation of it would succeed, and take 256 MiB of ASan shadow).
        static const std::size_t wild[] = {SIZE_MAX, SIZE_MAX - 255, SIZE_MAX / 2, std::size_t{1} << 40,
                                           std::size_t{1} << 62, (std::size_t{1} << 31) + 1};
        return wild[in_.pick(kind == Kind::pinned ? 6 : 5)];
      }
      default:
        // At the cap, where it is small (a fresh context's); 1 GiB blocks would make every run slow.
        if (kind == Kind::device || pinned_cap_ > (64u << 20)) return 1 + in_.u8();
        return static_cast<std::size_t>(pinned_cap_) + static_cast<std::size_t>(in_.range(-256, 256));
    }
  }
  ferry_cuda_stream stream_choice() {
    return in_.pick(8) == 7 ? reinterpret_cast<ferry_cuda_stream>(static_cast<std::uintptr_t>(0x1000 + 8 * in_.u8()))
                            : nullptr;
  }
  Block* pick_live(Kind kind) {
    std::vector<Block*> of_kind;
    for (Block& b : live_)
      if (b.kind == kind) of_kind.push_back(&b);
    if (of_kind.empty()) return nullptr;
    return of_kind[static_cast<std::size_t>(in_.pick(256)) % of_kind.size()];
  }
  void erase(const Block* b) {
    live_.erase(std::remove_if(live_.begin(), live_.end(), [&](const Block& x) { return &x == b; }), live_.end());
  }

  void allocated(std::uint8_t* p, std::size_t bytes, Kind kind, const char* call) {
    FERRY_FUZZ_CHECK(p != nullptr, "%s returned FERRY_OK and NULL for %zu bytes", call, bytes);
    FERRY_FUZZ_CHECK(reinterpret_cast<std::uintptr_t>(p) % 256 == 0, "%s returned %p: not 256-aligned", call,
                     static_cast<void*>(p));
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    for (const Block& b : live_) {
      const auto blo = reinterpret_cast<std::uintptr_t>(b.p);
      FERRY_FUZZ_CHECK(lo + bytes <= blo || blo + b.bytes <= lo,
                       "%s returned [%p, +%zu), overlapping the live block [%p, +%zu)", call, static_cast<void*>(p),
                       bytes, static_cast<void*>(b.p), b.bytes);
    }
    Block b{p, bytes, kind, static_cast<std::uint8_t>(++tag_ | 1)};
    stamp(b);
    live_.push_back(b);
  }

  void alloc(Kind kind) {
    const std::size_t bytes = size_choice(kind);
    void* p = nullptr;
    const ferry_status st = kind == Kind::pinned ? ferry_memory_alloc_host(&p, ctx_, bytes)
                                                 : ferry_memory_alloc_device(&p, ctx_, bytes, stream_choice());
    const char* call = kind == Kind::pinned ? "ferry_memory_alloc_host" : "ferry_memory_alloc_device";
    check_status(st, call);
    if (st == FERRY_OK) {
      FERRY_FUZZ_CHECK(bytes != 0 || kind == Kind::device, "%s of 0 bytes returned FERRY_OK", call);
      // Device memory on the CPU backend is host memory: a machine that overcommits
      // (vm.overcommit_memory=1) grants even a terabyte, so only pinned memory has a bound here.
      FERRY_FUZZ_CHECK(kind == Kind::device || bytes < (std::size_t{1} << 40), "%s of %zu bytes returned FERRY_OK",
                       call, bytes);
      FERRY_FUZZ_CHECK(kind == Kind::device || bytes <= pinned_cap_, "%s of %zu bytes, over the cap %llu, succeeded",
                       call, bytes, static_cast<unsigned long long>(pinned_cap_));
      if (bytes > 0) allocated(static_cast<std::uint8_t*>(p), bytes, kind, call);
      else if (p != nullptr) ferry_memory_free_device(ctx_, p, nullptr);
    } else {
      FERRY_FUZZ_CHECK(p == nullptr, "%s failed and wrote *out", call);
    }
  }

  void free_one(Kind kind, int how) {
    Block* b = pick_live(kind);
    if (b == nullptr) return;
    verify(*b);
    ferry_status st;
    const char* call;
    if (kind == Kind::pinned) {
      if (how == 0) {
        st = ferry_memory_free_host(ctx_, b->p);
        call = "ferry_memory_free_host";
      } else {
        st = ferry_memory_free_host_on_stream(ctx_, b->p, stream_choice());
        call = "ferry_memory_free_host_on_stream";
      }
    } else {
      st = ferry_memory_free_device(ctx_, b->p, stream_choice());
      call = "ferry_memory_free_device";
    }
    FERRY_FUZZ_CHECK(st == FERRY_OK, "%s of a live block failed: %s", call, ferry_last_error());
    freed_.push_back(b->p);
    if (freed_.size() > 16) freed_.erase(freed_.begin());
    erase(b);
  }

  // Frees that must fail and free nothing: a freed pointer, an interior one,
  // the other allocator's block, a harness buffer, a wild address.
  void bad_free() {
    std::uint8_t* p = nullptr;
    switch (in_.pick(5)) {
      case 0:
        if (freed_.empty()) return;
        p = freed_[static_cast<std::size_t>(in_.u8()) % freed_.size()];
        for (const Block& b : live_)
          if (b.p == p) return;  // handed out again since
        break;
      case 1: {
        Block* b = pick_live(in_.flag() ? Kind::pinned : Kind::device);
        if (b == nullptr || b->bytes < 2) return;
        p = b->p + 1 + static_cast<std::size_t>(in_.u16()) % (b->bytes - 1);
        break;
      }
      case 2: {
        Block* b = pick_live(in_.flag() ? Kind::pinned : Kind::device);
        if (b == nullptr) return;
        p = b->p;
        const ferry_status st = b->kind == Kind::pinned ? ferry_memory_free_device(ctx_, p, nullptr)
                                                        : ferry_memory_free_host(ctx_, p);
        FERRY_FUZZ_CHECK(st != FERRY_OK, "freeing a %s block with the other allocator's free succeeded",
                         b->kind == Kind::pinned ? "pinned" : "device");
        check_status(st, "free (other allocator)");
        verify(*b);
        return;
      }
      case 3: p = register_arena() + in_.u16(); break;
      default: p = reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(in_.u64()) | 1); break;
    }
    ferry_status st;
    switch (in_.pick(3)) {
      case 0: st = ferry_memory_free_host(ctx_, p); break;
      case 1: st = ferry_memory_free_host_on_stream(ctx_, p, stream_choice()); break;
      default: st = ferry_memory_free_device(ctx_, p, stream_choice()); break;
    }
    FERRY_FUZZ_CHECK(st != FERRY_OK, "freeing %p (not a live block) succeeded", static_cast<void*>(p));
    check_status(st, "bad free");
    for (const Block& b : live_) verify(b);
  }

  bool pages_overlap(std::uintptr_t a, std::size_t an, std::uintptr_t b, std::size_t bn) const {
    const std::uintptr_t m = ~(static_cast<std::uintptr_t>(page_size()) - 1);
    const std::uintptr_t alo = a & m, ahi = ((a + an - 1) | ~m) + 1, blo = b & m, bhi = ((b + bn - 1) | ~m) + 1;
    return alo < bhi && blo < ahi;
  }

  void do_register() {
    std::uintptr_t start;
    std::size_t bytes;
    bool modelled = true;
    switch (in_.pick(8)) {
      case 6: {  // a live pinned block: whatever ferry says, it must not break
        Block* b = pick_live(Kind::pinned);
        if (b == nullptr) return;
        start = reinterpret_cast<std::uintptr_t>(b->p);
        bytes = b->bytes;
        modelled = false;
        break;
      }
      case 7: {  // wild ranges: NULL, zero bytes, the end of the address space
        static const std::uintptr_t starts[] = {0, 4096, UINTPTR_MAX - 4095, UINTPTR_MAX - 100, 1};
        static const std::size_t sizes[] = {0, 1, 4096, SIZE_MAX, SIZE_MAX - 8192, std::size_t{1} << 47};
        start = starts[in_.pick(5)];
        bytes = sizes[in_.pick(6)];
        modelled = false;
        break;
      }
      default: {
        const std::size_t off = in_.u16() % arena_bytes;
        start = reinterpret_cast<std::uintptr_t>(register_arena()) + off;
        bytes = 1 + (in_.flag() ? in_.u8() : in_.u16() % (arena_bytes - off));
        if (off + bytes > arena_bytes) bytes = arena_bytes - off;
        break;
      }
    }
    const ferry_status st = ferry_memory_register_host(ctx_, reinterpret_cast<const void*>(start), bytes);
    check_status(st, "ferry_memory_register_host");
    if (modelled) {
      bool overlap = false;
      for (const Registration& r : regs_) overlap |= pages_overlap(r.start, r.bytes, start, bytes);
      FERRY_FUZZ_CHECK(overlap == (st != FERRY_OK),
                       "register [%p, +%zu): %s (%s), the model says %s", reinterpret_cast<void*>(start), bytes,
                       ferry_status_string(st), ferry_last_error(), overlap ? "overlap" : "free pages");
      if (overlap) FERRY_FUZZ_CHECK(st == FERRY_ERR_ALREADY_EXISTS, "an overlapping register gave %s",
                                    ferry_status_string(st));
    } else if (st == FERRY_OK) {
      for (const Registration& r : regs_)
        FERRY_FUZZ_CHECK(!pages_overlap(r.start, r.bytes, start, bytes),
                         "register [%p, +%zu) succeeded over the registration [%p, +%zu)",
                         reinterpret_cast<void*>(start), bytes, reinterpret_cast<void*>(r.start), r.bytes);
    }
    if (st == FERRY_OK) regs_.push_back(Registration{start, bytes});
  }

  void do_unregister() {
    std::uintptr_t p;
    const int mode = in_.pick(4);
    if (mode < 2 && !regs_.empty()) {
      p = regs_[static_cast<std::size_t>(in_.u8()) % regs_.size()].start;
    } else if (mode == 2 && !regs_.empty()) {
      p = regs_[static_cast<std::size_t>(in_.u8()) % regs_.size()].start + 1 + in_.u8();  // inside, not its start
    } else {
      p = reinterpret_cast<std::uintptr_t>(register_arena()) + in_.u16();
    }
    const ferry_status st = ferry_memory_unregister_host(ctx_, reinterpret_cast<const void*>(p));
    check_status(st, "ferry_memory_unregister_host");
    auto it = std::find_if(regs_.begin(), regs_.end(), [&](const Registration& r) { return r.start == p; });
    FERRY_FUZZ_CHECK((it != regs_.end()) == (st == FERRY_OK), "unregister %p: %s (%s), the model says %s",
                     reinterpret_cast<void*>(p), ferry_status_string(st), ferry_last_error(),
                     it != regs_.end() ? "registered" : "not registered");
    if (it != regs_.end()) regs_.erase(it);
  }

  ferry_stats stats() {
    ferry_stats s;
    ferry_stats_init(&s, sizeof s);
    FERRY_FUZZ_CHECK(ferry_stats_get(&s, ctx_) == FERRY_OK, "ferry_stats_get: %s", ferry_last_error());
    return s;
  }

  void check_stats() {
    const ferry_stats s = stats();
    FERRY_FUZZ_CHECK(s.pinned_in_use_bytes + s.pinned_cached_bytes <= pinned_cap_,
                     "pinned in use %llu + cached %llu over the cap %llu",
                     static_cast<unsigned long long>(s.pinned_in_use_bytes),
                     static_cast<unsigned long long>(s.pinned_cached_bytes),
                     static_cast<unsigned long long>(pinned_cap_));
    std::uint64_t pinned = 0, device = 0;
    for (const Block& b : live_) (b.kind == Kind::pinned ? pinned : device) += b.bytes;
    FERRY_FUZZ_CHECK(s.pinned_in_use_bytes >= pinned && s.device_in_use_bytes >= device,
                     "in use: pinned %llu device %llu, the live blocks hold %llu and %llu",
                     static_cast<unsigned long long>(s.pinned_in_use_bytes),
                     static_cast<unsigned long long>(s.device_in_use_bytes), static_cast<unsigned long long>(pinned),
                     static_cast<unsigned long long>(device));
    FERRY_FUZZ_CHECK(s.pinned_peak_bytes >= s.pinned_in_use_bytes && s.device_peak_bytes >= s.device_in_use_bytes,
                     "a peak below its gauge");
    // A struct of another size: nothing written past it.
    ferry_stats full;
    ferry_stats_init(&full, sizeof full);
    SizedStruct sized;
    static const std::size_t sizes[] = {sizeof(ferry_stats), 8, 9, 16, sizeof(ferry_stats) - 8, sizeof(ferry_stats) + 8, 0};
    const std::size_t declared = sizes[in_.pick(7)];
    sized.set(&full, sizeof full, declared, 0);
    check_status(ferry_stats_get(static_cast<ferry_stats*>(sized.get()), ctx_), "ferry_stats_get (sized)");
  }

  void misuse() {
    void* p = reinterpret_cast<void*>(1);
    ferry_status st;
    switch (in_.pick(6)) {
      case 0:
        st = ferry_memory_alloc_host(nullptr, ctx_, 64);
        FERRY_FUZZ_CHECK(st == FERRY_ERR_INVALID_ARGUMENT, "host_alloc(NULL out) gave %s", ferry_status_string(st));
        break;
      case 1:
        st = ferry_memory_alloc_device(nullptr, ctx_, 64, nullptr);
        FERRY_FUZZ_CHECK(st == FERRY_ERR_INVALID_ARGUMENT, "device_alloc(NULL out) gave %s", ferry_status_string(st));
        break;
      case 2:
        st = ferry_memory_alloc_host(&p, nullptr, 64);
        FERRY_FUZZ_CHECK(st == FERRY_ERR_INVALID_HANDLE && p == reinterpret_cast<void*>(1),
                         "host_alloc on a NULL context gave %s", ferry_status_string(st));
        break;
      case 3: {
        // A handle that was never issued: any value, but with another type tag (the top byte)
        // than live contexts have, so the fuzzer cannot rebuild a live id.
        const auto live = reinterpret_cast<std::uintptr_t>(ctx_);
        std::uintptr_t v = static_cast<std::uintptr_t>(in_.u64()) | 1;
        if ((v >> 56) == (live >> 56)) v ^= std::uintptr_t{1} << 63;
        auto fake = reinterpret_cast<ferry_context_t>(v);
        st = in_.flag() ? ferry_memory_alloc_device(&p, fake, 64, nullptr) : ferry_memory_trim(fake, FERRY_MEMORY_ALL);
        FERRY_FUZZ_CHECK(st == FERRY_ERR_INVALID_HANDLE, "a foreign context handle gave %s", ferry_status_string(st));
        break;
      }
      case 4:
        st = ferry_memory_unregister_host(ctx_, nullptr);
        FERRY_FUZZ_CHECK(st != FERRY_OK, "unregister(NULL) succeeded");
        break;
      default:
        FERRY_FUZZ_CHECK(ferry_memory_free_host(ctx_, nullptr) == FERRY_OK &&
                             ferry_memory_free_device(ctx_, nullptr, nullptr) == FERRY_OK &&
                             ferry_memory_free_host_on_stream(ctx_, nullptr, nullptr) == FERRY_OK,
                         "freeing NULL is not FERRY_OK");
        return;
    }
    check_status(st, "misuse");
  }

  void step() {
    switch (in_.pick(16)) {
      case 0: case 1: case 2: alloc(Kind::pinned); break;
      case 3: free_one(Kind::pinned, 0); break;
      case 4: free_one(Kind::pinned, 1); break;
      case 5: case 6: alloc(Kind::device); break;
      case 7: free_one(Kind::device, 0); break;
      case 8: do_register(); break;
      case 9: do_unregister(); break;
      case 10: {
        // Trimming gives whole segments back (each costly to get again under ASan): now and then.
        if (in_.pick(8) != 0) {
          check_stats();
          break;
        }
        const unsigned kinds = in_.pick(8) == 7 ? in_.u32() : static_cast<unsigned>(in_.pick(8));
        const ferry_status st = ferry_memory_trim(ctx_, kinds);
        check_status(st, "ferry_memory_trim");
        FERRY_FUZZ_CHECK((st == FERRY_OK) == (kinds != 0 && kinds <= 7), "trim(%u) gave %s", kinds,
                         ferry_status_string(st));
        for (const Block& b : live_) verify(b);
        break;
      }
      case 11: check_stats(); break;
      case 12:
        FERRY_FUZZ_CHECK(ferry_stats_reset(ctx_) == FERRY_OK, "reset_stats: %s", ferry_last_error());
        break;
      case 13: bad_free(); break;
      case 14: misuse(); break;
      default:
        for (const Block& b : live_) verify(b);
        break;
    }
  }

  void finish(const ferry_stats& before) {
    for (const Block& b : live_) {
      verify(b);
      const ferry_status st = b.kind == Kind::pinned ? ferry_memory_free_host(ctx_, b.p)
                                                     : ferry_memory_free_device(ctx_, b.p, nullptr);
      FERRY_FUZZ_CHECK(st == FERRY_OK, "freeing a live block at the end: %s", ferry_last_error());
    }
    live_.clear();
    for (const Registration& r : regs_) {
      const ferry_status st = ferry_memory_unregister_host(ctx_, reinterpret_cast<const void*>(r.start));
      FERRY_FUZZ_CHECK(st == FERRY_OK, "unregistering at the end: %s", ferry_last_error());
    }
    regs_.clear();
    check_stats();
    const ferry_stats s = stats();
    FERRY_FUZZ_CHECK(s.pinned_in_use_bytes == 0 && s.device_in_use_bytes == 0,
                     "everything freed, yet in use: pinned %llu device %llu",
                     static_cast<unsigned long long>(s.pinned_in_use_bytes),
                     static_cast<unsigned long long>(s.device_in_use_bytes));
    FERRY_FUZZ_CHECK(s.registered_bytes == before.registered_bytes, "registered bytes %llu, %llu before",
                     static_cast<unsigned long long>(s.registered_bytes),
                     static_cast<unsigned long long>(before.registered_bytes));
  }

  void check_status(ferry_status st, const char* call) {
    // FERRY_ERR_OUTPUT_TOO_SMALL is the last status (new ones are appended).
    FERRY_FUZZ_CHECK(st >= FERRY_OK && st <= FERRY_ERR_OUTPUT_TOO_SMALL && st != FERRY_ERR_INTERNAL,
                     "%s returned %d (%s)", call, static_cast<int>(st), ferry_last_error());
    if (st != FERRY_OK) FERRY_FUZZ_CHECK(ferry_last_error()[0] != '\0', "%s failed with no message", call);
  }

  Input& in_;
  ferry_context_t ctx_;
  std::uint64_t pinned_cap_;
  std::vector<Block> live_;
  std::vector<Registration> regs_;
  std::vector<std::uint8_t*> freed_;
  std::uint8_t tag_ = 0;
};

// ferry_context_create with options a C caller may write: boundary values, enums out of
// range, every struct size. It succeeds or says why; a context it creates works and goes.
void fuzz_context_options(Input& in) {
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  // Values at and past each option's bounds; no 1024-thread pools or 1 GiB preallocations (slow).
  static const int ints[] = {0, 1, 2, 3, -1, 64, 65, 256, 257, 1025, INT32_MIN, INT32_MAX};
  static const std::uint64_t sizes[] = {0, 1, 4096, (1u << 20) - 1, 1u << 20, 2u << 20, 64u << 20, 1u << 30,
                                        (std::uint64_t{1} << 30) + 1, ~std::uint64_t{0}, std::uint64_t{1} << 40};
  auto an_int = [&] { return ints[in.pick(12)]; };
  auto a_size = [&] { return sizes[in.pick(11)]; };
  if (in.pick(4) == 0) set_enum(o.device_kind, in.pick(8) == 0 ? static_cast<int>(in.wild_int()) : in.pick(4));
  if (in.pick(4) == 0) o.device_index = an_int();
  if (in.pick(4) == 0) o.stream_count = an_int();
  if (in.pick(4) == 0) o.high_priority_streams = an_int();
  if (in.pick(4) == 0) o.pinned_cache_bytes = a_size();
  if (in.pick(4) == 0) o.pinned_prealloc_bytes = in.flag() ? 2u << 20 : o.pinned_cache_bytes + 1;
  if (in.pick(4) == 0) o.pinned_wait_at_cap = an_int();
  if (in.pick(4) == 0) o.registry_cache_bytes = a_size();
  if (in.pick(4) == 0) o.device_cache_bytes = a_size();
  if (in.pick(4) == 0) o.staging_threads = an_int();
  if (in.pick(4) == 0) o.cpu_threads = an_int();
  if (in.pick(4) == 0) o.chunk_bytes = a_size();
  if (in.pick(4) == 0) o.max_batches_in_flight = an_int();
  if (in.pick(4) == 0) o.max_staging_bytes = a_size();
  if (in.pick(4) == 0) o.submit_nonblocking = an_int();
  if (in.pick(4) == 0) o.max_unreleased_batches = a_size();
  if (in.pick(4) == 0) set_enum(o.pinned_method, in.pick(8) == 0 ? static_cast<int>(in.wild_int()) : an_int());
  if (in.pick(4) == 0) set_enum(o.device_timing, in.pick(8) == 0 ? static_cast<int>(in.wild_int()) : an_int());
  // Struct sizes: this header's, the 0.1 layout's (before max_unreleased_batches), the 0.2
  // layout's (before its tail padding's successor), larger with a zero or a non-zero tail,
  // torn, garbage; or NULL (the defaults).
  static const std::size_t declared_sizes[] = {sizeof o, offsetof(ferry_context_options, max_unreleased_batches),
                                               sizeof o + 8, sizeof o + 8, 9, 16, sizeof o - 4, 0, 65537,
                                               offsetof(ferry_context_options, unused_0_2_padding) + 4};
  const int size_choice = in.pick(11);
  SizedStruct sized;
  const bool null_options = size_choice == 10;
  if (!null_options) sized.set(&o, sizeof o, declared_sizes[size_choice], size_choice == 3 ? 1 : 0);
  ferry_context_t ctx = nullptr;
  const ferry_status st =
      ferry_context_create(&ctx, null_options ? nullptr : static_cast<const ferry_context_options*>(sized.get()));
  FERRY_FUZZ_CHECK(st >= FERRY_OK && st <= FERRY_ERR_OUTPUT_TOO_SMALL && st != FERRY_ERR_INTERNAL,
                   "ferry_context_create returned %d (%s)",
                   static_cast<int>(st), ferry_last_error());
  if (st != FERRY_OK) {
    FERRY_FUZZ_CHECK(ctx == nullptr, "a failed ferry_context_create wrote *out");
    FERRY_FUZZ_CHECK(ferry_last_error()[0] != '\0', "ferry_context_create failed with no message");
    return;
  }
  FERRY_FUZZ_CHECK(ctx != nullptr, "ferry_context_create returned FERRY_OK and NULL");
  void* p = nullptr;
  if (ferry_memory_alloc_host(&p, ctx, 4096) == FERRY_OK) {
    std::memset(p, 1, 4096);
    FERRY_FUZZ_CHECK(ferry_memory_free_host(ctx, p) == FERRY_OK, "host_free: %s", ferry_last_error());
  }
  // AUTO or CUDA picks the GPU where there is one (the replay on a GPU machine):
  // its device memory is not the host's to write.
  ferry_device_kind kind = FERRY_DEVICE_CPU;
  int index = 0;
  FERRY_FUZZ_CHECK(ferry_context_get_device(&kind, &index, ctx) == FERRY_OK, "ferry_context_get_device: %s",
                   ferry_last_error());
  if (ferry_memory_alloc_device(&p, ctx, 4096, nullptr) == FERRY_OK) {
    if (kind == FERRY_DEVICE_CPU) std::memset(p, 1, 4096);
    FERRY_FUZZ_CHECK(ferry_memory_free_device(ctx, p, nullptr) == FERRY_OK, "device_free: %s", ferry_last_error());
  }
  FERRY_FUZZ_CHECK(ferry_context_destroy(ctx) == FERRY_OK, "ferry_context_destroy: %s", ferry_last_error());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  const int mode = in.pick(16);
  if (mode == 15) {
    fuzz_context_options(in);
    return 0;
  }
  if (mode < 14) {
    ferry_context_options defaults;
    ferry_context_options_init(&defaults, sizeof defaults);
    Session(in, shared_context(), defaults.pinned_cache_bytes).run();
    return 0;
  }
  // A fresh context with small caps, destroyed at the end with whatever is still held.
  ferry_context_options o;
  ferry_context_options_init(&o, sizeof o);
  o.device_kind = FERRY_DEVICE_CPU;
  o.cpu_threads = 1;
  o.staging_threads = 1;
  o.stream_count = 1 + in.pick(4);
  static const std::uint64_t caps[] = {1u << 20, (1u << 20) + 4096, 2u << 20, 8u << 20, 64u << 20};
  o.pinned_cache_bytes = caps[in.pick(5)];
  o.max_staging_bytes = 1u << 20;
  // Preallocation is rounded up to whole 2 MiB segments, which must fit under the cap.
  if (in.pick(4) == 3 && o.pinned_cache_bytes % (2u << 20) == 0)
    o.pinned_prealloc_bytes = in.flag() ? (2u << 20) - 4096 : o.pinned_cache_bytes;
  o.pinned_wait_at_cap = in.flag();
  static const std::uint64_t device_caps[] = {0, 4096, 1u << 20, 2u << 30};
  o.device_cache_bytes = device_caps[in.pick(4)];
  o.registry_cache_bytes = in.flag() ? 0 : 4096;
  ferry_context_t ctx = nullptr;
  const ferry_status st = ferry_context_create(&ctx, &o);
  FERRY_FUZZ_CHECK(st == FERRY_OK, "ferry_context_create: %s", ferry_last_error());
  const bool leave_blocks = in.pick(4) == 3;
  {
    Session session(in, ctx, o.pinned_cache_bytes);
    if (!leave_blocks) {
      session.run();
    } else {
      // Allocate and leave it all to ferry_context_destroy.
      for (int i = 0; i < 8; ++i) {
        void* p = nullptr;
        if (ferry_memory_alloc_host(&p, ctx, 1 + in.u16() % 8192) == FERRY_OK) std::memset(p, 1, 1);
        if (ferry_memory_alloc_device(&p, ctx, 1 + in.u16() % 8192, nullptr) == FERRY_OK) std::memset(p, 1, 1);
      }
      ferry_memory_register_host(ctx, register_arena(), 4096);
    }
  }
  FERRY_FUZZ_CHECK(ferry_context_destroy(ctx) == FERRY_OK, "ferry_context_destroy: %s", ferry_last_error());
  void* p = nullptr;
  FERRY_FUZZ_CHECK(ferry_memory_alloc_host(&p, ctx, 64) == FERRY_ERR_INVALID_HANDLE,
                   "a destroyed context still allocates");
  FERRY_FUZZ_CHECK(ferry_context_destroy(ctx) != FERRY_OK, "destroying a context twice succeeded");
  return 0;
}
