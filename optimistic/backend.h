// backend.h — the optimistic client (seed 002 `OptimisticBackend`, SPEC §2.2), SINGLE-DOMAIN core:
// one authority channel ("daemon"), named mutators predicted on a local engine Db, pending
// entries with per-domain gapless mids + client-global seq, one coherence gate, NormalizedSync,
// lmid-as-data confirmation and the rebase reconcile cycle. Holds state; not thread-safe; not
// re-entrant (a source must not call back into the backend from RegisterQuery/PushMutation).
//
// Folds (seed 002 `invokeFolded` / `flushFolds`, FOLDED-MUTATIONS-DESIGN §1–§9): InvokeFolded
// applies the prediction now with the READ TRAP armed (a public Get/GetRow/Query fails with a
// fold-read error and nothing is consumed; the keyed writers' internal probes stay legal) and
// collapses every invoke of one fold key ("name\0" + compact JSON of FoldOptions::key) into ONE
// pending entry whose args are overwritten in place (mid and seq stay unset). The window flushes
// after `debounce_ms` of quiet (re-armed on each invoke), at the first invoke once `max_wait_ms`
// has passed since the window opened, on FlushFold(key) / FlushFolds() (creation order), or when
// a normal Invoke's touched tables overlap the fold's (flush-on-enqueue, §4.2 — unless
// `defer_across_writes`). The flush deals the mid and seq (SEND order, so gapless) and pushes the
// envelope with the LAST args. Unflushed folds re-invoke after every dealt seq, in creation order.
// Timers run on options.clock (required for InvokeFolded; never wall time).
//
// Local-only tables (201-LOCAL-ONLY-TABLES): WriteLocal commits add/remove/edit ops on local
// tables directly, outside the optimistic cycle (no mid, no pending entry, never rebased); a
// synced table in the batch rejects the whole batch. Mutators may neither read nor write a local
// table (M1). A server frame naming a local table is an error.
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
// Queries (seed 002 registerQuery / retainRemoteQuery / releaseRemoteQuery / unregisterQuery):
// RegisterQuery(qid ≠ 0, ast, remote?) registers the engine query + a ResultView; with a remote it
// also retains the remote under the same qid. RetainRemoteQuery(retain_qid, remote, local_qid?)
// retains separately (the split path): subs are refcounted per RemoteQuery::Key(); the first
// retain registers the sub on the source under its retain qid (the sub's sourceQid); a retain
// naming a local view attaches it to the sub. ReleaseRemoteQuery(retain_qid) releases one retain.
// ResultType is kUnknown while the view's sub has not released its first snapshot (even an empty
// one), then kComplete; a local-only view (no sub) is kComplete; a late joiner to a hydrated sub
// is kComplete at once. The PENDING axis is separate: IsPending(qid) ⇔ some pending entry's
// touched tables meet the view's tables. Both observers fire on transitions only. The last
// release unregisters the sub, drops its buffered frames, and GCs rows only it referenced as a
// SERVER delta through the reconcile cycle (never an optimistic remove — CRIT#2). A view whose
// sub hydrated in a release but got no batch from it receives an explicit empty catch-up batch.
//
// Frames (seed 002 onFrame / computeRelease / applyRelease, §5.1): see gate.h. A hello is checked
// against our schema (CRIT#4): every advertised table must be ours and not local, its columns a
// projection or an expansion of ours by name IN OUR ORDER (a subsequence of ours, or ours of
// it — a rename or a reorder is skew), its pk the same columns. A skewed hello is rejected:
// the qid's epoch is refused (its frames are dropped until the next hello), counted in
// schema_rejections(), and the sub re-subscribed ("drift ⇒ re-subscribe"). A valid hello records
// the qid's column projection; frames for a qid with no live sub are ignored. Progress releases
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
#include "optimistic/fold_clock.h"
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
  FoldClock* clock = nullptr;  // fold timers; must outlive the backend; required for folds
};

// A folded call site's policy (seed 002 `FoldOptions`). Times are virtual ms.
struct FoldOptions {
  nlohmann::json key;                  // identity half of the fold key (e.g. the target pk)
  int64_t debounce_ms = 120;           // trailing debounce after the LAST invoke
  std::optional<int64_t> max_wait_ms;  // cap from the window's first invoke; unset = unbounded
  bool defer_across_writes = false;    // keep deferring across overlapping normal writes
};

inline constexpr int64_t kDefaultFoldDebounceMs = 120;

