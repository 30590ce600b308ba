// sim_client.h — one simulated client: an OptimisticBackend wired to the simulated network
// through its OptimisticSource seam. Holds state: the source's query registry, the push
// transport's unacknowledged envelopes, the link state and the last boot id seen.
//
// Link: Connect() opens the link, sends the handshake and re-registers every registered query
// (in qid order); the authority's welcome arrives first on the new connection — a boot id that
// differs from the last one seen fires OnRestart — then OnResync fires (the backend re-sends its
// unconfirmed envelopes). A broken link schedules a reconnect after reconnect_ms_min..max.
// Push transport: every pushed envelope is retried until acknowledged, first after
// push_timeout_ms, then with doubling backoff (capped at push_backoff_max_ms) — all virtual time;
// with ClientTiming.transport_retry off it is never retried, and a push still unacked after
// push_timeout_ms breaks the link instead (client.push_timeout_break), so the backend's own
// resync re-send (client.resync_resend) is the only recovery. carried() records every envelope
// put on the push path — first sends, transport retries and the backend's re-sends, in order.
// Folds: the backend's fold timers run on a SimFoldClock over the same event queue
// (options.clock is set here). A first-time push that is not the mid an Invoke just returned is a
// fold flush (counted as client.fold_flush).
// Local-only tables: WriteLocal resolves scenario intents (scenario.h LocalOp) against this
// client's model of its local rows into add/edit/remove ops; properties/local_tables.cc compares
// the engine's local tables with that model (local_rows()) and every local-only view with the
// fresh-query oracle over the client's head. Backend counters (overflows, schema rejections, superseded frames) are mirrored
// into the run's counters as client.overflow / client.schema_rejection /
// client.superseded_dropped / client.stale_batch_dropped whenever they move (and the resync
// fence's held progress frames as client.fence_hold).
// Rooms (issue 12): ConnectRoom attaches a RoomLink (room_link.h) with
// backend.ConnectSource(RoomSourceKey(doc)); the backend's domain policy routes a room-declared
// mutation (sim/workload/room_policy.h) to that room's domain while the client is connected to it.
// DisconnectRoom detaches it (deferred while that domain still has pending entries: the
// simulated app waits for them). on_rejected calls are recorded (rejections()). A first-time
// push on the daemon link while an outcome frame is being handled (BeginOutcome/EndOutcome, the
// simulation's room delivery) is a deopt flip or re-invoke, not a fold flush (outcome_pushes()).
// System streams (issue 12, seed 002 Slice I-iii): ConnectRoom also retains, on the DAEMON
// channel, the room doc's three lifecycle system queries (outcomes, room ledger, watermark;
// base/lifecycle_tables.h), once per (table, doc) — the seed leaves that idempotence to the
// caller. They stay retained after DisconnectRoom: the lifecycle rows live in the daemon's store
// and must reach the client with no room socket alive (seed 002 §7.1 "load-bearing for §7.5": a
// deopt row for a mid the room lmid already retired re-invokes it); a daemon reconnect
// re-registers them like every sub. (The simulator has no scopes, so no scope-session retain.)
// Counted as client.system_retain (a fresh retain) and client.system_retain_kept (a room
// reconnect that found its streams retained). A first-time daemon push while a daemon frame is
// being handled is a deopt flip / re-invoke the system stream's fold caused: recorded in
// outcome_pushes() (client.system_deopt_push). The backend's system_folds() counters are mirrored
// as client.system_fold.<category>. deals(): every first push, daemon or room, in send order (the
// harness's record of the one deal order, world.h DealRecord).
// Source: seed 002 (OptimisticSource, §7.5 rule 3), SPEC §2.4.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "optimistic/backend.h"
#include "optimistic/source.h"
#include "properties/world.h"
#include "sim/authority/daemon.h"
#include "sim/world/event_queue.h"
#include "sim/world/network.h"
#include "sim/scenario/scenario.h"
#include "sim/world/sim_fold_clock.h"
#include "properties/world.h"
#include "sim/run/room_link.h"
#include "sim/run/trace.h"

namespace rindle::sim {

struct ClientTiming {
  int64_t push_timeout_ms = 250;
  int64_t push_backoff_max_ms = 2000;
  int64_t reconnect_ms_min = 50;
  int64_t reconnect_ms_max = 400;
  // false: no transport re-send; a push unacked after push_timeout_ms breaks the link (a dead
  // socket), and only the backend's resync re-send recovers it (ScenarioConfig.transport_retry).
  bool transport_retry = true;
};

class SimClient : public OptimisticSource {
 public:
  SimClient(int index, std::string client_id, std::string user_id, OptimisticOptions options,
            EventQueue* queue, Network* network, DaemonAuthority* daemon, Trace* trace,
            std::map<std::string, int64_t>* counters, Rng rng, ClientTiming timing);
  ~SimClient() override;

