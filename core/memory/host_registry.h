// HostRegistry: callers' pageable buffers registered with cudaHostRegister,
// so copies from them run at pinned speed.
//
// Two kinds of entries, in one map ordered by page:
//   - explicit (ferry_memory_register_host): kept until unregister or the end of the
//     context; never evicted, not counted against the cap;
//   - cached (lookup_or_register, used by the pipeline): kept in an LRU whose
//     registered bytes never exceed cache_cap_bytes; the least recently used
//     entries are unregistered to make room.
// CUDA pins whole pages and refuses a range that shares a page with another
// registration (cudaErrorHostMemoryAlreadyRegistered), so overlap is decided
// on page-rounded ranges: no two entries ever share a page.
// An entry in use by a copy in flight is pinned (pin count > 0): it is not
// evicted, trimmed, dropped or unregistered until unpinned.
//
// One mutex guards everything; it is held across cudaHostRegister and
// cudaHostUnregister (fractions of a millisecond to ~10 ms for 256 MB), so a
// registration makes concurrent lookups wait. Every method is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <vector>

#include "core/device/device_runtime.h"
#include "core/memory/memory_counters.h"

namespace ferry::core {

class HostRegistry {
 public:
  // page_size: the system's (sysconf) when 0.
  HostRegistry(DeviceRuntime& backend, std::size_t cache_cap_bytes, std::size_t page_size = 0);
  ~HostRegistry();  // unregisters every entry
  HostRegistry(const HostRegistry&) = delete;
  HostRegistry& operator=(const HostRegistry&) = delete;

  // ferry_memory_register_host. Throws Status::InvalidArgument (NULL, 0 bytes),
  // Status::Overflow (ptr + bytes wraps), Status::AlreadyExists (shares a
  // page with an explicit registration, or registered outside ferry),
  // Status::Busy (shares a page with a cached entry a copy in flight uses).
  // Cached entries that share its pages are dropped first.
  void register_explicit(const void* ptr, std::size_t bytes);
  // ferry_memory_unregister_host: the entry (explicit or cached) starting at ptr.
  // Status::NotFound if none, Status::Busy while a copy uses it.
  void unregister(const void* ptr);

  // For the pipeline: true if [ptr, ptr + bytes) is registered now (found, or
  // registered by this call). False (declined, nothing changed) if it is NULL
  // or empty, larger than the cap, shares pages with an explicit
  // registration that does not contain it or with a pinned entry, cannot be
  // made room for, or CUDA refuses it. With pin = true and a true result the
  // entry holding the range is pinned: call unpin(ptr, bytes) after the copy.
  bool lookup_or_register(const void* ptr, std::size_t bytes, bool pin = false);
  // Pins the entry containing the range if there is one (no registration).
  bool pin_if_registered(const void* ptr, std::size_t bytes);
  // Undoes one pin. Status::NotFound if no pinned entry contains the range.
  void unpin(const void* ptr, std::size_t bytes);
  // Whether one entry (explicit or cached) contains [ptr, ptr + bytes).
  bool contains(const void* ptr, std::size_t bytes) const;
  // Unregisters every cached entry that is not pinned; returns the bytes.
  std::size_t trim();

  struct Stats {
    std::uint64_t registered_bytes = 0, registered_peak_bytes = 0, cached_bytes = 0;
    std::uint64_t hits = 0, misses = 0, register_calls = 0, register_ns = 0;
    std::size_t entries = 0;
  };
  Stats stats() const;
  void reset_counters() noexcept;
  std::size_t cache_cap_bytes() const noexcept { return cap_; }

 private:
  struct Entry {
    std::uintptr_t start = 0, end = 0;          // the bytes registered
    std::uintptr_t page_lo = 0, page_hi = 0;    // the pages they touch
    bool is_explicit = false;
    std::uint32_t pins = 0;
    std::list<std::uintptr_t>::iterator lru;  // cached only; front = most recent
  };
  using Map = std::map<std::uintptr_t, Entry>;  // by page_lo; page ranges never overlap

  // The whole pages [lo, hi) that [start, end) touches (CUDA registers pages).
  struct PageSpan {
    std::uintptr_t lo, hi;
  };
  PageSpan pages_of(std::uintptr_t start, std::uintptr_t end) const noexcept {
    const auto mask = static_cast<std::uintptr_t>(page_) - 1;
    return {start & ~mask, ((end - 1) | mask) + 1};
  }
  std::vector<Map::iterator> overlapping(std::uintptr_t page_lo, std::uintptr_t page_hi);
  Map::iterator containing(std::uintptr_t start, std::uintptr_t end);
  Map::const_iterator containing(std::uintptr_t start, std::uintptr_t end) const;
  void erase(Map::iterator it);  // unregisters and forgets one entry
  bool make_room(std::size_t bytes);
  Map::iterator insert(std::uintptr_t start, std::uintptr_t end, bool is_explicit);
  RegisterOutcome backend_register(const void* ptr, std::size_t bytes);

  DeviceRuntime& backend_;
  const std::size_t cap_;
  const std::size_t page_;
  mutable std::mutex mutex_;
  Map entries_;
  std::list<std::uintptr_t> lru_;  // page_lo of cached entries
  std::uint64_t cached_bytes_ = 0, explicit_bytes_ = 0;
  std::atomic<std::uint64_t> peak_{0}, hits_{0}, misses_{0};
  CallCounter register_calls_;
};

}  // namespace ferry::core
