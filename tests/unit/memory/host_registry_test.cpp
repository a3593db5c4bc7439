// HostRegistry on the fake backend (which, like CUDA, refuses ranges that share a page).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

#include <functional>
#include <thread>
#include <vector>

#include "core/memory/host_registry.h"
#include "tests/support/fake_runtime.h"

namespace ferry::core {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::uintptr_t kBase = std::uintptr_t{1} << 40;
const void* at(std::uintptr_t offset) { return reinterpret_cast<const void*>(kBase + offset); }

Status status_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
    return Status::Ok;
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
}

struct RegistryTest : ::testing::Test {
  test::FakeRuntime backend;
};

TEST_F(RegistryTest, LookupRegistersOnceThenHits) {
  HostRegistry r(backend, 1 << 20, kPage);
  EXPECT_TRUE(r.lookup_or_register(at(0), 10000));
  EXPECT_TRUE(r.lookup_or_register(at(0), 10000));
  EXPECT_TRUE(r.lookup_or_register(at(100), 500));  // inside
  EXPECT_TRUE(r.contains(at(100), 500));
  EXPECT_FALSE(r.contains(at(100), 10000));
  EXPECT_EQ(backend.registers, 1u);
  auto s = r.stats();
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.registered_bytes, 10000u);
  EXPECT_EQ(s.register_calls, 1u);
}

TEST_F(RegistryTest, LeastRecentlyUsedIsEvictedAtTheCap) {
  HostRegistry r(backend, 3 * 100 * kPage, kPage);
  const std::size_t n = 100 * kPage;
  EXPECT_TRUE(r.lookup_or_register(at(0), n));
  EXPECT_TRUE(r.lookup_or_register(at(n), n));
  EXPECT_TRUE(r.lookup_or_register(at(2 * n), n));
  EXPECT_TRUE(r.lookup_or_register(at(0), n));      // 0 becomes most recent
  EXPECT_TRUE(r.lookup_or_register(at(3 * n), n));  // evicts n, the least recent
  EXPECT_TRUE(r.contains(at(0), n));
  EXPECT_FALSE(r.contains(at(n), n));
  EXPECT_TRUE(r.contains(at(2 * n), n));
  EXPECT_EQ(r.stats().registered_bytes, 3 * n);
  EXPECT_EQ(backend.registrations(), 3u);
}

TEST_F(RegistryTest, PinnedEntriesAreNeverEvicted) {
  const std::size_t n = 100 * kPage;
  HostRegistry r(backend, 2 * n, kPage);
  EXPECT_TRUE(r.lookup_or_register(at(0), n, /*pin=*/true));
  EXPECT_TRUE(r.lookup_or_register(at(n), n, true));
  EXPECT_FALSE(r.lookup_or_register(at(2 * n), n));  // no room: everything in flight
  r.unpin(at(0), n);
  EXPECT_TRUE(r.lookup_or_register(at(2 * n), n));   // evicts 0 now
  EXPECT_FALSE(r.contains(at(0), n));
  EXPECT_EQ(status_of([&] { r.unpin(at(0), n); }), Status::NotFound);
  EXPECT_EQ(status_of([&] { r.unregister(at(n)); }), Status::Busy);
  EXPECT_EQ(r.trim(), n);  // only the unpinned one
  r.unpin(at(n), n);
  EXPECT_EQ(r.trim(), n);
  EXPECT_EQ(backend.registrations(), 0u);
}

TEST_F(RegistryTest, DeclinesWhatItCannotCache) {
  HostRegistry r(backend, 10 * kPage, kPage);
  EXPECT_FALSE(r.lookup_or_register(at(0), 11 * kPage));  // larger than the cap
  EXPECT_FALSE(r.lookup_or_register(nullptr, 10));
  EXPECT_FALSE(r.lookup_or_register(at(0), 0));
  r.register_explicit(at(0), 2 * kPage);
  EXPECT_FALSE(r.lookup_or_register(at(kPage), 2 * kPage));  // shares a page with an explicit one
  EXPECT_TRUE(r.lookup_or_register(at(100), 200));           // inside it: a hit
  backend.register_outside(at(100 * kPage), kPage);
  EXPECT_FALSE(r.lookup_or_register(at(100 * kPage), kPage));  // registered by someone else
  EXPECT_EQ(backend.bad_frees, 0u);
}

