// channel.h — one authority channel of the optimistic client (seed 002 "one gate per source",
// §5.1 / §8.5): the OptimisticSource it talks through, its SourceGate, its NormalizedSync, the
// CRIT#4 hello check, the lmid (qid 0) stream's column projection, the per-qid refused epochs and
// the restart / resync / overflow handling, with its counters. Holds state; not thread-safe. One
// instance per connected source (the daemon, key kDaemonSource, always; a room via ConnectSource);
// channels.h keeps them by source key.
//
// Hello (CRIT#4, CheckHello): checked against our schema — every advertised table must be ours
// and not local, its columns a projection or an expansion of ours by name IN OUR ORDER (a
// subsequence of ours, or ours of it — a rename or a reorder is skew), its pk the same columns. A
// skewed hello is rejected: the qid's epoch is refused (its frames are dropped until the next
// hello), counted in schema_rejections(), and Admit returns kResubscribe — the caller re-subscribes
// the sub ("drift ⇒ re-subscribe"). A valid hello records the qid's column projection. Any hello
// drops that qid's buffered frames of the superseded epoch (superseded_frames_dropped()). The lmid
// hello only learns where `client_id` / `last_mutation_id` sit (by name).
// Release(cvMin) releases frames with cv ≤ cvMin in (cv, arrival) order: lmid (qid 0) frames fold
// through Ledger::FoldConfirm into watermark[key] (another client's rows and removes confirm
// nothing); data frames fold through NormalizedSync (TakeDelta() then yields ONE net delta); a
// released snapshot is reported to the caller — the first one is a sub's hydration point.
// Buffering past the cap is an overflow: Admit returns kOverflow (counted) and the caller hands
// every live sub to Reregister (§8.5: fresh snapshots re-hydrate through the footprint diff).
// Resync fence: after Reregister or FenceResync the gate releases nothing until every re-registered
// sub (data and lmid) has its snapshot buffered, then releases them together (gate.h: why the
// seed's TypeScript needs it).
// Reset() (authority restart) clears the gate; pending stays. DropConnection() (a reconnect) drops
// the gate's buffered frames of the dead connection (gate.h). Resend() (after a reconnect, §7.5
// rule 3) re-sends the domain's sent, unconfirmed envelopes with their ORIGINAL mids, in mid
// order; unflushed folds were never sent.
// Errors: a projection / sync failure (malformed frame) and an unrecoverable confirm are returned
// as Status; the caller stores them as the sticky health.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "optimistic/gate.h"
#include "optimistic/ledger.h"
#include "optimistic/normalized_sync.h"
#include "optimistic/source.h"
#include "optimistic/system_streams.h"

namespace rindle {

class Channel {
 public:
  enum class Action { kNone, kResubscribe, kOverflow };

  // `schema`, `local_tables` and `source` must outlive the channel; `source` non-null.
  Channel(std::string key, std::string client_id, const Schema* schema,
          const std::set<std::string>* local_tables, size_t buffer_cap, OptimisticSource* source);

  // Wires (Connect) / detaches (Disconnect) the source's handlers (the outcome handler is the
  // source's optional one; outcomes.h).
  void Connect(std::function<void(int64_t, const NormalizedEvent&)> on_frame,
               std::function<void(const ProgressFrame&)> on_progress,
               std::function<void()> on_restart, std::function<void()> on_resync,
               std::function<void(const MutationOutcomeFrame&)> on_outcome);
  void Disconnect();

  // Upstream.
  void Register(int64_t qid, const RemoteQuery& remote);
  void Unregister(int64_t qid);
  void Push(const MutationEnvelope& envelope);
  void RegisterLmidQuery();
  void UnregisterLmidQuery();
  // Unregisters + re-registers one sub (a refused epoch).
  void Resubscribe(int64_t qid, const RemoteQuery& remote);
  // Overflow recovery: re-registers every live (source qid, remote), in the order given, then the
  // lmid query, and fences the gate over all of them (gate.h BeginFence).
  void Reregister(const std::vector<std::pair<int64_t, const RemoteQuery*>>& live);
  // After a (re)connect (the lmid query's first hello after a resync: the source re-registered
  // every query itself): fences the gate over the live subs and the lmid query.
  void FenceResync(const std::vector<std::pair<int64_t, const RemoteQuery*>>& live);
  // Re-sends `domain`'s sent, unconfirmed envelopes (this channel's own domain, or — on the
  // daemon channel — a gate-less domain whose envelopes ship here).
  void Resend(const Ledger& ledger, const std::string& client_id, const std::string& domain);

