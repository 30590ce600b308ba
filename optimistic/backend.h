// backend.h — the optimistic client (seed 002 `OptimisticBackend`, SPEC §2.2), SINGLE-DOMAIN core:
// one authority channel ("daemon"), named mutators predicted on a local engine Db, pending
// entries with per-domain gapless mids + client-global seq, one coherence gate, NormalizedSync,
// lmid-as-data confirmation and the rebase reconcile cycle. Holds state; not thread-safe; not
// re-entrant (a source must not call back into the backend from RegisterQuery/PushMutation).
//
// Lifecycle: the constructor registers every schema table on the engine (local_tables as local),
// wires the source's four handlers to OnFrame/OnProgress/OnRestart/OnResync and registers the
// lmid system query (qid 0, `_rindle_client_mutations`). Construction errors (a bad spec, a local
// table missing from the schema) surface through health().
//
// Invoke (seed 002 `invoke`/`invokeWith`): runs the mutator in one engine write txn through a
// TrackingTx. A failing mutator rolls back and consumes NO mid/seq (#10). On success: dealMid
// (per-domain counter from 1, gapless; seq client-global), the pending entry records the write-set,
// the read log and touched tables; the commit's batches fold into the views; the envelope is
// pushed. Returns the mid.
//
// Queries: RegisterQuery(qid ≠ 0, ast, remote?) registers the engine query + a ResultView. With a
// remote, the sub is refcounted per RemoteQuery::Key(); the first retain registers it on the source
// under this qid (its sourceQid). ResultType is kUnknown until the sub's first RELEASED snapshot
// (even an empty one), then kComplete; a local-only query is kComplete. UnregisterQuery releases;
// the last release unregisters the sub, drops its buffered frames, and GCs rows only it referenced
// as a SERVER delta through the reconcile cycle (never an optimistic remove — CRIT#2).
//
// Frames (seed 002 onFrame / computeRelease / applyRelease, §5.1): see gate.h. A hello records the
// qid's column projection; frames for a qid with no live sub are ignored. Progress releases
// frames with cv ≤ cvMin in (cv, arrival) order: lmid (qid 0) frames fold through FoldConfirm into
// watermark["daemon"] (monotone); data frames fold through NormalizedSync into ONE net delta;
// then every pending entry with mid ≤ watermark[domain] is dropped; if the delta is non-empty or
// pending shrank, the reconcile cycle runs: ServerBatchBegin("daemon", delta), re-invoke ALL
// pending in seq order (a failing re-invocation is dropped from pending; write-sets merge
// union-never-shrink), ServerBatchEnd, fold the batches into the views.
// OnRestart resets the gate (pending stays); OnResync re-sends every sent pending envelope with
// its original mid, in mid order; overflow re-registers every sub and the lmid query.
//
// Errors: Invoke/RegisterQuery return Status naming the mutator/qid. Unrecoverable conditions —
// a confirmed lmid above every issued mid while sent mids are pending, a malformed server frame,
// an engine failure inside a cycle, a view that cannot fold its events — are stored as the sticky
// health() status; once unhealthy, Invoke returns it and frames are ignored.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "engine/view.h"
#include "nlohmann/json.hpp"
#include "optimistic/gate.h"
#include "optimistic/inspect.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/mutator_registry.h"
#include "optimistic/normalized_sync.h"
#include "optimistic/pending.h"
#include "optimistic/source.h"

namespace rindle {

struct OptimisticOptions {
  std::string client_id;
  Schema schema;
  std::set<std::string> local_tables;
  std::map<std::string, Mutator> mutators;
  size_t buffer_cap = 1024;
};

enum class ResultType { kUnknown, kComplete };

class OptimisticBackend {
 public:
  // `daemon` must outlive the backend; the backend registers its handlers on it.
  OptimisticBackend(OptimisticOptions options, OptimisticSource* daemon);
  ~OptimisticBackend();
  OptimisticBackend(const OptimisticBackend&) = delete;
  OptimisticBackend& operator=(const OptimisticBackend&) = delete;

  absl::StatusOr<int64_t> Invoke(const std::string& name, const nlohmann::json& args);

  absl::Status RegisterQuery(int64_t qid, const Ast& ast,
                             std::optional<RemoteQuery> remote = std::nullopt);
  // A no-op for an unknown qid. A failing GC cycle is recorded in health().
  void UnregisterQuery(int64_t qid);

  const ResultView* View(int64_t qid) const;  // nullptr for an unknown qid
  ResultType GetResultType(int64_t qid) const;  // kUnknown for an unknown qid
  bool IsPending(int64_t qid) const;

  Inspect inspect() const;
  DomainsInspect InspectDomains() const;
  const Db& engine() const { return db_; }
  const NormalizedSync& sync() const { return sync_; }
  const std::vector<PendingMutation>& pending() const { return pending_; }
  const std::string& client_id() const { return options_.client_id; }
  absl::Status health() const { return health_; }

  // Observer of every reconcile re-invocation: (entry, ok) in replay order. For replay-order
  // properties and traces.
  void SetReplayObserver(std::function<void(const PendingMutation&, bool ok)> observer) {
    replay_observer_ = std::move(observer);
  }

  // Observer of every per-query batch the backend folds into a view (invoke commits and
  // reconcile deliveries), after the fold. For traces and tests.
  void SetBatchObserver(std::function<void(const QueryBatch&)> observer) {
    batch_observer_ = std::move(observer);
  }

  // The source handlers (wired in the constructor; public so a harness can drive them directly).
  void OnFrame(int64_t qid, const NormalizedEvent& ev);
  void OnProgress(const ProgressFrame& frame);
  void OnRestart();
  void OnResync();

 private:
  struct RemoteSub {
    int64_t source_qid = 0;
    RemoteQuery remote;
    int ref_count = 0;
    std::set<int64_t> local_qids;
    bool hydrated = false;
  };
  struct LocalQuery {
    std::vector<std::string> tables;  // AstTables
    std::unique_ptr<ResultView> view;
  };

  void Fail(absl::Status s);
  std::pair<int64_t, int64_t> DealMid(const std::string& domain);
  void ApplyBatches(const std::vector<QueryBatch>& batches);
  absl::Status RunReconcileCycle(const std::vector<ServerDeltaOp>& delta);
  void ApplyRelease(const std::vector<ServerDeltaOp>& delta);
  void FoldLmidOps(const std::vector<RowOp>& ops);
  void FoldConfirm(const std::string& domain, int64_t lmid);
  void MarkSubHydrated(int64_t source_qid);
  void Overflow();
  void RegisterLmidQuery();
  std::set<std::string> PendingTables() const;

  OptimisticOptions options_;
  OptimisticSource* source_;
  MutatorRegistry registry_;
  Db db_;
  SourceGate gate_;
  NormalizedSync sync_;
  absl::Status health_;
  bool in_cycle_ = false;

  std::vector<PendingMutation> pending_;  // creation order
  std::map<std::string, int64_t> next_mid_;
  std::map<std::string, int64_t> watermark_;
  int64_t deal_seq_ = 0;

  std::map<int64_t, LocalQuery> queries_;
  std::map<std::string, RemoteSub> subs_;           // by RemoteQuery::Key()
  std::map<int64_t, std::string> source_to_key_;    // sourceQid → key
  std::map<int64_t, std::string> local_to_key_;     // local qid → key
  int lmid_col_client_ = 0;                         // lmid hello projection (by name)
  int lmid_col_lmid_ = 1;

  std::function<void(const PendingMutation&, bool)> replay_observer_;
  std::function<void(const QueryBatch&)> batch_observer_;
};

}  // namespace rindle
