// The one handle table (c_api/handle_table.h) under both policies: ids never
// found again once taken, type tags, threads racing insert/get/take, and a take
// that must never wait for a call waiting on the taker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <random>
#include <thread>
#include <vector>

#include "c_api/handle_table.h"

namespace {

using namespace ferry;
using api::HandleTable;
using api::OnTake;

// Counts its live instances and says whether it is still alive when used.
struct Probe {
  explicit Probe(std::atomic<int>& live) : live_(live) { live_.fetch_add(1); }
  ~Probe() {
    alive = false;
    live_.fetch_sub(1);
  }
  std::atomic<bool> alive{true};
  std::atomic<int>& live_;
};

Status status_of_get(HandleTable<Probe>& table, std::uint64_t id) {
  try {
    table.get(id, "handle");
    return Status::Ok;
  } catch (const Error& e) {
    return e.status();
  }
}

class HandleTableTest : public ::testing::TestWithParam<OnTake> {
 protected:
  std::atomic<int> live_{0};
  HandleTable<Probe> table_{0xAB, "probe", GetParam()};
};

TEST_P(HandleTableTest, TakenIdsAreNeverFoundAgainNorReused) {
  const std::uint64_t first = table_.insert(std::make_shared<Probe>(live_));
  EXPECT_EQ(first >> 56, 0xABu);
  EXPECT_TRUE(table_.get(first, "handle")->alive);
  EXPECT_EQ(live_.load(), 1);
  table_.take(first, "handle");
  EXPECT_EQ(live_.load(), 0);
  EXPECT_EQ(status_of_get(table_, first), Status::InvalidHandle);
  EXPECT_THROW(table_.take(first, "handle"), Error);
  const std::uint64_t second = table_.insert(std::make_shared<Probe>(live_));
  EXPECT_NE(second, first);
  EXPECT_EQ(status_of_get(table_, first), Status::InvalidHandle);
  EXPECT_EQ(status_of_get(table_, 0), Status::InvalidHandle);
}

TEST_P(HandleTableTest, AnotherTypesIdIsNotFound) {
  HandleTable<Probe> other(0xCD, "other", GetParam());
  const std::uint64_t mine = table_.insert(std::make_shared<Probe>(live_));
  const std::uint64_t theirs = other.insert(std::make_shared<Probe>(live_));
  EXPECT_EQ(status_of_get(table_, theirs), Status::InvalidHandle);
  EXPECT_EQ(status_of_get(other, mine), Status::InvalidHandle);
  try {
    table_.get(theirs, "ctx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ctx (0xcd"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is not a live probe"), std::string::npos) << e.what();
  }
}

TEST_P(HandleTableTest, TakeChildrenTakesOnlyThatParentsChildren) {
  std::vector<std::uint64_t> mine, theirs;
  for (int i = 0; i < 40; ++i) {
    mine.push_back(table_.insert(std::make_shared<Probe>(live_), 7));
    theirs.push_back(table_.insert(std::make_shared<Probe>(live_), 8));
  }
  EXPECT_EQ(table_.take_children(7).size(), mine.size());
  EXPECT_EQ(live_.load(), 40);
  for (std::uint64_t id : mine) EXPECT_EQ(status_of_get(table_, id), Status::InvalidHandle);
  for (std::uint64_t id : theirs) EXPECT_EQ(table_.get(id, "handle").parent(), 8u);
  EXPECT_TRUE(table_.take_children(7).empty());
}

// Threads insert, look up and take at random over a shared set of ids: each id
// is taken exactly once, no object is used after it is destroyed, none leaks.
TEST_P(HandleTableTest, ThreadsRacingInsertGetAndTakeTakeEachIdOnce) {
  constexpr int kThreads = 6, kIds = 64, kRounds = 3000;
  std::vector<std::atomic<std::uint64_t>> ids(kIds);
  for (auto& id : ids) id = table_.insert(std::make_shared<Probe>(live_));
  std::atomic<int> takes{0}, inserts{kIds}, used_dead{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      for (int r = 0; r < kRounds; ++r) {
        std::atomic<std::uint64_t>& slot = ids[rng() % kIds];
        const std::uint64_t id = slot.load();
        switch (rng() % 3) {
          case 0:
            if (std::optional<HandleTable<Probe>::Ref> ref = table_.find(id)) {
              if (!(*ref)->alive) ++used_dead;
              std::this_thread::yield();  // hold it while others take it
              if (!(*ref)->alive) ++used_dead;
            }
            break;
          case 1:
            try {
              table_.take(id, "handle");
              ++takes;
            } catch (const Error&) {
            }
            break;
          default: {
            std::uint64_t expected = id;
            const std::uint64_t fresh = table_.insert(std::make_shared<Probe>(live_));
            ++inserts;
            // Replace the slot's id only if it was taken; else take the fresh one back.
            if (status_of_get(table_, id) != Status::InvalidHandle || !slot.compare_exchange_strong(expected, fresh)) {
              table_.take(fresh, "handle");
              ++takes;
            }
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  int left = 0;
  for (auto& id : ids) {
    if (status_of_get(table_, id) == Status::Ok) {
      table_.take(id, "handle");
      ++left;
    }
  }
  EXPECT_EQ(used_dead.load(), 0);
  EXPECT_EQ(takes.load() + left, inserts.load());  // each inserted id taken exactly once
  EXPECT_EQ(live_.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(BothPolicies, HandleTableTest, ::testing::Values(OnTake::kWaitForCalls, OnTake::kNeverWait),
                         [](const auto& info) {
                           return info.param == OnTake::kWaitForCalls ? "WaitForCalls" : "NeverWait";
                         });

TEST(HandleTable, WaitForCallsTakeReturnsOnlyOnceTheCallsInsideHaveReturned) {
  std::atomic<int> live{0};
  HandleTable<Probe> table(0xAB, "probe", OnTake::kWaitForCalls);
  const std::uint64_t id = table.insert(std::make_shared<Probe>(live));
  std::atomic<bool> call_returned{false};
  std::promise<void> inside;
  std::thread call([&] {
    auto ref = table.get(id, "handle");
    inside.set_value();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    call_returned = true;
  });
  inside.get_future().wait();
  std::shared_ptr<Probe> taken = table.take(id, "handle").object;
  EXPECT_TRUE(call_returned.load());
  EXPECT_EQ(taken.use_count(), 1);  // destroyed by the taker, deterministically
  call.join();
}

// The shape of a completion callback releasing a batch another thread waits
// on: the waiter holds a Ref and waits for something only the taker's thread
// does after its take. The take must return at once; the object lives on
// until the waiter lets go.
TEST(HandleTable, NeverWaitTakeDoesNotWaitForACallWaitingOnTheTaker) {
  std::atomic<int> live{0};
  HandleTable<Probe> table(0xBA, "batch", OnTake::kNeverWait);
  const std::uint64_t id = table.insert(std::make_shared<Probe>(live));
  std::promise<void> inside, finished;
  std::shared_future<void> finished_seen = finished.get_future().share();
  std::atomic<bool> alive_after{false};
  std::thread waiter([&] {
    auto ref = table.get(id, "batch");
    inside.set_value();
    finished_seen.wait();  // like ferry_batch_wait, until the completion thread finishes it
    alive_after = ref->alive.load();
  });
  inside.get_future().wait();
  auto take = std::async(std::launch::async, [&] { table.take(id, "batch"); });
  ASSERT_EQ(take.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "take waited for the waiter";
  EXPECT_EQ(live.load(), 1);  // still held by the waiter's call
  finished.set_value();
  waiter.join();
  EXPECT_TRUE(alive_after.load());
  EXPECT_EQ(live.load(), 0);
}

}  // namespace
