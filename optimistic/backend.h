// backend.h — the optimistic client (seed 002 `OptimisticBackend`, SPEC §2.2): a THIN facade over
// its parts. Authority channels (the daemon always, rooms via ConnectSource), named mutators
// predicted on a local engine Db, pending entries with per-domain gapless mids + client-global
// seq, one coherence gate and NormalizedSync per channel, lmid-as-data confirmation per domain,
// the outcome handshake and the rebase reconcile cycle. Holds
// state; not thread-safe; not re-entrant (a source must not call back into the backend from
// RegisterQuery/PushMutation).
//
// Where each part lives (each header documents its own rules):
//   run_mutator.h   — running a mutator once through a TrackingTx (invoke, fold, re-invocation)
//   ledger.h        — pending entries, per-domain mids, the deal seq, watermarks, confirm-drop
//   channel.h       — one authority channel: gate, NormalizedSync, CRIT#4 hello check, lmid
//                     projection, refused epochs, restart / resync / overflow, counters
//   channels.h      — the channels by source key; where a domain's envelope ships
//   domains.h       — the declared confirming domain (domainPolicy, pins)
//   outcomes.h      — the mutationOutcome handshake (rejected / deopt, the processed sets)
//   subscriptions.h — RemoteSub refcounting, retains, hydration, release + GC (CRIT#2)
//   views.h         — local queries + ResultViews, ResultType, the pending axis, observers
//   folds.h         — folded invokes (FOLDED-MUTATIONS-DESIGN), timers, flush-on-enqueue,
//                     head_reordered
//   reconcile.h     — the release → reconcile cycle
//   room_tables.h   — rooms (302): the namespaced twins, the released-delta rename, staging
//   swap.h          — rooms: views swapping onto twins, retarget (two phases), context join
//   downgrade.h     — rooms: demote → ghost → fence → swap-back, the stuck event
//   system_streams.h — the lifecycle system streams (outcome / room-ledger / watermark / session
//                     rows folded at release, roomWatermarks, scopeSessions, the doorbell)
// The facade checks every entry point's preconditions through ONE guard (health, then re-entry
// inside a reconcile cycle) and sequences the parts; the event order (observer calls, pushes,
// registrations) is the parts' order below.
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
// retains separately (the split path; refcounting in subscriptions.h). ReleaseRemoteQuery(
// retain_qid) releases one retain. ResultType and the pending axis: views.h.
//
// Frames (seed 002 onFrame / computeRelease / applyRelease, §5.1): see gate.h, channel.h (hello
// check, release order, overflow, restart, resync) and reconcile.h (confirm-drop and the cycle).
// Frames for a qid with no live sub are ignored.
//
// Channels (seed 002 connectSource / disconnectSource, §5.1): ConnectSource(key, source) attaches
// a second authority channel — its own gate and NormalizedSync, its own cv timeline, its own
// reserved lmid stream (qid 0) folding into watermark[key], its restart / resync / overflow
// touching only itself (coherent within a channel, eventual across). RegisterQuery /
// RetainRemoteQuery take the channel a remote sub registers on (default the daemon; it must be
// connected: NotFound); a (name, args) sub lives on one channel (subscriptions.h). A data frame
// arriving on a channel other than its sub's is a wiring error (sticky Internal health).
// DisconnectSource(key) detaches the channel's handlers, unregisters its lmid stream and drops
// its gate; the domain's nextMid, watermark and processed outcomes stay forever. Errors: the
// daemon can be neither connected again nor disconnected; an already-connected key is
// AlreadyExists; disconnecting a channel a live sub still lives on is FailedPrecondition (seed
// 002's disconnectSource does not check — its one caller, demoteRoomSource, validates first).
// The engine attaches only the daemon baseline today (engine/rebase.h; the namespaced room tables
// are the next issue's view plane), so every channel's released delta rebases through it.
//
// Rooms (seed 002 302; the three files above document every rule): RegisterRoomTables(key,
// tables) / RoomTablesFor / UnregisterRoomTables; a room channel with twins renames its released
// and GC deltas into them and drops the rest; a room-declared mutation stages onto them (a write
// outside them warns once per mutator name: the cross-authority observer); a room sub's views
// swap onto them at the release tail after its first snapshot (late joiners at retain);
// RetargetRemoteQuery(remote, key) moves a live sub in two phases; DemoteRoomSource(key, doc,
// final_flush_seq) disconnects the room and arms a ghost evaluated after every release (the fence
// reads RoomWatermark(doc)); ConnectSource of a ghosted room cancels its ghost. A room channel
// disconnected while its twins stay registered (a demote's ghost, a plain disconnect) leaves its
// NormalizedSync record behind; the next ConnectSource of that key adopts it while the twins are
// still registered (dropped otherwise), so the new incarnation's snapshots diff against the rows
// the twins hold — seed 002 adopts only the rename map there, and its fresh sync's first snapshot
// of a re-upgraded sub would add pks the twins still hold (the engine refuses: a poisoned
// reconcile). A `@` in a schema
// table name is refused at construction (health). Errors: the daemon is neither a room nor
// demotable; a demote while a sub still lives on the room is FailedPrecondition naming it.
//
// Domains (seed 002 domainPolicy / dealMid / channelFor, §7.1): the declared domain is resolved
// before the prediction runs; the mid is dealt from that domain's ledger and pins it; the envelope
// ships on that domain's channel, or the daemon's when the domain has no connected gate.
// Outcomes (seed 002 H-v, §3.3): each channel's mutationOutcome frames are handled on arrival,
// out of band (outcomes.h); OnOutcome(domain, frame) is that handler (public for harnesses).
//
// System streams (seed 002 Slice I-iii, system_streams.h): RetainSystemQuery retains a sub with
// no view over one lifecycle table; its frames fold at release, before the lmid and data frames
// and the confirm-drop, in the seed's fixed order (outcome rows through OnOutcome's handler, room
// ledger rows through the lmid confirm core, watermark rows, scope-session rows); the doorbell
// (SetScopeSessionsObserver) fires after that release applied. A resync re-sends its own
// channel's domain only (§7.5 rule 3; a gate-less domain is not re-sent — see HandleResync).
//
// Errors: Invoke/RegisterQuery return Status naming the mutator/qid. Unrecoverable conditions —
// a confirmed lmid above every issued mid while sent mids are pending, a malformed server frame,
// an engine failure inside a cycle, a view that cannot fold its events — are stored as the sticky
// health() status; once unhealthy, Invoke returns it and frames are ignored. Programmer errors
// (a null source, a broken part invariant) abort through RINDLE_CHECK.
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

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/source_key.h"
#include "engine/ast.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "engine/ivm/view.h"
#include "nlohmann/json.hpp"
#include "optimistic/channel.h"
#include "optimistic/channels.h"
#include "optimistic/domains.h"
#include "optimistic/downgrade.h"
#include "optimistic/fold_clock.h"
#include "optimistic/folds.h"
#include "optimistic/gate.h"
#include "optimistic/health.h"
#include "optimistic/inspect.h"
#include "optimistic/ledger.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/mutator_registry.h"
#include "optimistic/normalized_sync.h"
#include "optimistic/outcomes.h"
#include "optimistic/pending.h"
#include "optimistic/reconcile.h"
#include "optimistic/room_tables.h"
#include "optimistic/source.h"
#include "optimistic/subscriptions.h"
#include "optimistic/swap.h"
#include "optimistic/system_streams.h"
#include "optimistic/views.h"

