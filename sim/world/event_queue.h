// event_queue.h — the simulation's virtual clock and its single event queue. Holds state: the
// current virtual time and the pending events.
//
// Time is virtual milliseconds (int64, starting at 0), advanced only by RunNext(): the run loop
// jumps straight to the next event instead of sleeping (FoundationDB sim2). Events are ordered
// by (time_ms, insertion sequence): two events due at the same millisecond run in the order
// they were scheduled, so a run is a pure function of its seed (ARCHITECTURE.md §2).
//
// Invariants: now_ms() never decreases; an event never runs before its time; no event is
// scheduled in the past (Schedule clamps a negative delay to 0, ScheduleAt clamps a past time
// to now_ms(); a delay that would overflow int64 is clamped to INT64_MAX). An event callback
// may schedule further events (including at the current time: they run after every event
// already due at that time).
//
// Example:
//   EventQueue q;
//   q.Schedule(10, [&] { ... });      // runs at t=10
//   while (q.RunNext()) {}            // now_ms() == 10 afterwards
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>

namespace rindle::sim {

class EventQueue {
 public:
  EventQueue() = default;
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // Current virtual time in milliseconds.
  int64_t now_ms() const { return now_ms_; }

  // Runs `fn` at now_ms() + max(delay_ms, 0).
  void Schedule(int64_t delay_ms, std::function<void()> fn);

  // Runs `fn` at max(at_ms, now_ms()).
  void ScheduleAt(int64_t at_ms, std::function<void()> fn);

  // Pops the earliest event, advances now_ms() to its time and runs it. Returns false (doing
  // nothing) when the queue is empty.
  bool RunNext();

  bool empty() const { return events_.empty(); }
  size_t size() const { return events_.size(); }

  // The time of the earliest pending event, if any.
  std::optional<int64_t> next_time() const;

  // Number of events run so far.
  int64_t executed() const { return executed_; }

 private:
  using Key = std::pair<int64_t, uint64_t>;  // (time_ms, insertion sequence)

  int64_t now_ms_ = 0;
  uint64_t next_seq_ = 0;
  int64_t executed_ = 0;
  std::map<Key, std::function<void()>> events_;
};

}  // namespace rindle::sim
