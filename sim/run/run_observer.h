// run_observer.h — what a simulated run reports to its observers beside the trace (the trace
// itself stays in the simulation: it is the digest). RunObserver is the interface with no-op
// defaults (the run without --timeline uses it as is); TimelineObserver records the run into a
// Timeline (timeline.h) and writes its HTML page at the end. Observers never feed the trace or
// the run's decisions: attaching one changes no digest.
// Holds state (TimelineObserver): the timeline, the invocation time of every mid (for the
// client → authority arrows) and how much of the authority's log it has drawn.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/authority/daemon.h"
#include "sim/world/frames.h"
#include "sim/run/runner.h"
#include "sim/run/timeline.h"

namespace rindle::sim {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // After every event, before the step checks.
  virtual void OnStep(const DaemonAuthority& /*daemon*/, int64_t /*now_ms*/) {}
  // A server frame sent at `sent_ms` reaches `client` now.
  virtual void OnFrameDelivered(const std::string& /*client*/, int64_t /*sent_ms*/,
                                int64_t /*now_ms*/, const ServerFrame& /*frame*/) {}
  // A normal invoke of `name` on `lane`: its mid, or nullopt when the client rejected it.
  virtual void OnInvoke(const std::string& /*lane*/, int64_t /*now_ms*/,
                        const std::string& /*name*/, std::optional<int64_t> /*mid*/) {}
  // An action, fault or info mark (kind "action", "fault" or "info").
  virtual void OnMark(const std::string& /*lane*/, int64_t /*now_ms*/,
                      const std::string& /*label*/, const std::string& /*kind*/) {}
  // A fault window [from_ms, to_ms).
  virtual void OnSpan(const std::string& /*lane*/, int64_t /*from_ms*/, int64_t /*to_ms*/,
                      const std::string& /*label*/) {}
  virtual void OnViolation(int64_t /*now_ms*/, int64_t /*step*/, const std::string& /*property*/,
                           const std::string& /*message*/) {}
  // The run ended with `result` (counters already copied in; an observer may add its own).
  virtual void OnEnd(uint64_t /*seed*/, RunResult* /*result*/) {}
};

class TimelineObserver : public RunObserver {
 public:
  // `lanes`: "authority", then every client id; `path`: where OnEnd writes the page.
  TimelineObserver(std::vector<std::string> lanes, std::string path);

  void OnStep(const DaemonAuthority& daemon, int64_t now_ms) override;
  void OnFrameDelivered(const std::string& client, int64_t sent_ms, int64_t now_ms,
                        const ServerFrame& frame) override;
  void OnInvoke(const std::string& lane, int64_t now_ms, const std::string& name,
                std::optional<int64_t> mid) override;
  void OnMark(const std::string& lane, int64_t now_ms, const std::string& label,
              const std::string& kind) override {
    timeline_.Mark(lane, now_ms, label, kind);
  }
  void OnSpan(const std::string& lane, int64_t from_ms, int64_t to_ms,
              const std::string& label) override {
    timeline_.Span(lane, from_ms, to_ms, label);
  }
  void OnViolation(int64_t now_ms, int64_t step, const std::string& property,
                   const std::string& message) override {
    timeline_.Failure(now_ms, step, property, message);
  }
  void OnEnd(uint64_t seed, RunResult* result) override;

 private:
  Timeline timeline_;
  std::string path_;
  std::map<std::pair<std::string, int64_t>, int64_t> invoked_at_;  // (client, mid) → t
  size_t log_seen_ = 0;                                            // daemon log drawn
};

}  // namespace rindle::sim