enum class ResultType { kUnknown, kComplete };
std::string_view ResultTypeName(ResultType t);

class OptimisticBackend {
 public:
  // `daemon` must outlive the backend; the backend registers its handlers on it.
  OptimisticBackend(OptimisticOptions options, OptimisticSource* daemon);
  ~OptimisticBackend();
  OptimisticBackend(const OptimisticBackend&) = delete;
  OptimisticBackend& operator=(const OptimisticBackend&) = delete;

  absl::StatusOr<int64_t> Invoke(const std::string& name, const nlohmann::json& args);

  // Returns the fold key. Errors: unknown mutator (NotFound), no clock (FailedPrecondition), a
  // mutator that reads through the public surface (FailedPrecondition "cannot fold ..."), any
  // mutator failure (its status) — none of them consume a mid or change the open fold.
  absl::StatusOr<std::string> InvokeFolded(const std::string& name, const nlohmann::json& args,
                                           const FoldOptions& opts);
  void FlushFold(const std::string& fold_key);  // no-op for a key with no open window
  void FlushFolds();                            // every open window, creation order
  std::vector<std::string> OpenFolds() const;   // open fold keys, creation order
  static std::string FoldKey(const std::string& name, const nlohmann::json& key);

  // Ops on local-only tables, committed atomically (RowOp: add {row} / remove {row} / edit
  // {old_row, row}; positional full-width rows). Errors (nothing applies): a synced or unknown
  // table (FailedPrecondition / InvalidArgument naming it), an engine precondition failure,
  // called inside a reconcile cycle.
  absl::Status WriteLocal(const std::vector<RowOp>& ops);

  absl::Status RegisterQuery(int64_t qid, const Ast& ast,
                             std::optional<RemoteQuery> remote = std::nullopt);
  // Tears the view down and releases its own retain (if any). A no-op for an unknown qid. A
  // failing GC cycle is recorded in health().
  void UnregisterQuery(int64_t qid);
  // One more retain of `remote` under `retain_qid` (unique among live retains, ≠ 0), optionally
  // feeding the live local view `local_qid`. Errors: qid 0 / already a live retain / unknown
  // local view / inside a cycle.
  absl::Status RetainRemoteQuery(int64_t retain_qid, const RemoteQuery& remote,
                                 std::optional<int64_t> local_qid = std::nullopt);
  // Releases one retain; the last one for a key unregisters the sub and GCs (CRIT#2). No-op for
  // an unknown retain qid.
  void ReleaseRemoteQuery(int64_t retain_qid);

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

  // Observer of every per-query batch the backend folds into a view (invoke commits, local
  // writes, reconcile deliveries), after the fold; `catch_up` marks a just-hydrated view's first
  // delivery (an explicit EMPTY catch-up when its release folded nothing for it).
  void SetBatchObserver(std::function<void(const QueryBatch&, bool catch_up)> observer) {
    batch_observer_ = std::move(observer);
  }
  // Transition observers (fire only when the value changes; a late joiner to a hydrated sub is
  // notified kComplete even if it already read kComplete).
  void SetResultTypeObserver(std::function<void(int64_t qid, ResultType)> observer) {
    result_type_observer_ = std::move(observer);
  }
  void SetPendingObserver(std::function<void(int64_t qid, bool pending)> observer) {
    pending_observer_ = std::move(observer);
  }
  // Observer of every envelope pushed first-time (invoke, fold flush) — not re-sends.
  void SetSendObserver(std::function<void(const MutationEnvelope&)> observer) {
    send_observer_ = std::move(observer);
  }

  // True while head may legitimately differ from sync ⊕ replay(pending) (seed 002 §4.2 "the
  // read-dependent reorder snap"): a normal write read or wrote a table an OPEN fold wrote (one
  // the flush-on-enqueue did not drain — deferAcrossWrites, or a read-only overlap), or an open
  // fold was re-invoked after a later-created open fold touching the same tables, or a fold
  // flushed (took a seq, so it now replays first) while another open fold touches the same
  // tables; the next reconcile replays them in seq / creation order instead. Cleared by every
  // reconcile cycle.
  bool head_reordered() const { return head_reordered_; }
  // Reconcile cycles run so far (incremented as a cycle opens; replay observers see the cycle).
  int64_t reconcile_cycles() const { return reconcile_cycles_; }