namespace rindle {

struct OptimisticOptions {
  std::string client_id;
  Schema schema;
  std::set<std::string> local_tables;
  std::map<std::string, Mutator> mutators;
  size_t buffer_cap = 1024;
  FoldClock* clock = nullptr;  // fold timers; must outlive the backend; required for folds
  DomainPolicy domain_policy;  // empty: every mutation confirms on the daemon (domains.h)
  RejectedHandler on_rejected;  // a final rejection's reason surface (outcomes.h); may be empty
};

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
  // Open fold keys, creation order.
  std::vector<std::string> OpenFolds() const { return folds_.InCreationOrder(); }
  static std::string FoldKey(const std::string& name, const nlohmann::json& key) {
    return Folds::Key(name, key);
  }

  // Ops on local-only tables, committed atomically (RowOp: add {row} / remove {row} / edit
  // {old_row, row}; positional full-width rows). Errors (nothing applies): a synced or unknown
  // table (FailedPrecondition / InvalidArgument naming it), an engine precondition failure,
  // called inside a reconcile cycle.
  absl::Status WriteLocal(const std::vector<RowOp>& ops);

  // `source` must outlive the backend (or its DisconnectSource). Errors: see "Channels" above.
  absl::Status ConnectSource(const std::string& source_key, OptimisticSource* source);
  // A no-op for a key that is not connected.
  absl::Status DisconnectSource(const std::string& source_key);
  bool IsConnected(const std::string& source_key) const { return channels_.Has(source_key); }