  // OptimisticSource
  void RegisterQuery(int64_t qid, const RemoteQuery& query) override;
  void UnregisterQuery(int64_t qid) override;
  void PushMutation(const MutationEnvelope& envelope) override;
  void OnNormalized(std::function<void(int64_t, const NormalizedEvent&)> handler) override;
  void OnProgress(std::function<void(const ProgressFrame&)> handler) override;
  void OnRestart(std::function<void()> handler) override;
  void OnResync(std::function<void()> handler) override;

  void Connect();
  // The link broke (fault or authority restart): schedule a reconnect.
  void LinkBroken();
  // Called by the network at the client when a frame arrives.
  void Receive(const ServerFrame& frame);

  // App-level actions.
  absl::StatusOr<int64_t> Invoke(const std::string& name, const nlohmann::json& args);
  // A new local view on a remote query; on the room channel the harness retargeted that query
  // to, if any (room view plane below), else the daemon's.
  absl::Status Retain(const RemoteQuery& query);
  void ReleaseOne(int64_t local_qid);              // a remote or a local-only view
  absl::StatusOr<std::string> InvokeFolded(const std::string& name, const nlohmann::json& args,
                                           const FoldOptions& opts);
  void FlushFolds();
  // Resolves the intents against the local-row model and commits them as ONE WriteLocal batch.
  // Returns the number of ops sent (0: every intent was already satisfied, nothing was called).
  // A kSyncedWrite intent must make the backend reject the whole batch: the result is then the
  // backend's error (the model is left as it was); if the backend ACCEPTS such a batch the
  // result is Internal "accepted a write to synced table ...".
  absl::StatusOr<size_t> WriteLocal(const std::vector<LocalOp>& intents);
  // A local-only view (no remote) of LocalQueryNames(); returns its qid.
  absl::StatusOr<int64_t> LocalView(const std::string& name);
  // Releases every remote view and re-retains the same queries (fresh qids, same order): one
  // resubscribe cycle. Returns old qid → new qid for the views re-retained.
  std::map<int64_t, int64_t> ResubscribeAll();

  // Rooms (see the file comment). ConnectRoom errors: the backend's ConnectSource.
  absl::Status ConnectRoom(RoomAuthority* room, std::function<void()> after_push);
  // True when detached; false when deferred (pending entries of the domain) or not connected.
  bool DisconnectRoom(const std::string& key);
  // Live system retains: retain qid → (remote query, spec), in retain order (qid order).
  struct SystemRetain {
    RemoteQuery remote;
    SystemStreamSpec spec;
  };
  const std::map<int64_t, SystemRetain>& system_retains() const { return system_retains_; }
  // The live link to room `key`, or nullptr.
  RoomLink* room_link(const std::string& key) const;
  const std::map<std::string, std::unique_ptr<RoomLink>>& rooms() const { return rooms_; }
  // Every link this client ever opened to a room, live or closed, in opening order.
  const std::vector<RoomLink*>& all_room_links() const { return all_room_links_; }
  // Around the backend's handling of one outcome frame from room `key` (mid): recorded as
  // delivered; on_rejected calls inside are tagged with `key`.
  void BeginOutcome(const std::string& key, int64_t mid) {
    in_outcome_ = true;
    outcome_key_ = key;
    ++outcomes_delivered_[{key, mid}];
  }
  void EndOutcome() {
    in_outcome_ = false;
    outcome_key_.clear();
    SyncOutcomeCounters();
  }
  const std::map<std::pair<std::string, int64_t>, int64_t>& outcomes_delivered() const {
    return outcomes_delivered_;
  }
  // Per room key, every envelope put on a link to it (room_link.h carried, across links).
  const std::map<std::string, std::vector<MutationEnvelope>>& room_carried() const {
    return room_carried_;
  }
  // Daemon mids first pushed while handling an outcome frame (deopt flips and re-invokes).
  const std::vector<int64_t>& outcome_pushes() const { return outcome_pushes_; }
  // The one deal order across the daemon and room links, from the first pushes (world.h
  // DealRecord); the simulation records each deopt's daemon mid into it (NoteDeoptPush).
  const props::DealRecord& deals() const { return deals_; }
  props::DealRecord& mutable_deals() { return deals_; }
  // Every on_rejected call, in call order.
  const std::vector<props::RejectionRecord>& rejections() const { return rejections_; }
  // True when the last Invoke dealt its mid in a room domain.
  bool last_invoke_in_room() const { return last_invoke_in_room_; }