  // Counters for the campaign summary and properties.
  int64_t schema_rejections() const { return schema_rejections_; }
  int64_t overflows() const { return overflows_; }
  int64_t superseded_frames_dropped() const { return superseded_dropped_; }

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
    std::map<int64_t, int> local_qids;  // local view qid → how many retains feed it
    bool hydrated = false;
  };
  struct Retain {
    std::string key;                   // RemoteQuery::Key() of the sub
    std::optional<int64_t> local_qid;  // the view it feeds, if any
  };
  struct LocalQuery {
    std::vector<std::string> tables;  // AstTables
    std::unique_ptr<ResultView> view;
  };
  struct FoldRecord {
    uint64_t entry_id = 0;  // its PendingMutation::id
    uint64_t created = 0;   // creation order (flushFolds / drain order)
    std::string name;
    nlohmann::json args;    // the latest args (what the flush ships)
    int64_t first_at = 0;   // clock time of the window's first invoke
    int64_t debounce_ms = kDefaultFoldDebounceMs;
    std::optional<int64_t> max_wait_ms;
    bool defer_across_writes = false;
    std::optional<FoldClock::TimerId> timer;
  };

  void Fail(absl::Status s);
  std::pair<int64_t, int64_t> DealMid(const std::string& domain);
  void ApplyBatches(const std::vector<QueryBatch>& batches);
  absl::Status RunReconcileCycle(const std::vector<ServerDeltaOp>& delta);
  void ApplyRelease(const std::vector<ServerDeltaOp>& delta, const std::set<int64_t>& newly);
  void FoldLmidOps(const std::vector<RowOp>& ops);
  void FoldConfirm(const std::string& domain, int64_t lmid);
  void MarkSubHydrated(int64_t source_qid, std::set<int64_t>* newly);
  void Overflow();
  void RegisterLmidQuery();
  void PushEnvelope(const MutationEnvelope& envelope);
  void DrainOverlapping(const std::set<std::string>& tables);
  void NoteOvertakenFolds(const WriteSet& writes, const ReadLog& reads);
  std::vector<std::string> FoldsInCreationOrder() const;
  PendingMutation* EntryById(uint64_t id);
  absl::Status CheckHello(const std::vector<WireTable>& tables) const;
  // Releases one retain: returns the sub's source qid when it was the last one.
  std::optional<int64_t> ReleaseRetain(int64_t retain_qid);
  void DropSub(int64_t source_qid, std::vector<ServerDeltaOp>* gc);
  void RunGc(const std::vector<ServerDeltaOp>& gc, const std::string& what);
  bool ViewHydrated(int64_t qid) const;
  // Recomputes every view's ResultType and pending axis; fires the observers on transitions.
  void RefreshAxes();
  void NotifyResultType(int64_t qid, ResultType rt, bool force);
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
  uint64_t next_entry_id_ = 1;
  std::map<std::string, int64_t> next_mid_;
  std::map<std::string, int64_t> watermark_;
  int64_t deal_seq_ = 0;
  std::map<std::string, FoldRecord> folds_;  // by fold key
  uint64_t next_fold_created_ = 0;

  std::map<int64_t, LocalQuery> queries_;
  std::map<std::string, RemoteSub> subs_;         // by RemoteQuery::Key()
  std::map<int64_t, std::string> source_to_key_;  // sourceQid → key
  std::map<int64_t, Retain> retains_;             // retain qid → retain
  std::map<int64_t, std::set<int64_t>> view_retains_;  // local view qid → retains feeding it
  std::set<int64_t> hydrated_;                    // views whose feeding sub released a snapshot
  std::set<int64_t> rejected_;                    // source qids whose current hello was refused
  std::map<int64_t, ResultType> result_types_;    // last notified
  std::map<int64_t, bool> pending_axis_;          // last notified
  int lmid_col_client_ = 0;                       // lmid hello projection (by name)
  int lmid_col_lmid_ = 1;
  int64_t schema_rejections_ = 0;
  int64_t overflows_ = 0;
  int64_t superseded_dropped_ = 0;
  bool head_reordered_ = false;
  int64_t reconcile_cycles_ = 0;

  std::function<void(const PendingMutation&, bool)> replay_observer_;
  std::function<void(const QueryBatch&, bool)> batch_observer_;
  std::function<void(int64_t, ResultType)> result_type_observer_;
  std::function<void(int64_t, bool)> pending_observer_;
  std::function<void(const MutationEnvelope&)> send_observer_;
};

}  // namespace rindle