  absl::Status RegisterQuery(int64_t qid, const Ast& ast,
                             std::optional<RemoteQuery> remote = std::nullopt,
                             const std::string& channel = std::string(kDaemonSource));
  // Tears the view down and releases its own retain (if any). A no-op for an unknown qid. A
  // failing GC cycle is recorded in health().
  void UnregisterQuery(int64_t qid);
  // One more retain of `remote` under `retain_qid` (unique among live retains, ≠ 0), optionally
  // feeding the live local view `local_qid`. Errors: qid 0 / already a live retain / unknown
  // local view / inside a cycle.
  absl::Status RetainRemoteQuery(int64_t retain_qid, const RemoteQuery& remote,
                                 std::optional<int64_t> local_qid = std::nullopt,
                                 const std::string& channel = std::string(kDaemonSource));
  // Releases one retain; the last one for a key unregisters the sub and GCs (CRIT#2). No-op for
  // an unknown retain qid.
  void ReleaseRemoteQuery(int64_t retain_qid);

  // System streams (seed 002 Slice I-iii, system_streams.h): a retain of `remote` with NO view
  // whose frames fold at release into the ledger plane, roomWatermarks and scopeSessions. Same
  // refcounting and channel rules as RetainRemoteQuery (the channel defaults to the daemon: the
  // lifecycle tables live in its store). Errors: an unconnected channel (NotFound), qid 0 or a
  // spec that names no lifecycle table / the wrong filter field (InvalidArgument), a live retain
  // qid (AlreadyExists), the sub on another channel / its wire id taken (FailedPrecondition),
  // inside a cycle.
  absl::Status RetainSystemQuery(int64_t retain_qid, const RemoteQuery& remote,
                                 const SystemStreamSpec& spec,
                                 const std::string& channel = std::string(kDaemonSource));
  // Releases one system retain (refcounted; the last one unregisters the sub and forgets its
  // spec). The folded state stays. A no-op for an unknown retain qid.
  void ReleaseSystemQuery(int64_t retain_qid);
  // The doorbell (seed 002 onScopeSessions): once per scope a release's session fold touched,
  // after that release applied, in scope order. A later registration replaces the earlier one.
  void SetScopeSessionsObserver(std::function<void(const ScopeSessionsEvent&)> observer) {
    scope_sessions_observer_ = std::move(observer);
  }
  // Unexpired (expires_at > the fold clock's now) sessions of OTHER clients under `scope`.
  int64_t OtherScopeSessions(const std::string& scope) const {
    return system_.OtherScopeSessions(scope);
  }
  // doc → highest flush_seq folded (monotone).
  const std::map<std::string, int64_t>& room_watermarks() const {
    return system_.room_watermarks();
  }
  const SystemFoldCounters& system_folds() const { return system_.counters(); }
  // Room lmid-stream releases behind a daemon-carried room-ledger row: lag, not a regression
  // (Ledger::FoldStreamConfirm).
  int64_t stream_lag_confirms() const { return ledger_.stream_lag_confirms(); }
  // --- rooms (302; see "Rooms" above) ---
  absl::Status RegisterRoomTables(const std::string& source_key,
                                  const std::vector<std::string>& tables);
  const RoomTableMap& RoomTablesFor(const std::string& source_key) const {
    return rooms_.TablesFor(source_key);
  }
  // Errors: a view still swapped onto the room (FailedPrecondition), the engine's.
  absl::Status UnregisterRoomTables(const std::string& source_key);
  // Returns the sub's wire (source) qid.
  absl::StatusOr<int64_t> RetargetRemoteQuery(const RemoteQuery& remote,
                                              const std::string& source_key);
  absl::Status DemoteRoomSource(const std::string& source_key, const std::string& doc,
                                int64_t final_flush_seq);
  // The fence input roomWatermarks[doc]: the installed source, else the system streams' folded
  // value (room_watermarks()) max the test seam's.
  int64_t RoomWatermark(const std::string& doc) const;
  void SetRoomWatermarkSource(std::function<int64_t(const std::string& doc)> source) {
    room_watermark_source_ = std::move(source);
  }
  // Test seam: roomWatermarks[doc] max-folds `flush_seq` (no system stream needed), then the
  // ghosts are evaluated as after a release.
  void TestRoomWatermark(const std::string& doc, int64_t flush_seq);
  void SetDowngradeStuckObserver(std::function<void(const DowngradeStuckEvent&)> observer) {
    downgrades_.stuck = std::move(observer);
  }
  void SetRoomContextJoinObserver(std::function<void(const RoomContextJoinEvent&)> observer) {
    swaps_.context_join = std::move(observer);
  }
  // (mutator name, domain, engine tables outside the room's twins): once per mutator name.
  void SetCrossAuthorityObserver(
      std::function<void(const std::string&, const std::string&, const std::vector<std::string>&)>
          observer) {
    cross_authority_observer_ = std::move(observer);
  }
  // A view was reset in place onto other engine tables (a swap-in or a swap-back).
  void SetSwapObserver(std::function<void(int64_t qid)> observer) {
    views_.swap_observer = std::move(observer);
  }
  // The room a view is swapped onto; nullopt when it reads the plain tables.
  std::optional<std::string> SwappedTo(int64_t qid) const { return swaps_.SwappedTo(qid); }
  const std::map<std::string, Downgrades::Ghost>& ghosts() const { return downgrades_.ghosts(); }
  const RoomCounters& room_counters() const { return room_counters_; }
  int64_t room_deltas_dropped() const { return rooms_.dropped_unowned(); }

