// run_mutator.h — running a named mutator ONCE on the client's engine through a TrackingTx: the
// one mutator-run sequence behind invoke, invokeFolded and the reconcile re-invocation (seed 002
// `invoke` / `invokeFolded` / `replay`, §3.2). Stateless: a free function over the caller's Db.
//
// Sequence: open one engine write txn → run the mutator through a TrackingTx → a non-OK return OR
// an engine failure the TrackingTx kept (`failure()`, even when the mutator swallowed it) rolls
// the txn back (stage kMutatorFailed) → else commit (stage kCommitFailed if the commit fails,
// kOk with the commit's batches otherwise). The txn is closed when RunMutator returns.
//
// Modes (the read log and the read trap are never armed together):
//   kInvoke — records a ReadLog (the ORIGINAL invoke's reads, seed 002 `PendingMutation.reads`)
//   kFolded — arms the read trap (FOLDED-MUTATIONS-DESIGN §5); `fold_read` tells a trapped read
//   kReplay — neither (recording is not re-armed on replay); inside a reconcile cycle the commit
//             buffers, so `batches` is empty
// Errors: none of its own; the mutator's / engine's status is returned in `status`, and
// RunFailure() prefixes it for the caller's message.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "nlohmann/json.hpp"
#include "optimistic/mutation_tx.h"
#include "optimistic/room_tables.h"
#include "optimistic/write_set.h"

namespace rindle {

enum class RunMode { kInvoke, kFolded, kReplay };

struct MutatorRun {
  enum class Stage { kOk, kMutatorFailed, kCommitFailed };
  Stage stage = Stage::kOk;
  absl::Status status;             // non-OK iff stage != kOk
  bool fold_read = false;          // kFolded: the mutator attempted a trapped read
  WriteSet writes;                 // what the invocation wrote (meaningful when kOk)
  ReadLog reads;                   // kInvoke only
  std::set<std::string> probed;    // every mode: tables a read or keyed-writer probe looked up
  std::vector<QueryBatch> batches;  // the commit's per-query batches (kOk)

  bool ok() const { return stage == Stage::kOk; }
};

// `schema` / `local_tables` are the client's (M1: the TrackingTx refuses local tables). `stage`
// (may be null) is a room-declared mutation's staging map (tracking_tx.h "Staging").
MutatorRun RunMutator(Db& db, const Schema& schema, const std::set<std::string>& local_tables,
                      const Mutator& mutator, const nlohmann::json& args, RunMode mode,
                      const RoomTableMap* stage = nullptr);

// The failed run's status annotated for `who` (e.g. `mutator "x"`): "<who> failed: ..." for a
// mutator failure, "<who>: commit failed: ..." for a commit failure. Requires !run.ok().
absl::Status RunFailure(const MutatorRun& run, absl::string_view who);

}  // namespace rindle
