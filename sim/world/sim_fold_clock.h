// sim_fold_clock.h — the FoldClock (optimistic/fold_clock.h) the simulator hands every client's
// backend: fold debounce / maxWait timers as events on the simulation's one EventQueue (virtual
// time, ordered by (time, insertion sequence), so a run stays a pure function of its seed).
// Holds state: the set of armed timer ids.
//
//   SetTimeout(cb, ms)  schedules an event at now + max(ms, 0); returns a fresh id (1, 2, ...)
//   ClearTimeout(id)    disarms it: the event still runs at its time but is a no-op (the id left
//                       the armed set); an unknown, fired or already cleared id is a no-op
//   Now()               the queue's virtual now
// A firing timer first calls `on_fire` (the owner marks its client dirty for the step checks),
// then the backend's callback. Callbacks never run from inside SetTimeout. The clock must
// outlive the queue's pending events or the queue must not run after it is gone (the
// simulation destroys both together).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <utility>

#include "optimistic/fold_clock.h"
#include "sim/world/event_queue.h"

namespace rindle::sim {

class SimFoldClock : public FoldClock {
 public:
  explicit SimFoldClock(EventQueue* queue, std::function<void()> on_fire = nullptr)
      : queue_(queue), on_fire_(std::move(on_fire)) {}
  SimFoldClock(const SimFoldClock&) = delete;
  SimFoldClock& operator=(const SimFoldClock&) = delete;

  TimerId SetTimeout(std::function<void()> cb, int64_t ms) override {
    const TimerId id = next_id_++;
    armed_.insert(id);
    queue_->Schedule(ms < 0 ? 0 : ms, [this, id, cb = std::move(cb)] {
      if (armed_.erase(id) == 0) return;  // cleared
      ++fired_;
      if (on_fire_) on_fire_();
      cb();
    });
    return id;
  }
  void ClearTimeout(TimerId id) override {
    if (armed_.erase(id) > 0) ++cleared_;
  }
  int64_t Now() const override { return queue_->now_ms(); }

  size_t armed() const { return armed_.size(); }
  int64_t fired() const { return fired_; }
  int64_t cleared() const { return cleared_; }

 private:
  EventQueue* queue_;
  std::function<void()> on_fire_;
  TimerId next_id_ = 1;
  std::set<TimerId> armed_;
  int64_t fired_ = 0;
  int64_t cleared_ = 0;
};

}  // namespace rindle::sim
