// head_sync_pending.cc — head==sync+pending and consistent-view (families.h; invariants.h; seed
// 002 §4.1, §5.1). The expectation is the client model (oracles/client_model.h), fed only by the
// harness's record — the frames the network delivered, the envelopes the client sent with their
// args, the folded invokes the runner issued — and the harness's copies of the client mutators;
// never the backend's pending list, args or sync baseline.
//   consistent-view     every live remote view equals the fresh query (oracles/fresh_query) over
//                       the model's expected head (what the user should see; checked first);
//   head==sync+pending  a dirty client's head tables equal the model's expected head (its synced
//                       store with the expected pending replayed in order).
// Skipped only inside the accepted seed 002 §4.2 reorder window as the MODEL decides it from the
// harness's invoke record (ClientModel::InReorderWindow: entries that interact were applied on
// head out of replay order since the last reconcile cycle), counted as
// check.model_reorder_window_skip; the backend's own head_reordered() is only checked against
// it (head-reorder-report: inside the model's window the backend must report one too; it may
// report one more often, as its flush rule is conservative); and while a re-registration changed a source's column map and its
// snapshot has not released (the model does not follow which old cells stay present meanwhile),
// counted as check.model_coverage_change_skip; and while a source is frozen since a gate overflow
// (check.model_overflow_window_skip).
#include "base/check.h"
#include "base/str_util.h"
#include "oracles/diff.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

// Some source is frozen since a gate overflow: frames kept arriving for the old epochs while the
// re-registration is under way; the model does not follow the backend through that window yet
// (issue 11's overflow ordering).
bool InOverflowWindow(const ClientModel& m) {
  for (const auto& [qid, s] : m.sources()) {
    if (!s.current && s.frozen_by == "overflow") return true;
  }
  return false;
}

std::string Describe(const ClientModel::Entry& e) {
  return StrCat(e.name, e.mid ? StrCat("#", *e.mid) : std::string(" (open fold)"));
}

// The model's pending entries in replay order with their applied stamps and touched tables.
std::string PendingOrder(const ClientModel& m) {
  std::string out;
  for (const ClientModel::Entry* e : m.Pending()) {
    out += StrCat(out.empty() ? "" : ", ", Describe(*e), " applied@", e->first_applied, "..",
                  e->last_applied, " touching {");
    std::string tables;
    for (const std::string& t : e->touched) tables += StrCat(tables.empty() ? "" : " ", t);
    out += tables + "}";
  }
  return out;
}

// The model's sources waiting for a re-registration's snapshot, for the violation message.
std::string FrozenSources(const ClientModel& m) {
  std::string out;
  for (const auto& [qid, s] : m.sources()) {
    if (s.current) continue;
    out += StrCat(out.empty() ? " [frozen sources:" : ",", " qid ", qid, " (", s.frozen_by, ")");
  }
  return out.empty() ? out : out + "]";
}

class HeadSyncPending : public PropertyFamily {
 public:
  HeadSyncPending(OptimisticInvariants* invariants, std::shared_ptr<FreshMemo> memo)
      : invariants_(invariants), memo_(std::move(memo)) {
    RINDLE_CHECK(invariants_ != nullptr);
  }

  MaybeViolation AfterStepClient(const World& w, const ClientState& c,
                                 StepCounters* counters) override {
    const OptimisticBackend& b = *c.backend;
    if (c.room_flux) {  // world.h: the single-domain model cannot predict a room in flux
      ++(*counters)["check.room_flux_skip"];
      return std::nullopt;
    }
    absl::Status error;
    const ClientModel* model = invariants_->Model(c.id, ViewInfosOf(c), *c.sent, &error);
    if (!error.ok()) return Violation{"head==sync+pending", std::string(error.message())};
    if (model == nullptr) return std::nullopt;  // unhealthy: client-health reports it
    if (auto pair = model->OutOfOrderPair()) {
      ++(*counters)["check.model_reorder_window_skip"];
      // The backend must know its head may differ from sync ⊕ replay here (it may also say so
      // more often: its flush rule is conservative).
      // A client with room channels runs reconcile cycles on room releases the single-domain
      // model never sees (they clear head_reordered): only the skip stands then.
      const bool rooms = c.room_carried != nullptr && !c.room_carried->empty();
      if (rooms && !b.head_reordered()) ++(*counters)["check.room_reorder_report_skip"];
      if (!rooms && !b.head_reordered()) {
        return Violation{
            "head-reorder-report",
            StrCat(c.id, ": the harness applied ", Describe(*pair->first), " after ",
                   Describe(*pair->second), " although it replays first, and both touch a common "
                   "table, but the backend reports no §4.2 reorder window (replay order: ",
                   PendingOrder(*model), ")")};
      }
      return std::nullopt;
    }
    if (InOverflowWindow(*model)) {
      ++(*counters)["check.model_overflow_window_skip"];
      return std::nullopt;
    }
    if (model->InCoverageChange()) {
      ++(*counters)["check.model_coverage_change_skip"];
      return std::nullopt;
    }
    FreshMemo::Scope scope(memo_.get(), model->head());
    for (const auto& [qid, view] : *c.views) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) continue;  // view==fresh reports a missing view
      auto viol = CheckTreeMatchesFresh(StrCat(c.id, " view ", qid, " (", view.first.name, ")"),
                                        v->Tree(), view.second, model->head(), *w.schema,
                                        "consistent-view", memo_.get());
      if (viol) {
        viol->message += StrCat(" (released lmid ", model->released_lmid(), FrozenSources(*model),
                                ")");
        return viol;
      }
    }
    const PlainTables head = PlainTablesOf(b.engine(), *w.schema, /*sync=*/false);
    if (!PlainTablesEqual(model->head(), head)) {
      return Violation{"head==sync+pending",
                       StrCat(c.id, ": expected (harness record: released lmid ",
                              model->released_lmid(), ", ", model->Pending().size(),
                              " pending) vs head: ",
                              TablesDiff(PlainTablesToJson(model->head()), PlainTablesToJson(head),
                                         *w.schema))};
    }
    return std::nullopt;
  }

 private:
  OptimisticInvariants* invariants_;
  std::shared_ptr<FreshMemo> memo_;  // may be null
};

}  // namespace

std::unique_ptr<PropertyFamily> MakeHeadSyncPending(OptimisticInvariants* invariants,
                                                    std::shared_ptr<FreshMemo> memo) {
  return std::make_unique<HeadSyncPending>(invariants, std::move(memo));
}

}  // namespace rindle::props
