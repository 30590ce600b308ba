// head_sync_pending.cc — head==sync+pending (families.h; invariants.h): a dirty client's head
// equals its sync baseline with its pending mutations re-applied in seq order. Skipped only
// inside the accepted seed 002 §4.2 reorder window (a write overtook an open fold it interacts
// with; the next reconcile re-derives head and the check resumes), counted as
// check.head_reordered_skip.
#include "properties/families.h"

namespace rindle::props {
namespace {

class HeadSyncPending : public PropertyFamily {
 public:
  MaybeViolation AfterStepClient(const World& w, const ClientState& c,
                                 StepCounters* counters) override {
    const OptimisticBackend& b = *c.backend;
    if (b.head_reordered()) {
      ++(*counters)["check.head_reordered_skip"];
      return std::nullopt;
    }
    return CheckHeadIsSyncPlusPending(c.id, b.engine(), *w.schema, b.pending(),
                                      *w.client_mutators);
  }
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeHeadSyncPending() {
  return std::make_unique<HeadSyncPending>();
}

}  // namespace rindle::props
