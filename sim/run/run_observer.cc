// run_observer.cc — see run_observer.h.
#include "sim/run/run_observer.h"

#include "base/check.h"
#include "base/str_util.h"

namespace rindle::sim {

TimelineObserver::TimelineObserver(std::vector<std::string> lanes, std::string path)
    : timeline_(std::move(lanes)), path_(std::move(path)) {
  RINDLE_CHECK(!path_.empty());
}

void TimelineObserver::OnStep(const DaemonAuthority& daemon, int64_t now_ms) {
  const auto& log = daemon.log();
  if (log_seen_ > log.size()) log_seen_ = log.size();  // a rollback forgot the tail
  for (; log_seen_ < log.size(); ++log_seen_) {
    const auto& e = log[log_seen_];
    auto it = invoked_at_.find({e.client_id, e.mid});
    const int64_t sent = it == invoked_at_.end() ? now_ms : it->second;
    timeline_.Message(e.client_id, "authority", sent, now_ms,
                      StrCat("mid ", e.mid, " ", e.name, e.applied ? "" : " (burnt)"));
  }
}

void TimelineObserver::OnFrameDelivered(const std::string& client, int64_t sent_ms,
                                        int64_t now_ms, const ServerFrame& frame) {
  const std::string label(FrameToTrace(frame).value("frame", "frame"));
  if (label == "progress") return;  // progress frames are not drawn
  timeline_.Message("authority", client, sent_ms, now_ms, label);
}

void TimelineObserver::OnInvoke(const std::string& lane, int64_t now_ms, const std::string& name,
                                std::optional<int64_t> mid) {
  timeline_.Mark(lane, now_ms, StrCat(name, mid ? StrCat(" mid ", *mid) : " (rejected)"),
                 "action");
  if (mid) invoked_at_[{lane, *mid}] = now_ms;
}

void TimelineObserver::OnEnd(uint64_t seed, RunResult* result) {
  const std::string title =
      StrCat("rindle-sim seed ", seed,
             result->ok ? " — ok" : StrCat(" — ", result->property, " failed at step ", result->step));
  if (auto s = timeline_.WriteHtml(path_, title); !s.ok()) {
    result->counters["timeline.write_error"] = 1;
  }
}

}  // namespace rindle::sim