  const ResultView* View(int64_t qid) const { return views_.View(qid); }  // nullptr if unknown
  ResultType GetResultType(int64_t qid) const {  // kUnknown for an unknown qid
    return views_.GetResultType(qid);
  }
  bool IsPending(int64_t qid) const { return views_.IsPending(qid); }

  Inspect inspect() const;
  DomainsInspect InspectDomains() const;
  const Db& engine() const { return db_; }
  const NormalizedSync& sync() const { return channels_.daemon().sync(); }
  // The connected channel `key`, or nullptr.
  const Channel* channel(const std::string& key) const { return channels_.Find(key); }
  const OutcomeCounters& outcome_counters() const { return outcomes_.counters(); }
  bool OutcomeProcessed(const std::string& domain, int64_t mid) const {
    return outcomes_.Processed(domain, mid);
  }
  const std::vector<PendingMutation>& pending() const { return ledger_.pending(); }
  const std::string& client_id() const { return options_.client_id; }
  absl::Status health() const { return health_.status; }

  // Observer of every reconcile re-invocation: (entry, ok) in replay order. For replay-order
  // properties and traces.
  void SetReplayObserver(std::function<void(const PendingMutation&, bool ok)> observer) {
    reconcile_.replay_observer = std::move(observer);
  }

  // Observer of every per-query batch the backend folds into a view (invoke commits, local
  // writes, reconcile deliveries), after the fold; `catch_up` marks a just-hydrated view's first
  // delivery (an explicit EMPTY catch-up when its release folded nothing for it).
  void SetBatchObserver(std::function<void(const QueryBatch&, bool catch_up)> observer) {
    views_.batch_observer = std::move(observer);
  }
  // Transition observers (fire only when the value changes; a late joiner to a hydrated sub is
  // notified kComplete even if it already read kComplete).
  void SetResultTypeObserver(std::function<void(int64_t qid, ResultType)> observer) {
    views_.result_type_observer = std::move(observer);
  }
  void SetPendingObserver(std::function<void(int64_t qid, bool pending)> observer) {
    views_.pending_observer = std::move(observer);
  }
  // Observer of every envelope pushed first-time (invoke, fold flush) — not re-sends.
  void SetSendObserver(std::function<void(const MutationEnvelope&)> observer) {
    send_observer_ = std::move(observer);
  }

  // True while head may legitimately differ from sync ⊕ replay(pending) (seed 002 §4.2 "the
  // read-dependent reorder snap"; the cases are listed in folds.h). Cleared by every reconcile
  // cycle.
  bool head_reordered() const { return folds_.head_reordered(); }
  // Reconcile cycles run so far (incremented as a cycle opens; replay observers see the cycle).
  int64_t reconcile_cycles() const { return reconcile_.cycles(); }

  // Counters for the campaign summary and properties (the daemon channel's).
  int64_t schema_rejections() const { return daemon().schema_rejections(); }
  int64_t overflows() const { return daemon().overflows(); }
  int64_t superseded_frames_dropped() const { return daemon().superseded_frames_dropped(); }
  int64_t stale_batches_dropped() const { return daemon().stale_batches_dropped(); }
  // Buffered frames of a dead connection dropped at a resync (gate.h DropConnection).
  int64_t connection_frames_dropped() const { return daemon().connection_frames_dropped(); }
  // Progress frames the resync fence held back (gate.h).
  int64_t fence_holds() const { return daemon().gate().fence_holds(); }
  // Overflows a fence was spared: the frames over the cap were covered by held progress (gate.h).
  int64_t fence_overflows_spared() const { return daemon().gate().fence_spared(); }

