// run_observer.h — what a simulated run reports to its observers beside the trace (the trace
// itself stays in the simulation: it is the digest). RunObserver is the interface with no-op
// defaults (the run without --report uses it as is); TimelineObserver records the run into a
// Timeline (timeline.h) — every network message from the network's tap (network.h NetEvent:
// sends, deliveries, losses, duplicates, acks), actions, faults, the authority's log — and
// writes the failure report's HTML page at the end. Observers never feed the trace or the run's
// decisions: attaching one changes no digest.
// Lanes: "authority" (authority-wide events), then per client "authority/<client>" (the
// authority's end of the client's path: what it received, applied and sent) and "<client>";
// a path to another authority endpoint gets a lane "<source key>/<client>" when first used.
// Holds state (TimelineObserver): the timeline, the messages still on their way (by tap id),
// the number of steps seen, and how much of the authority's log it has drawn.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/authority/daemon.h"
#include "sim/world/frames.h"
#include "sim/world/network.h"
#include "sim/run/runner.h"
#include "sim/run/timeline.h"

namespace rindle::sim {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // After every event, before the step checks.
  virtual void OnStep(const DaemonAuthority& /*daemon*/, int64_t /*now_ms*/) {}
  // Whether OnNet wants the network's tap (setting it costs the labels' formatting).
  virtual bool WantsNetwork() const { return false; }
  // What the network did with a message (network.h NetTap).
  virtual void OnNet(const NetEvent& /*event*/) {}
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
  // `clients`: every client id, in order; `path`: where OnEnd writes the page.
  TimelineObserver(const std::vector<std::string>& clients, std::string path);

  void OnStep(const DaemonAuthority& daemon, int64_t now_ms) override;
  bool WantsNetwork() const override { return true; }
  void OnNet(const NetEvent& event) override;
  void OnInvoke(const std::string& lane, int64_t now_ms, const std::string& name,
                std::optional<int64_t> mid) override;
  void OnMark(const std::string& lane, int64_t now_ms, const std::string& label,
              const std::string& kind) override {
    timeline_.Mark(lane, now_ms, step(), label, kind);
  }
  void OnSpan(const std::string& lane, int64_t from_ms, int64_t to_ms,
              const std::string& label) override {
    timeline_.Span(lane, from_ms, to_ms, step(), label);
  }
  void OnViolation(int64_t now_ms, int64_t step, const std::string& property,
                   const std::string& message) override {
    timeline_.Failure(now_ms, step, property, message);
  }
  void OnEnd(uint64_t seed, RunResult* result) override;

  const Timeline& timeline() const { return timeline_; }

 private:
  // The step being processed: events between OnStep calls belong to the next step.
  int64_t step() const { return steps_ + 1; }
  // Sent, or a push's duplicate copy, or an acknowledgement: a new message on its way.
  void Open(const NetEvent& e, int64_t key, bool duplicate);
  // Delivered or lost: the copy of `key` due now (a message lost before it left is added).
  void Close(const NetEvent& e, int64_t key, const std::string& fate);

  Timeline timeline_;
  std::string path_;
  std::map<int64_t, std::vector<size_t>> open_;  // tap id (acks: -id) → messages on their way
  int64_t steps_ = 0;
  size_t log_seen_ = 0;  // daemon log drawn
};

}  // namespace rindle::sim