  // Downstream. `qid` must be the lmid qid or a live sub's source qid (the caller filters).
  // `system` (may be null: no system subs) knows the system qids: their hellos are checked
  // against the lifecycle schemas (system_streams.h), never projected into NormalizedSync.
  Action Admit(int64_t qid, const NormalizedEvent& ev, absl::Status* error,
               SystemStreams* system = nullptr);
  // System frames fold FIRST (system_streams.h Fold, the seed's fixed order), then the lmid and
  // data frames; a released system snapshot is reported to `on_snapshot` too.
  absl::Status Release(int64_t cv_min, Ledger* ledger,
                       absl::FunctionRef<void(int64_t)> on_snapshot,
                       SystemStreams* system = nullptr);
  std::vector<ServerDeltaOp> TakeDelta() { return sync_.TakeDelta(); }
  // Forgets a released sub: its buffered frames, its refused epoch, its footprint (the returned GC
  // delta: rows only it referenced → removes, shared rows narrowed → edits).
  std::vector<ServerDeltaOp> DropQuery(int64_t qid);
  // A retarget's phase 1 (swap.h): unregisters the sub upstream and drops its buffered frames and
  // refused epoch, but KEEPS its footprint — its rows stay visible until phase 2's DropQuery.
  void Leave(int64_t qid);
  void Reset();
  void DropConnection() { gate_.DropConnection(); }
  // A room channel's row record outlives it while its twins do (backend.h ConnectSource): taken
  // at disconnect, adopted by the next incarnation so its snapshots diff against what the
  // twins hold. AdoptSync before any frame arrives.
  NormalizedSync TakeSync() { return std::move(sync_); }
  void AdoptSync(NormalizedSync sync) { sync_ = std::move(sync); }

  // A resync (a new session) happened on this channel since its last fence began: its next lmid
  // hello fences afresh even inside a fence (the old session's buffered snapshots are superseded).
  bool resync_since_fence() const { return resync_since_fence_; }
  void set_resync_since_fence(bool v) { resync_since_fence_ = v; }

  const std::string& key() const { return key_; }
  const SourceGate& gate() const { return gate_; }
  const NormalizedSync& sync() const { return sync_; }
  int64_t schema_rejections() const { return schema_rejections_; }
  int64_t overflows() const { return overflows_; }
  int64_t superseded_frames_dropped() const { return superseded_dropped_; }
  int64_t stale_batches_dropped() const { return gate_.stale_dropped(); }
  int64_t connection_frames_dropped() const { return gate_.connection_dropped(); }

 private:
  absl::Status CheckHello(const std::vector<WireTable>& tables) const;
  void LearnLmidColumns(const std::vector<WireTable>& tables);
  absl::Status FoldLmidOps(const std::vector<RowOp>& ops, Ledger* ledger) const;

  std::string key_;
  std::string client_id_;
  const Schema* schema_;
  const std::set<std::string>* local_tables_;
  OptimisticSource* source_;
  SourceGate gate_;
  NormalizedSync sync_;
  std::set<int64_t> rejected_;  // source qids whose current hello was refused
  int lmid_col_client_ = 0;     // lmid hello projection (by name)
  int lmid_col_lmid_ = 1;
  int64_t schema_rejections_ = 0;
  int64_t overflows_ = 0;
  int64_t superseded_dropped_ = 0;
  // A resync (a new session) happened since the last fence began: the next lmid hello fences
  // afresh even inside a fence (the old session's buffered snapshots are superseded). Only then:
  // an lmid hello without a resync answers an overflow's Reregister, which fenced already.
  // Construction registers the lmid query as a connect would: its first hello fences too.
  bool resync_since_fence_ = true;
};

}  // namespace rindle
