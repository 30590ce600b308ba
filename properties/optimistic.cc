// optimistic.cc — the seed-002 optimistic-client properties (optimistic_invariants.h: gate-model,
// superseded-epoch, pending-axis, result-type, fold-wire, replay-order) behind the checker
// interface (families.h): after every step, per dirty client, the invariants are checked against
// the client's live remote and local-only views and the envelopes it sent. The invariants object
// is the runner's (it feeds frames and folded invokes); this family only reads it.
#include <map>

#include "base/check.h"
#include "properties/families.h"

namespace rindle::props {

std::map<int64_t, ViewInfo> ViewInfosOf(const ClientState& c) {
  std::map<int64_t, ViewInfo> infos;
  for (const auto& [qid, view] : *c.views) {
    infos[qid] = ViewInfo{view.first.Key(), AstTables(view.second)};
  }
  for (const auto& [qid, view] : *c.local_views) {
    infos[qid] = ViewInfo{std::nullopt, AstTables(view.second)};
  }
  return infos;
}

namespace {

class Optimistic : public PropertyFamily {
 public:
  explicit Optimistic(OptimisticInvariants* invariants) : invariants_(invariants) {
    RINDLE_CHECK(invariants_ != nullptr);
  }

  MaybeViolation AfterStepClient(const World&, const ClientState& c,
                                 StepCounters* counters) override {
    if (c.room_flux) {  // world.h: the single-domain model cannot predict a room in flux
      ++(*counters)["check.room_flux_skip"];
      return std::nullopt;
    }
    return invariants_->Check(c.id, *c.backend, ViewInfosOf(c), *c.sent);
  }

 private:
  OptimisticInvariants* invariants_;
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeOptimistic(OptimisticInvariants* invariants) {
  return std::make_unique<Optimistic>(invariants);
}

}  // namespace rindle::props