  // The daemon source's handlers (wired in the constructor; public so a harness can drive them
  // directly). Every channel's handlers run the same code on that channel.
  void OnFrame(int64_t qid, const NormalizedEvent& ev) { HandleFrame(daemon_key(), qid, ev); }
  void OnProgress(const ProgressFrame& frame) { HandleProgress(daemon_key(), frame); }
  void OnRestart() { HandleRestart(daemon_key()); }
  void OnResync() { HandleResync(daemon_key()); }
  // A mutationOutcome frame from `domain`'s channel (outcomes.h), handled now.
  void OnOutcome(const std::string& domain, const MutationOutcomeFrame& frame);
  // Test seam (seed 002 `__testRelease`): the apply half of a release for `domain` with NO gate —
  // watermark[domain] max-folds `watermark_update` (when given), then the per-domain confirm-drop
  // and the reconcile cycle over the coherent server `delta`. Errors land in health().
  void TestRelease(const std::string& domain, const std::vector<ServerDeltaOp>& delta,
                   std::optional<int64_t> watermark_update = std::nullopt);

 private:
  enum class HealthCheck { kCheck, kSkip };
  // The ONE precondition guard of the state-changing entry points, in this order: unhealthy →
  // the sticky health (annotated) when `health` is kCheck; then `arg_error` (the caller's own
  // argument checks, which precede the re-entry check); then re-entry inside a reconcile cycle →
  // FailedPrecondition "<act()> re-entrantly inside a reconcile cycle". OK to proceed.
  absl::Status Guard(HealthCheck health, absl::FunctionRef<std::string()> act,
                     absl::Status arg_error = absl::OkStatus()) const;
  void RegisterTables();
  // `pin` bypasses the domain policy (a deopt re-invocation, outcomes.h).
  absl::StatusOr<int64_t> InvokeWith(const std::string& name, const nlohmann::json& args,
                                     const std::optional<std::string>& pin);
  // Ships a first-time envelope of `domain` on its channel (channels.h For).
  void PushEnvelope(const std::string& domain, const MutationEnvelope& envelope);
  // Wires a channel's source handlers to the Handle* below (by key: a handler of a removed
  // channel is detached first, and a late call finds no channel and does nothing).
  void WireChannel(Channel& channel);
  void HandleFrame(const std::string& key, int64_t qid, const NormalizedEvent& ev);
  void HandleProgress(const std::string& key, const ProgressFrame& frame);
  void HandleRestart(const std::string& key);
  void HandleResync(const std::string& key);
  // The cross-authority warning after a room-declared prediction (room_tables.h).
  void NoteCrossAuthority(const std::string& name, const std::string& domain,
                          const WriteSet& writes);
  // The GC delta of a released retain, mapped through its channel's twins and run; a sub released
  // mid-retarget also GCs the channel it left.
  void RunReleaseGc(const std::optional<std::pair<int64_t, std::string>>& sub,
                    std::vector<ServerDeltaOp> gc, const std::string& what);
  // Fires the doorbell for the scopes the last release's session fold touched.
  void AnnounceScopeSessions();
  const Channel& daemon() const { return channels_.daemon(); }
  const std::string& daemon_key() const { return channels_.daemon().key(); }

  OptimisticOptions options_;
  MutatorRegistry registry_;
  Db db_;
  ClientHealth health_;
  Ledger ledger_;
  Channels channels_;
  Subscriptions subs_;
  Views views_;
  Domains domains_;
  Folds folds_;
  Reconciler reconcile_;
  Outcomes outcomes_;
  SystemStreams system_;
  RoomTables rooms_;
  RoomCounters room_counters_;
  RoomSwaps swaps_;
  Downgrades downgrades_;
  std::map<std::string, int64_t> test_room_watermarks_;
  // Room key → the row record of its last channel, kept while its twins outlive the channel.
  std::map<std::string, NormalizedSync> surviving_sync_;
  std::function<int64_t(const std::string&)> room_watermark_source_;
  std::function<void(const std::string&, const std::string&, const std::vector<std::string>&)>
      cross_authority_observer_;
  std::function<void(const MutationEnvelope&)> send_observer_;
  std::function<void(const ScopeSessionsEvent&)> scope_sessions_observer_;
};

}  // namespace rindle