  // Room view plane (issue 13; sim_client_room_views.cc). AttachRoomTables: at room connect,
  // the room's owned wire tables (room_policy.h RoomOwnedTables) get their namespaced twins.
  // RetargetView moves the live sub of `query` onto channel `key` (a room, or the daemon back)
  // and records it: later Retains of that query join it there (a late joiner on a room swaps at
  // retain). DemoteRoom: the live subs the harness moved onto the room go back to the daemon,
  // then the room is demoted with `final_flush_seq` (a ghost) and its link closed — never
  // deferred for pending entries (a room that dies before its verdicts leaves a stuck ghost).
  // FeedRoomWatermark stands in for the watermark system stream (the harness calls it when the
  // daemon progress covering the flush's commit reached the client). Stuck / context-join /
  // swap events are recorded as the backend reported them (checked against the harness).
  // Off unless the run enables the room view plane (the scenario's config.room_views).
  void EnableRoomViews() { room_views_ = true; }
  void AttachRoomTables(const std::string& key);
  absl::Status RetargetView(const RemoteQuery& query, const std::string& key);
  absl::Status DemoteRoom(const std::string& key, const std::string& doc, int64_t final_flush_seq);
  void FeedRoomWatermark(const std::string& doc, int64_t flush_seq);
  // query key (RemoteQuery::Key) → the channel the harness moved it to (rooms only).
  const std::map<std::string, std::string>& retargeted() const { return retargeted_; }
  void OnStuck(std::function<void(const DowngradeStuckEvent&)> h) { on_stuck_ = std::move(h); }
  // The harness's record of the view plane (room views on only): a retarget the client took
  // (query, channel) and a room channel attached (connect) or dropped (disconnect, demote).
  void OnRetargeted(std::function<void(const RemoteQuery&, const std::string&)> h) {
    on_retargeted_ = std::move(h);
  }
  void OnRoomChannel(std::function<void(const std::string&, bool)> h) {
    on_room_channel_ = std::move(h);
  }
  int64_t context_joins_seen() const { return context_joins_seen_; }
  // What a view showed inside the current step from its first swap on (the backend's swap and
  // batch observers: the user's screen, not its bookkeeping) — each state after a swap, and after
  // every later batch into that view; no-flicker checks them for a flash inside one release.
  // BeginStep clears it.
  const std::map<int64_t, std::vector<std::vector<TreeNode>>>& swap_states() const {
    return swap_states_;
  }
  void BeginStep() { swap_states_.clear(); }
  // Mirrors room_counters() into the run's counters (client.room.*) as they move.
  void SyncRoomCounters();

  int index() const { return index_; }
  const std::string& client_id() const { return client_id_; }
  const std::string& user_id() const { return user_id_; }
  OptimisticBackend& backend() { return *backend_; }
  const OptimisticBackend& backend() const { return *backend_; }
  // Live local views: local qid → (remote query, the AST the view runs).
  const std::map<int64_t, std::pair<RemoteQuery, Ast>>& views() const { return views_; }
  // Every envelope this client ever pushed first-time, by mid (the ledger's input).
  const std::map<int64_t, MutationEnvelope>& sent() const { return sent_; }
  // Every envelope this client put on the push path, in send order (resends included).
  const std::vector<MutationEnvelope>& carried() const { return carried_; }
  // What this client's source put on its link: connections and registrations (world.h).
  const props::LinkRecord& link_record() const { return link_record_; }
  // The authority lost its held pushes (a restart or rollback); `lmid`: this client's lmid there
  // now. Starts the record of delivered pushes afresh (world.h LinkRecord).
  void RestartPushRecord(int64_t lmid) {
    link_record_.pushes_delivered.clear();
    link_record_.pushes_base = lmid;
  }
  // Local-only views: qid → (local query name, AST).
  const std::map<int64_t, std::pair<std::string, Ast>>& local_views() const { return local_views_; }
  // The model of the local tables: table → id → row.
  const std::map<std::string, std::map<std::string, RowValues>>& local_rows() const {
    return local_rows_;
  }
  int64_t fold_invokes() const { return fold_invokes_; }
  int64_t fold_flushes() const { return fold_flushes_; }
  int64_t send_observed() const { return send_observed_; }
  const SimFoldClock& fold_clock() const { return *clock_; }
  size_t unacked() const { return unacked_.size(); }
  // The backend refused an authority's older ledger (optimistic/ledger.h): shut down, its push
  // path closed; the runner runs no more of its actions.
  bool refused() const { return refused_; }
  bool connected() const { return network_->up(client_id_); }
  // True when anything reached this client since the last TakeDirty() (the step checks skip
  // clients whose state cannot have changed).
  bool TakeDirty() {
    const bool d = dirty_;
    dirty_ = false;
    return d;
  }
  // A frame of one of its room links reached it (the simulation's room delivery): its state may
  // have changed like on a daemon frame, so the step checks must look at it this step.
  void MarkRoomDelivery() { MarkDirty(); }
  // The same for the local-only tables and views (properties/local_tables.cc reads them).
  bool TakeLocalDirty() {
    const bool d = local_dirty_;
    local_dirty_ = false;
    return d;
  }

