// fold_clock.h — the virtual-clock seam for the fold debounce / maxWait timers (seed 002
// `FoldClock`, FOLDED-MUTATIONS-DESIGN §9). Interface plus one deterministic implementation.
//
//   SetTimeout(cb, ms) — run `cb` once, `ms` virtual milliseconds from Now(); returns a handle
//   ClearTimeout(id)   — cancel a timer that has not fired (an unknown or fired id is a no-op)
//   Now()              — the current virtual time in milliseconds
//
// The backend never reads wall time: the simulator backs this with its event queue
// (sim/world/sim_fold_clock.h), unit tests with ManualFoldClock. A timer callback runs from the
// clock's own dispatch (never from inside SetTimeout).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

namespace rindle {

class FoldClock {
 public:
  using TimerId = int64_t;
  virtual ~FoldClock() = default;
  virtual TimerId SetTimeout(std::function<void()> cb, int64_t ms) = 0;
  virtual void ClearTimeout(TimerId id) = 0;
  virtual int64_t Now() const = 0;
};

// A hand-driven clock for tests: time moves only through Advance(ms), which fires every timer
// due by the new time in (due time, creation order). A callback may set or clear timers; one
// set for a time inside the advanced span fires in the same Advance.
class ManualFoldClock : public FoldClock {
 public:
  TimerId SetTimeout(std::function<void()> cb, int64_t ms) override {
    const TimerId id = next_id_++;
    timers_.emplace(std::make_pair(now_ + (ms < 0 ? 0 : ms), id), std::move(cb));
    return id;
  }
  void ClearTimeout(TimerId id) override {
    for (auto it = timers_.begin(); it != timers_.end(); ++it) {
      if (it->first.second == id) {
        timers_.erase(it);
        return;
      }
    }
  }
  int64_t Now() const override { return now_; }

  void Advance(int64_t ms) {
    const int64_t target = now_ + (ms < 0 ? 0 : ms);
    while (!timers_.empty() && timers_.begin()->first.first <= target) {
      auto it = timers_.begin();
      now_ = it->first.first;
      std::function<void()> cb = std::move(it->second);
      timers_.erase(it);
      cb();
    }
    now_ = target;
  }
  size_t armed() const { return timers_.size(); }

 private:
  int64_t now_ = 0;
  TimerId next_id_ = 1;
  std::map<std::pair<int64_t, TimerId>, std::function<void()>> timers_;
};

}  // namespace rindle
