#include "core/memory/host_registry.h"

#include <unistd.h>

#include <iterator>

#include "core/error.h"

namespace ferry::core {
namespace {

std::size_t system_page_size() {
  const long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::size_t>(p) : 4096;
}

const void* as_ptr(std::uintptr_t a) { return reinterpret_cast<const void*>(a); }

// Whether [start, start + bytes) and its page-rounded end stay inside the address space.
bool fits_address_space(std::uintptr_t start, std::size_t bytes, std::size_t page) {
  return start <= UINTPTR_MAX - page && bytes <= UINTPTR_MAX - page - start;
}

}  // namespace

HostRegistry::HostRegistry(DeviceRuntime& backend, std::size_t cache_cap_bytes, std::size_t page_size)
    : backend_(backend), cap_(cache_cap_bytes), page_(page_size != 0 ? page_size : system_page_size()) {}

HostRegistry::~HostRegistry() {
  std::lock_guard<std::mutex> lock(mutex_);
  while (!entries_.empty()) erase(entries_.begin());
}

std::vector<HostRegistry::Map::iterator> HostRegistry::overlapping(std::uintptr_t page_lo, std::uintptr_t page_hi) {
  std::vector<Map::iterator> out;
  auto it = entries_.upper_bound(page_lo);
  if (it != entries_.begin()) {
    auto before = std::prev(it);
    if (before->second.page_hi > page_lo) out.push_back(before);
  }
  for (; it != entries_.end() && it->first < page_hi; ++it) out.push_back(it);
  return out;
}

HostRegistry::Map::iterator HostRegistry::containing(std::uintptr_t start, std::uintptr_t end) {
  auto it = entries_.upper_bound(start);  // the only candidate starts at or before `start`'s page
  if (it == entries_.begin()) return entries_.end();
  --it;
  return it->second.start <= start && end <= it->second.end ? it : entries_.end();
}

HostRegistry::Map::const_iterator HostRegistry::containing(std::uintptr_t start, std::uintptr_t end) const {
  return const_cast<HostRegistry*>(this)->containing(start, end);
}

void HostRegistry::erase(Map::iterator it) {
  Entry& e = it->second;
  backend_.host_unregister(as_ptr(e.start));
  if (e.is_explicit) {
    explicit_bytes_ -= e.end - e.start;
  } else {
    cached_bytes_ -= e.end - e.start;
    lru_.erase(e.lru);
  }
  entries_.erase(it);
}

bool HostRegistry::make_room(std::size_t bytes) {
  while (cached_bytes_ + bytes > cap_) {
    auto victim = lru_.end();
    for (auto it = lru_.rbegin(); it != lru_.rend(); ++it)  // least recently used first
      if (entries_.at(*it).pins == 0) {
        victim = std::prev(it.base());
        break;
      }
    if (victim == lru_.end()) return false;  // everything left is in use by copies in flight
    erase(entries_.find(*victim));
  }
  return true;
}

HostRegistry::Map::iterator HostRegistry::insert(std::uintptr_t start, std::uintptr_t end, bool is_explicit) {
  Entry e;
  e.start = start;
  e.end = end;
  const PageSpan pages = pages_of(start, end);  // callers checked: no wrap
  e.page_lo = pages.lo;
  e.page_hi = pages.hi;
  e.is_explicit = is_explicit;
  try {
    auto it = entries_.emplace(e.page_lo, e).first;
    try {
      if (!is_explicit) it->second.lru = lru_.insert(lru_.begin(), e.page_lo);
    } catch (...) {
      entries_.erase(it);
      throw;
    }
    if (is_explicit) {
      explicit_bytes_ += end - start;
    } else {
      cached_bytes_ += end - start;
    }
    raise_peak(peak_, explicit_bytes_ + cached_bytes_);
    return it;
  } catch (...) {
    backend_.host_unregister(as_ptr(start));  // registered, but no memory to remember it
    throw;
  }
}

RegisterOutcome HostRegistry::backend_register(const void* ptr, std::size_t bytes) {
  CallTimer timer(register_calls_);
  return backend_.host_register(ptr, bytes);
}

void HostRegistry::register_explicit(const void* ptr, std::size_t bytes) {
  FERRY_EXPECT(ptr != nullptr, Status::InvalidArgument, "ptr is NULL");
  FERRY_EXPECT(bytes > 0, Status::InvalidArgument, "bytes is 0: nothing to register");
  const auto start = reinterpret_cast<std::uintptr_t>(ptr);
  FERRY_EXPECT(fits_address_space(start, bytes, page_), Status::Overflow, "bytes is ", bytes, ": ptr (", ptr,
               ") + bytes runs past the end of the address space");
  const std::uintptr_t end = start + bytes;
  const PageSpan pages = pages_of(start, end);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto over = overlapping(pages.lo, pages.hi);
  for (auto it : over)
    FERRY_EXPECT(!it->second.is_explicit, Status::AlreadyExists, "ptr is ", ptr, ", bytes is ", bytes,
                 ": the range shares memory pages with the registration [", as_ptr(it->second.start), ", +",
                 it->second.end - it->second.start,
                 ") (CUDA registers whole pages); unregister that one first");
  for (auto it : over)
    FERRY_EXPECT(it->second.pins == 0, Status::Busy, "ptr is ", ptr, ", bytes is ", bytes,
                 ": the range shares pages with a cached registration that a batch in flight is reading; "
                 "retry after the batch completed");
  for (auto it : over) erase(it);
  const RegisterOutcome outcome = backend_register(ptr, bytes);
  FERRY_EXPECT(outcome == RegisterOutcome::kRegistered, Status::AlreadyExists, "ptr is ", ptr, ", bytes is ",
               bytes, ": this memory is already page-locked outside ferry (cudaHostRegister by someone else, or "
               "memory from cudaHostAlloc/ferry_memory_alloc_host, which needs no registration)");
  insert(start, end, true);
}

void HostRegistry::unregister(const void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto start = reinterpret_cast<std::uintptr_t>(ptr);
  auto it = start == UINTPTR_MAX ? entries_.end() : containing(start, start + 1);
  FERRY_EXPECT(it != entries_.end() && it->second.start == start, Status::NotFound, "ptr is ", ptr,
               ": no registration of this context starts there");
  FERRY_EXPECT(it->second.pins == 0, Status::Busy, "ptr is ", ptr, ": ", it->second.pins,
               " batch copies in flight still read this registration; wait for them first");
  erase(it);
}

bool HostRegistry::lookup_or_register(const void* ptr, std::size_t bytes, bool pin) {
  const auto start = reinterpret_cast<std::uintptr_t>(ptr);
  if (ptr == nullptr || bytes == 0 || !fits_address_space(start, bytes, page_)) return false;
  const std::uintptr_t end = start + bytes;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = containing(start, end); it != entries_.end()) {
    hits_.fetch_add(1, std::memory_order_relaxed);
    if (!it->second.is_explicit) lru_.splice(lru_.begin(), lru_, it->second.lru);
    if (pin) ++it->second.pins;
    return true;
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  if (bytes > cap_) return false;
  const PageSpan pages = pages_of(start, end);
  const auto over = overlapping(pages.lo, pages.hi);
  for (auto it : over)
    if (it->second.is_explicit || it->second.pins != 0) return false;
  for (auto it : over) erase(it);  // older, smaller or stale registrations of these pages
  if (!make_room(bytes)) return false;
  RegisterOutcome outcome;
  try {
    outcome = backend_register(ptr, bytes);
  } catch (const Error&) {
    return false;  // CUDA refuses this memory: the pipeline stages it instead
  }
  if (outcome != RegisterOutcome::kRegistered) return false;
  auto it = insert(start, end, false);
  if (pin) ++it->second.pins;
  return true;
}

bool HostRegistry::pin_if_registered(const void* ptr, std::size_t bytes) {
  const auto start = reinterpret_cast<std::uintptr_t>(ptr);
  if (ptr == nullptr || bytes == 0 || !fits_address_space(start, bytes, page_)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = containing(start, start + bytes);
  if (it == entries_.end()) return false;
  ++it->second.pins;
  return true;
}

void HostRegistry::unpin(const void* ptr, std::size_t bytes) {
  const auto start = reinterpret_cast<std::uintptr_t>(ptr);
  FERRY_EXPECT(ptr != nullptr && bytes > 0 && fits_address_space(start, bytes, page_), Status::InvalidArgument, "ptr is ",
               ptr, ", bytes is ", bytes, ": not a range");
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = containing(start, start + bytes);
  FERRY_EXPECT(it != entries_.end() && it->second.pins > 0, Status::NotFound, "ptr is ", ptr, ", bytes is ",
               bytes, ": no pinned registration contains this range (unpinned twice?)");
  --it->second.pins;
}

bool HostRegistry::contains(const void* ptr, std::size_t bytes) const {
  const auto start = reinterpret_cast<std::uintptr_t>(ptr);
  if (ptr == nullptr || bytes == 0 || !fits_address_space(start, bytes, page_)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return containing(start, start + bytes) != entries_.end();
}

std::size_t HostRegistry::trim() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t released = 0;
  for (auto it = lru_.begin(); it != lru_.end();) {
    auto entry = entries_.find(*it);
    ++it;  // erase() removes the LRU node we stood on
    if (entry->second.pins != 0) continue;
    released += entry->second.end - entry->second.start;
    erase(entry);
  }
  return released;
}

HostRegistry::Stats HostRegistry::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats s;
  s.registered_bytes = explicit_bytes_ + cached_bytes_;
  s.registered_peak_bytes = peak_.load(std::memory_order_relaxed);
  s.cached_bytes = cached_bytes_;
  s.hits = hits_.load(std::memory_order_relaxed);
  s.misses = misses_.load(std::memory_order_relaxed);
  s.register_calls = register_calls_.calls.load(std::memory_order_relaxed);
  s.register_ns = register_calls_.ns.load(std::memory_order_relaxed);
  s.entries = entries_.size();
  return s;
}

void HostRegistry::reset_counters() noexcept {
  hits_.store(0, std::memory_order_relaxed);
  misses_.store(0, std::memory_order_relaxed);
  register_calls_.reset();
}

}  // namespace ferry::core