TEST_F(RegistryTest, OverlappingCachedEntriesAreReplaced) {
  HostRegistry r(backend, 1 << 30, kPage);
  EXPECT_TRUE(r.lookup_or_register(at(0), 4 * kPage));
  EXPECT_TRUE(r.lookup_or_register(at(0), 8 * kPage));  // grew: the old registration goes
  EXPECT_TRUE(r.contains(at(0), 8 * kPage));
  EXPECT_EQ(backend.registrations(), 1u);
  EXPECT_TRUE(r.lookup_or_register(at(8 * kPage - 10), kPage));  // shares a page with the first
  EXPECT_FALSE(r.contains(at(0), kPage));
  EXPECT_EQ(backend.registrations(), 1u);
}

TEST_F(RegistryTest, ExplicitRegistrationRules) {
  HostRegistry r(backend, 1 << 30, kPage);
  std::string msg;
  EXPECT_EQ(status_of([&] { r.register_explicit(nullptr, 10); }, &msg), Status::InvalidArgument);
  EXPECT_NE(msg.find("ptr is NULL"), std::string::npos);
  EXPECT_EQ(status_of([&] { r.register_explicit(at(0), 0); }), Status::InvalidArgument);
  EXPECT_EQ(status_of([&] { r.register_explicit(reinterpret_cast<const void*>(UINTPTR_MAX - 10), 100); }),
            Status::Overflow);
  EXPECT_TRUE(r.lookup_or_register(at(0), kPage));  // cached: dropped by the explicit one
  r.register_explicit(at(0), 3 * kPage);
  EXPECT_EQ(r.stats().cached_bytes, 0u);
  EXPECT_EQ(status_of([&] { r.register_explicit(at(2 * kPage), kPage); }, &msg), Status::AlreadyExists);
  EXPECT_NE(msg.find("shares memory pages"), std::string::npos) << msg;
  EXPECT_EQ(status_of([&] { r.register_explicit(at(3 * kPage - 1), 10); }), Status::AlreadyExists);
  r.register_explicit(at(3 * kPage), kPage);  // the next page is fine
  EXPECT_EQ(status_of([&] { r.unregister(at(100)); }), Status::NotFound);  // not a start
  r.unregister(at(0));
  EXPECT_EQ(status_of([&] { r.unregister(at(0)); }), Status::NotFound);   // twice
  EXPECT_EQ(r.trim(), 0u);  // explicit ones are not the cache's
  EXPECT_TRUE(r.contains(at(3 * kPage), kPage));
  EXPECT_EQ(r.stats().registered_bytes, kPage);
  EXPECT_EQ(r.stats().registered_peak_bytes, 4 * kPage);
}

TEST_F(RegistryTest, ExplicitOverAPinnedCachedEntryIsBusy) {
  HostRegistry r(backend, 1 << 30, kPage);
  EXPECT_TRUE(r.lookup_or_register(at(0), kPage, true));
  EXPECT_EQ(status_of([&] { r.register_explicit(at(0), kPage); }), Status::Busy);
  r.unpin(at(0), kPage);
  r.register_explicit(at(0), kPage);
}

TEST_F(RegistryTest, DestructorUnregistersEverything) {
  {
    HostRegistry r(backend, 1 << 30, kPage);
    r.register_explicit(at(0), kPage);
    EXPECT_TRUE(r.lookup_or_register(at(10 * kPage), kPage, true));
  }
  EXPECT_EQ(backend.registrations(), 0u);
  EXPECT_EQ(backend.bad_frees, 0u);
}

TEST_F(RegistryTest, ManyThreadsLookUpPinAndUnpin) {
  HostRegistry r(backend, 40 * kPage, kPage);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::uintptr_t slot = static_cast<std::uintptr_t>((i * 7 + t) % 64);
        const void* p = at(slot * 4 * kPage);
        if (r.lookup_or_register(p, 4 * kPage, true)) {
          EXPECT_TRUE(r.contains(p, 4 * kPage));
          r.unpin(p, 4 * kPage);
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_LE(r.stats().registered_bytes, 40 * kPage);
  r.trim();
  EXPECT_EQ(backend.registrations(), 0u);
}

}  // namespace
}  // namespace ferry::core
