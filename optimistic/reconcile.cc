#include "optimistic/reconcile.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "optimistic/run_mutator.h"

namespace rindle {

Reconciler::Reconciler(Db* db, ClientHealth* health, const MutatorRegistry* registry,
                       const Schema* schema, const std::set<std::string>* local_tables,
                       Ledger* ledger, Views* views, Folds* folds)
    : db_(db),
      health_(health),
      registry_(registry),
      schema_(schema),
      local_tables_(local_tables),
      ledger_(ledger),
      views_(views),
      folds_(folds) {
  RINDLE_CHECK(db_ != nullptr && health_ != nullptr && registry_ != nullptr);
  RINDLE_CHECK(schema_ != nullptr && local_tables_ != nullptr);
  RINDLE_CHECK(ledger_ != nullptr && views_ != nullptr && folds_ != nullptr);
}

void Reconciler::ApplyRelease(const std::string& source, const std::vector<ServerDeltaOp>& delta,
                              const std::set<int64_t>& newly) {
  RINDLE_CHECK(!health_->in_cycle);
  const bool pending_changed = ledger_->DropConfirmed();
  const bool forced = before_cycle && before_cycle();
  std::set<int64_t> caught_up;
  if (!delta.empty() || pending_changed || forced) {
    absl::Status s = RunCycle(source, delta, &newly, &caught_up);
    if (!s.ok()) health_->Fail(AnnotateStatus(s, "release: reconcile cycle failed: "));
  }
  if (after_cycle) after_cycle();
  views_->RefreshAxes();
  views_->DeliverEmptyCatchUps(newly, caught_up);
}

absl::Status Reconciler::RunCycle(const std::string& source,
                                  const std::vector<ServerDeltaOp>& delta,
                                  const std::set<int64_t>* newly, std::set<int64_t>* caught_up) {
  RINDLE_CHECK(!health_->in_cycle);
  health_->in_cycle = true;
  ++cycles_;
  if (absl::Status s = db_->ServerBatchBegin(source, delta); !s.ok()) {
    health_->in_cycle = false;
    return s;
  }
  std::set<size_t> dropped;
  absl::Status cycle_error = Replay(&dropped);
  ledger_->Erase(dropped);
  absl::StatusOr<std::vector<QueryBatch>> batches = db_->ServerBatchEnd();
  health_->in_cycle = false;
  if (cycle_error.ok() && batches.ok()) folds_->ClearReordered();  // head == sync ⊕ replay again
  if (!cycle_error.ok()) return cycle_error;
  if (!batches.ok()) return batches.status();
  views_->ApplyBatches(*batches, newly, caught_up);
  return absl::OkStatus();
}

absl::Status Reconciler::Replay(std::set<size_t>* dropped) {
  std::vector<PendingMutation>& pending = ledger_->pending();
  for (size_t idx : ledger_->ReplayOrder()) {
    PendingMutation& p = pending[idx];
    absl::StatusOr<const Mutator*> mutator = registry_->Find(p.name);
    if (!mutator.ok()) {
      dropped->insert(idx);
      if (replay_observer) replay_observer(p, false);
      continue;
    }
    MutatorRun run =
        RunMutator(*db_, *schema_, *local_tables_, **mutator, p.args, RunMode::kReplay,
                   stage_for ? stage_for(p.domain) : nullptr);
    if (run.stage == MutatorRun::Stage::kMutatorFailed) {
      // A re-invocation that fails on the new base (e.g. its read-dependency vanished upstream)
      // is dead: drop it; its mid still confirms (burnt) upstream.
      dropped->insert(idx);
      if (replay_observer) replay_observer(p, false);
      continue;
    }
    if (run.stage == MutatorRun::Stage::kCommitFailed) {
      return AnnotateStatus(run.status, absl::StrCat("re-invoking \"", p.name, "\": "));
    }
    RINDLE_CHECK(run.batches.empty());  // inside a cycle commits buffer
    // Union-never-shrink: a re-run that no-ops keeps the prior records.
    MergeWriteSet(p.writes, run.writes);
    if (replay_observer) replay_observer(p, true);
  }
  return absl::OkStatus();
}

void Reconciler::RunGc(const std::string& source, const std::vector<ServerDeltaOp>& gc,
                       const std::string& what) {
  // CRIT#2: the GC must leave BOTH head and sync — a server delta, never an optimistic remove.
  if (gc.empty() || !health_->ok()) return;
  if (absl::Status s = RunCycle(source, gc); !s.ok()) {
    health_->Fail(AnnotateStatus(s, absl::StrCat(what, ": GC cycle failed: ")));
  }
}

}  // namespace rindle
