#include "optimistic/run_mutator.h"

#include <memory>

#include "base/check.h"
#include "optimistic/health.h"
#include "optimistic/tracking_tx.h"

namespace rindle {

MutatorRun RunMutator(Db& db, const Schema& schema, const std::set<std::string>& local_tables,
                      const Mutator& mutator, const nlohmann::json& args, RunMode mode,
                      const RoomTableMap* stage) {
  RINDLE_CHECK(static_cast<bool>(mutator));
  MutatorRun run;
  std::unique_ptr<WriteTxn> txn = db.Write();
  TrackingTx tx(txn.get(), &schema, &local_tables, &run.writes,
                mode == RunMode::kInvoke ? &run.reads : nullptr);
  if (mode == RunMode::kFolded) tx.TrapReads();
  tx.Stage(stage);
  absl::Status s = mutator(tx, args);
  if (s.ok() && !tx.failure().ok()) s = tx.failure();
  run.probed = tx.probed();
  if (!s.ok()) {
    if (txn->open()) txn->Rollback();
    run.stage = MutatorRun::Stage::kMutatorFailed;
    run.status = std::move(s);
    run.fold_read = tx.fold_read();
    return run;
  }
  absl::StatusOr<std::vector<QueryBatch>> batches = txn->Commit();
  if (!batches.ok()) {
    run.stage = MutatorRun::Stage::kCommitFailed;
    run.status = batches.status();
    return run;
  }
  run.batches = std::move(*batches);
  return run;
}

absl::Status RunFailure(const MutatorRun& run, absl::string_view who) {
  RINDLE_CHECK(!run.ok());
  return run.stage == MutatorRun::Stage::kCommitFailed
             ? AnnotateStatus(run.status, absl::StrCat(who, ": commit failed: "))
             : AnnotateStatus(run.status, absl::StrCat(who, " failed: "));
}

}  // namespace rindle