 private:
  void SendPush(int64_t mid, int attempt);
  void PushTimedOut(int64_t mid, int64_t generation);
  void TraceLine(nlohmann::json j);
  void Count(const std::string& name) { ++(*counters_)[name]; }
  void MarkDirty() {
    dirty_ = true;
    local_dirty_ = true;
  }
  void SyncBackendCounters();
  void InstallRoomViewObservers();
  // The last view of a retargeted query is going: its sub goes with it, so the record does.
  void ForgetRetargetOf(int64_t local_qid);
  void SyncSystemFoldCounters();
  void SyncOutcomeCounters();
  // ConnectRoom's system retains for `doc` (see the file comment).
  void RetainRoomSystemStreams(const std::string& doc);

  int index_;
  std::string client_id_;
  std::string user_id_;
  EventQueue* queue_;
  Network* network_;
  DaemonAuthority* daemon_;
  Trace* trace_;
  std::map<std::string, int64_t>* counters_;
  const Rng rng_;  // never advanced: each reconnect delay forks a stream keyed by its break ms
  int64_t last_break_ms_ = -1;  // with break_ordinal_: the key's ordinal among breaks in that ms
  int64_t break_ordinal_ = 0;
  ClientTiming timing_;

  std::map<int64_t, RemoteQuery> registry_;  // what the source has registered upstream
  props::LinkRecord link_record_;
  std::map<int64_t, MutationEnvelope> unacked_;
  bool refused_ = false;  // the backend refused a regressing ledger: the push path is shut
  std::map<int64_t, MutationEnvelope> sent_;
  std::vector<MutationEnvelope> carried_;
  std::map<int64_t, int64_t> push_generation_;  // mid → sends so far (retry off: the live timer)
  std::map<int64_t, std::pair<RemoteQuery, Ast>> views_;
  int64_t next_local_qid_ = 1;
  int64_t last_boot_id_ = 0;
  bool reconnect_scheduled_ = false;
  bool dirty_ = true;
  bool local_dirty_ = true;
  Schema schema_;  // the backend's (client) schema
  std::map<int64_t, std::pair<std::string, Ast>> local_views_;
  std::map<std::string, std::map<std::string, RowValues>> local_rows_;
  bool in_invoke_ = false;
  std::vector<int64_t> invoke_sends_;
  int64_t fold_invokes_ = 0;
  int64_t fold_flushes_ = 0;
  int64_t send_observed_ = 0;
  int64_t seen_overflows_ = 0;
  int64_t seen_schema_rejections_ = 0;
  int64_t seen_superseded_ = 0;
  int64_t seen_stale_ = 0;
  int64_t seen_connection_dropped_ = 0;
  int64_t seen_fence_holds_ = 0;
  int64_t seen_fence_spared_ = 0;
  int64_t seen_stream_lag_ = 0;
  std::unique_ptr<SimFoldClock> clock_;  // before backend_: the backend holds timers on it
  // Before backend_: its domain policy reads rooms_, and the links outlive its channels.
  std::map<std::string, std::unique_ptr<RoomLink>> rooms_;
  std::vector<std::unique_ptr<RoomLink>> closed_rooms_;  // network closures may still name them
  std::vector<RoomLink*> all_room_links_;
  bool in_outcome_ = false;
  std::string outcome_key_;
  std::map<std::pair<std::string, int64_t>, int64_t> outcomes_delivered_;
  std::map<std::string, std::vector<MutationEnvelope>> room_carried_;
  std::vector<int64_t> outcome_pushes_;
  props::DealRecord deals_;
  std::vector<props::RejectionRecord> rejections_;
  bool last_invoke_in_room_ = false;
  bool room_views_ = false;
  std::map<std::string, std::string> retargeted_;
  std::function<void(const DowngradeStuckEvent&)> on_stuck_;
  std::function<void(const RemoteQuery&, const std::string&)> on_retargeted_;
  std::function<void(const std::string&, bool)> on_room_channel_;
  int64_t context_joins_seen_ = 0;
  std::map<int64_t, std::vector<std::vector<TreeNode>>> swap_states_;
  std::map<std::string, int64_t> seen_room_counters_;
  std::map<int64_t, SystemRetain> system_retains_;
  std::set<std::pair<std::string, std::string>> system_retained_;  // (table, doc)
  bool in_daemon_frame_ = false;  // inside Receive: a fold of system frames may push
  SystemFoldCounters seen_system_folds_;
  OutcomeCounters seen_outcomes_;

  std::function<void(int64_t, const NormalizedEvent&)> on_normalized_;
  std::function<void(const ProgressFrame&)> on_progress_;
  std::function<void()> on_restart_;
  std::function<void()> on_resync_;
  std::unique_ptr<OptimisticBackend> backend_;  // last: its constructor calls the seam
};

}  // namespace rindle::sim
