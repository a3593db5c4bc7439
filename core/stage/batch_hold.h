// BatchHold: who holds a batch's device resources (its output block and
// events, which belong to the context's pools) and who gives them back.
// They are given back exactly once: each transition returns true when its
// caller is the one to give them back now.
//
//   held ──release, finished──────────────────────────▶ given back (by release)
//   held ──release, in flight──▶ released ──finish──▶ given back (by finish)
//   held or released ──detach (context destroyed)──▶ detached (by detach)
//   held or released ──the last reference goes────▶ given back (by the destructor)
//
// Pure logic; Batch keeps it under its lock, beside the stage it is told of.
#pragma once

#include <initializer_list>

namespace ferry::core {

class BatchHold {
 public:
  enum class State { kHeld, kReleased, kGivenBack, kDetached };
  struct ReleaseStep {
    bool first;      // the first release: its count against max_unreleased_batches goes back
    bool give_back;  // the caller gives the resources back now
  };

  // The handle was released; `finished`: the batch has finished.
  ReleaseStep release(bool finished) noexcept {
    const bool first = !released_;
    released_ = true;
    if (state_ != State::kHeld) return {first, false};
    state_ = finished ? State::kGivenBack : State::kReleased;
    return {first, finished};
  }
  // The batch finished: a release came first, so finishing gives them back.
  bool finish() noexcept { return move_from({State::kReleased}, State::kGivenBack); }
  // The context is being destroyed (every batch has finished): it gives back what is still held.
  bool detach() noexcept {
    if (state_ == State::kGivenBack) {
      state_ = State::kDetached;
      return false;
    }
    return move_from({State::kHeld, State::kReleased}, State::kDetached);
  }
  // The batch object goes (while its context lives): it gives back what is still held.
  bool last_reference_gone() noexcept { return move_from({State::kHeld, State::kReleased}, State::kGivenBack); }

  State state() const noexcept { return state_; }
  bool holds() const noexcept { return state_ == State::kHeld || state_ == State::kReleased; }
  bool released() const noexcept { return released_; }

 private:
  bool move_from(std::initializer_list<State> from, State to) noexcept {
    for (State s : from) {
      if (state_ == s) {
        state_ = to;
        return true;
      }
    }
    return false;
  }

  State state_ = State::kHeld;
  bool released_ = false;
};

}  // namespace ferry::core
