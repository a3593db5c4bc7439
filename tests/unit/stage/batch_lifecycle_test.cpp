// A batch's lifecycle (core/stage/batch_hold.h, batch.h): its resources are
// given back exactly once, by the transition named, in every order of finish,
// release, detach and the last reference going; one first observer of
// completion; a release never gives back events a thread is still waiting on.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/stage/batch.h"

namespace {

using namespace ferry;
using core::BatchHold;

enum class Event { kFinish, kRelease, kDetach };

// Runs the events in order, then the last reference going; returns who gave
// the resources back, one name per give-back.
std::vector<std::string> give_backs(const std::vector<Event>& events) {
  BatchHold hold;
  bool finished = false;
  std::vector<std::string> by;
  for (Event e : events) {
    switch (e) {
      case Event::kFinish:
        finished = true;
        if (hold.finish()) by.push_back("finish");
        break;
      case Event::kRelease:
        if (hold.release(finished).give_back) by.push_back("release");
        break;
      case Event::kDetach:
        if (hold.detach()) by.push_back("detach");
        break;
    }
  }
  if (hold.last_reference_gone()) by.push_back("last reference");
  EXPECT_FALSE(hold.holds());
  return by;
}

using Names = std::vector<std::string>;

TEST(BatchHold, EveryOrderGivesTheResourcesBackExactlyOnce) {
  std::vector<Event> all = {Event::kFinish, Event::kRelease, Event::kDetach};
  std::sort(all.begin(), all.end());
  do {
    for (std::size_t n = 0; n <= all.size(); ++n) {
      const std::vector<Event> events(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_EQ(give_backs(events).size(), 1u) << "events: " << n;
    }
  } while (std::next_permutation(all.begin(), all.end()));
}

TEST(BatchHold, EachTransitionGivesBackWhatItsContractSays) {
  EXPECT_EQ(give_backs({Event::kFinish, Event::kRelease}), Names{"release"});
  EXPECT_EQ(give_backs({Event::kRelease, Event::kFinish}), Names{"finish"});
  EXPECT_EQ(give_backs({Event::kFinish, Event::kDetach}), Names{"detach"});
  EXPECT_EQ(give_backs({Event::kFinish, Event::kRelease, Event::kDetach}), Names{"release"});
  EXPECT_EQ(give_backs({Event::kFinish}), Names{"last reference"});
  EXPECT_EQ(give_backs({}), Names{"last reference"});
  EXPECT_EQ(give_backs({Event::kDetach, Event::kRelease}), Names{"detach"});
}

TEST(BatchHold, OnlyTheFirstReleaseCounts) {
  BatchHold hold;
  EXPECT_TRUE(hold.release(false).first);
  EXPECT_EQ(hold.state(), BatchHold::State::kReleased);
  EXPECT_FALSE(hold.release(true).first);
  EXPECT_FALSE(hold.release(true).give_back);  // the finish gives them back
  EXPECT_TRUE(hold.finish());
  EXPECT_TRUE(hold.released());
  EXPECT_EQ(hold.state(), BatchHold::State::kGivenBack);
}

std::shared_ptr<core::Batch> bare_batch() {
  return std::make_shared<core::Batch>(std::make_shared<core::StagerLink>());
}

// A release racing the completion thread's finish: exactly one gives back.
TEST(BatchLifecycle, ReleaseRacingFinishGivesBackOnce) {
  for (int round = 0; round < 2000; ++round) {
    auto b = bare_batch();
    std::atomic<int> gave{0};
    std::thread finisher([&] {
      std::unique_lock<std::mutex> lock(b->mutex);
      if (b->finish_locked(lock)) ++gave;
    });
    {
      std::unique_lock<std::mutex> lock(b->mutex);
      if (b->release_locked(lock).give_back) ++gave;
    }
    finisher.join();
    ASSERT_EQ(gave.load(), 1) << "round " << round;
    std::unique_lock<std::mutex> lock(b->mutex);
    EXPECT_EQ(b->hold_locked(), BatchHold::State::kGivenBack);
    EXPECT_THROW(b->expect_held_locked(), Error);
  }
}

TEST(BatchLifecycle, OneFirstObserverOfCompletion) {
  for (int round = 0; round < 500; ++round) {
    auto b = bare_batch();
    std::atomic<int> first{0};
    std::vector<std::thread> observers;
    for (int t = 0; t < 3; ++t)
      observers.emplace_back([&] {
        if (b->first_to_observe_completion()) ++first;
      });
    for (auto& o : observers) o.join();
    ASSERT_EQ(first.load(), 1);
  }
}

// A thread waiting on the batch's events outside the lock keeps them: the
// release that gives them back waits until it is out.
TEST(BatchLifecycle, ReleaseWaitsForThreadsOnTheBatchsEvents) {
  auto b = bare_batch();
  {
    std::unique_lock<std::mutex> lock(b->mutex);
    b->finish_locked(lock);
    b->begin_event_use_locked();
  }
  std::atomic<bool> event_use_over{false}, gave{false};
  std::thread releaser([&] {
    std::unique_lock<std::mutex> lock(b->mutex);
    gave = b->release_locked(lock).give_back;
    EXPECT_TRUE(event_use_over.load());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  {
    std::unique_lock<std::mutex> lock(b->mutex);
    event_use_over = true;
    b->end_event_use_locked();
  }
  releaser.join();
  EXPECT_TRUE(gave.load());
}

}  // namespace
