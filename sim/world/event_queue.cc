// event_queue.cc — see event_queue.h.
#include "sim/world/event_queue.h"

#include <limits>

#include "base/check.h"

namespace rindle::sim {

void EventQueue::Schedule(int64_t delay_ms, std::function<void()> fn) {
  if (delay_ms < 0) delay_ms = 0;
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t at_ms = delay_ms > max - now_ms_ ? max : now_ms_ + delay_ms;
  ScheduleAt(at_ms, std::move(fn));
}

void EventQueue::ScheduleAt(int64_t at_ms, std::function<void()> fn) {
  RINDLE_CHECK_MSG(fn != nullptr, "EventQueue: scheduling an empty callback");
  if (at_ms < now_ms_) at_ms = now_ms_;
  events_.emplace(Key{at_ms, next_seq_++}, std::move(fn));
}

bool EventQueue::RunNext() {
  if (events_.empty()) return false;
  auto node = events_.extract(events_.begin());
  RINDLE_CHECK_GE(node.key().first, now_ms_);
  now_ms_ = node.key().first;
  ++executed_;
  // The node is owned here, so the callback may freely schedule (or the queue may grow) while
  // it runs.
  node.mapped()();
  return true;
}

std::optional<int64_t> EventQueue::next_time() const {
  if (events_.empty()) return std::nullopt;
  return events_.begin()->first.first;
}

}  // namespace rindle::sim
