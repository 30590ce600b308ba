// fence_liveness.cc — the `fence-liveness` property (families.h; issue 11; seed 002 §5.1 coherence
// gate, §8.5 overflow; the resync fence of optimistic/gate.h). Holds state: per client, what the
// network delivered on the current connection — snapshots per qid (a fault's copies aside) and
// the highest snapshot cv — and how many progress frames in a row the backend's fence held while
// that record said nothing was owed.
//
// The fence may hold progress only while a re-registration is unanswered. Whether one is, the
// property judges from the harness's record alone: the registrations the client's source put on
// the link since the connection opened (ClientState::link) against the snapshots the network
// delivered for each qid since then (the tap's StepRecord). When every registration has its
// snapshot and a delivered progress {cvMin} covers every snapshot of the connection, a fence has
// everything it waits for; the backend's own report (fence_holds(), a progress frame held) is
// only checked against that. More than kBound such held progress frames in a row is a violation
// — a fence nobody will ever complete (seed 1921: a late overflow lmid hello re-fenced every data
// sub, whose snapshots had come long before; every later frame was held, every later mutation
// stayed pending; no-lost-writes saw it only at quiescence).
// Counters: check.fence_liveness.{settled_progress, held_settled}.
#include <algorithm>
#include <map>
#include <string>

#include "base/check.h"
#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

// Held progress frames tolerated after the record says the fence has all it waits for (one
// would do for today's gate; the slack keeps the property about liveness, not timing).
constexpr int64_t kBound = 2;

class FenceLiveness : public PropertyFamily {
 public:
  explicit FenceLiveness(OptimisticInvariants* invariants) : inv_(invariants) {
    RINDLE_CHECK(inv_ != nullptr);
  }

  MaybeViolation AfterStepClient(const World&, const ClientState& c,
                                 StepCounters* counters) override {
    if (c.link == nullptr || c.backend == nullptr || !c.backend->health().ok()) return std::nullopt;
    State& s = states_[c.id];
    if (s.connection != c.link->connections) {
      const int64_t holds = s.holds;
      s = State{};
      s.connection = c.link->connections;
      s.holds = holds;
    }
    int64_t settled_progress = 0;  // progress frames of this step delivered while nothing owed
    bool any_progress = false;
    for (const TapFrame& f : inv_->Step(c.id).delivered) {
      if (f.kind == TapFrame::Kind::kData && f.snapshot && !f.copy) {
        ++s.answered[f.qid];
        s.max_snapshot_cv = std::max(s.max_snapshot_cv, f.cv);
      } else if (f.kind == TapFrame::Kind::kProgress) {
        any_progress = true;
        if (Settled(s, *c.link) && f.cv >= s.max_snapshot_cv) ++settled_progress;
      }
    }
    const int64_t holds = c.backend->fence_holds();
    const int64_t held = holds - s.holds;
    s.holds = holds;
    if (!any_progress) return std::nullopt;
    if (settled_progress == 0 || held == 0) {
      s.stuck = 0;
      return std::nullopt;
    }
    (*counters)["check.fence_liveness.settled_progress"] += settled_progress;
    ++(*counters)["check.fence_liveness.held_settled"];
    s.stuck += std::min(held, settled_progress);
    if (s.stuck <= kBound) return std::nullopt;
    return Violation{
        "fence-liveness",
        StrCat(c.id, ": the resync fence held ", s.stuck,
               " progress frames in a row (the last cvMin covers every snapshot of this connection,"
               " highest cv ", s.max_snapshot_cv, ") although every registration sent on the link"
               " since connection ", s.connection, " has had its snapshot delivered")};
  }

 private:
  struct State {
    int64_t connection = -1;
    int64_t holds = 0;  // the backend's fence_holds() at the last check
    std::map<int64_t, int64_t> answered;  // qid → snapshots delivered on this connection
    int64_t max_snapshot_cv = 0;
    int64_t stuck = 0;  // held progress frames in a row with nothing owed
  };

  // Every registration sent on this connection has a delivered snapshot.
  static bool Settled(const State& s, const LinkRecord& link) {
    for (const auto& [qid, sent] : link.registered) {
      auto it = s.answered.find(qid);
      if (it == s.answered.end() || it->second < sent) return false;
    }
    return true;
  }

  OptimisticInvariants* inv_;
  std::map<std::string, State> states_;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeFenceLiveness(OptimisticInvariants* invariants) {
  return std::make_unique<FenceLiveness>(invariants);
}

}  // namespace rindle::props
