// optimistic_invariants.h — per-run properties of the optimistic client's seed-002 surface that
// need memory across steps (SPEC §4.3, §4.4, §4.5; seed 002 §4.1, §5.1, FOLDED-MUTATIONS-DESIGN,
// PROJECTION-SUPPORT-DESIGN). Holds state: one shadow per client, fed by the backend's observers
// (installed by Attach), by a delivery tap the simulation calls for every server frame right
// before the client sees it, and by recording hooks the simulation's actions call; the same feed
// drives one ClientModel per client (oracles/client_model.h), which Model() hands to the
// consistent-view and applied-once families. Check() runs
// after every step; each returns the first violation (property + message) or nullopt.
//
//   gate-model       a shadow of the client's coherence gate (seed 002 SourceGate): frames for a
//                    qid with no live sub are ignored, a hello drops that qid's buffered frames,
//                    a batch with cv ≤ appliedCv is stale, a snapshot always buffers, > cap
//                    frames overflow (buffer cleared), progress releases cv ≤ cvMin, a welcome
//                    with a new boot id resets; an lmid hello (a reconnect) or an overflow fences the gate
//                    until every re-registered sub's snapshot is buffered (gate_model.h). Its buffered count must equal the backend's
//                    inspect().buffered_frames. The shadow judges every hello against the client
//                    schema itself (CRIT#4: a table not ours or local-only, columns neither a
//                    subsequence of ours nor ours of theirs, a missing pk column): a skewed hello
//                    refuses its epoch (its frames are ignored until a valid hello), and the
//                    backend's schema_rejections() must equal the shadow's count.
//   superseded-epoch every frame the shadow gate releases carries the epoch of the qid's latest
//                    hello, and the backend's superseded_frames_dropped() equals the shadow's
//                    count of frames a hello dropped — a backend that releases a frame from
//                    before the latest hello keeps it buffered (count and buffer differ).
//   pending-axis     IsPending(qid) ⇔ some entry of the client model's EXPECTED pending
//                    (oracles/client_model.h: sent mids above the released lmid, then open fold
//                    windows; tables from the model's own replay of the harness-recorded args)
//                    touches a table of the view; the backend's pending count equals the model's;
//                    the pending observer fired exactly on transitions (a shadow value per qid
//                    rebuilt from the observer calls equals the getter; no call repeats a value).
//   result-type      GetResultType(qid) == kComplete ⇔ the view is local-only or its sub has
//                    released a snapshot (hydration from the shadow gate); the observer fired
//                    exactly on transitions (a late joiner's kComplete notification excepted).
//   fold-wire        first-time envelopes (send observer, or the sent map) carry mids 1,2,3,...
//                    in send order; a fold window that closed in a step shipped one envelope with
//                    the args of the LAST InvokeFolded of that window (OnInvokeFolded records it).
// System subs (seed 002 Slice I-iii; OnSystemRetain / OnSystemRelease, the simulation's record of
// the retains its clients made): to the gate a system sub IS an ordinary sub — its frames buffer,
// count against the cap, are dropped by its hellos, fence and release exactly like a view's sub's
// — so the shadow gate and the client model take them like any source; only its hello is judged
// against its lifecycle table's schema (base/lifecycle_tables.h) instead of the app schema, and
// its rows never reach a view (the client model skips lifecycle tables). SystemReleased() hands
// out each released lifecycle row (outcome / ledger rows of this client) in release order, from
// the tap alone.
// Step record (StepRecord, read by no_flicker.cc and cv_promise.cc): what the delivery tap saw in
// the current step — every frame on the wire, in delivery order (before any filtering), the
// frames the shadow gate released, the local actions the runner ran (OnLocalAction) and the
// mutation ids of the room outcome frames delivered (OnRoomOutcome).
// BeginStep() (the runner, before each event) clears it. Expectations only: nothing in it comes
// from the backend.
//   replay-order     within one reconcile (replay observer; a repeated entry id starts the next),
//                    dealt seqs strictly increase and unflushed folds (seq unset) come after
//                    every dealt seq, in creation order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "engine/ast.h"
#include "nlohmann/json.hpp"
#include "optimistic/backend.h"
#include "optimistic/source.h"
#include "oracles/client_model.h"
#include "oracles/gate_model.h"
#include "oracles/subscription_model.h"
#include "properties/invariants.h"

namespace rindle::props {

// A live local view, as the simulation knows it.
struct ViewInfo {
  std::optional<std::string> remote_key;  // RemoteQuery::Key(); nullopt = local-only view
  std::vector<std::string> tables;        // AstTables of the view's AST
};

// One frame as the tap saw it.
struct TapFrame {
  enum class Kind { kWelcome, kData, kProgress };
  Kind kind = Kind::kData;
  int64_t qid = 0;
  int64_t cv = 0;  // data: the frame's cv; progress: cvMin; welcome: the boot id
  bool snapshot = false;
  bool hello = false;
  std::set<std::string> tables;  // tables the frame's ops touch
  int64_t confirms = 0;          // lmid frames: the highest lmid for this client (0: none)
  // A copy a network fault redelivered (a relay retransmit, a resumed link's replay): not
  // something the authority sent now, so it makes and breaks no promise (cv_promise.cc).
  bool copy = false;
};

struct StepRecord {
  std::vector<TapFrame> delivered;  // welcome / data / progress, in delivery order
  std::vector<TapFrame> released;   // data frames the shadow gate released this step
  int64_t local_actions = 0;        // actions of this client the runner ran this step
  // Room channels: the mutation ids (echoed args.id) of the deopt outcome frames the harness
  // delivered to this client this step (OnRoomOutcome).
  std::set<std::string> room_outcome_ids;
  // Room lmid releases that retired entries of this client this step (OnRoomRelease): each is a
  // reconcile cycle of the client, like a daemon release.
  int64_t room_releases = 0;
  // One of those releases (or a daemon-carried room-ledger row) confirmed a room mid its room
  // burnt (a deopt or a rejection; the rooms' records): the retired prediction retracts, as a
  // daemon burn does (no-flicker's burnt exemption).
  bool room_burnt = false;
};

class OptimisticInvariants {
 public:
  // `schema` / `local_tables`: the client's (CRIT#4 judgement of hellos; the client model runs
  // over `schema` without `local_tables`). `mutators`: the harness's copies of the client
  // mutators (the model's predictions); it must outlive this object.
  OptimisticInvariants(size_t buffer_cap, Schema schema, std::set<std::string> local_tables,
                       const std::map<std::string, Mutator>* mutators);

  // Installs the observers on `backend` (result type, pending, replay; sends when
  // `observe_sends` — otherwise fold-wire reads SentMids from the caller).
  void Attach(const std::string& client, OptimisticBackend* backend, bool observe_sends);

  // Delivery tap: each server frame, right before the client's source handles it.
  void OnWelcome(const std::string& client, int64_t boot_id);
  // `copy`: the frame is a fault's redelivered copy (sim/world/frames.h ServerFrame::redelivered).
  void OnData(const std::string& client, int64_t qid, const NormalizedEvent& ev, int64_t epoch,
              bool copy = false);
  void OnProgress(const std::string& client, int64_t cv_min);

  // Send tap: each server frame as the authority put it on the client's link (before any loss).
  void OnSentWelcome(const std::string& client, int64_t boot_id) { At(client).sent_boot = boot_id; }
  void OnSentData(const std::string& client, int64_t qid, int64_t cv, bool batch) {
    Client& c = At(client);
    if (batch && qid != kLmidQid) ++c.sent_batches[{c.sent_boot, cv}];
  }
  // How many data batches (lmid query aside) the authority sent `client` at `cv` in the boot
  // the client last saw a welcome of.
  int64_t SentBatches(const std::string& client, int64_t cv) {
    Client& c = At(client);
    auto it = c.sent_batches.find({c.last_boot, cv});
    return it == c.sent_batches.end() ? 0 : it->second;
  }
  // Whether the shadow sub of `remote_key` has released a snapshot (hydration from the tap).
  bool Hydrated(const std::string& client, const std::string& remote_key) {
    const SubscriptionModel::Sub* sub = At(client).subs.Find(remote_key);
    return sub != nullptr && sub->hydrated;
  }
  // The runner starts a step (clears every client's StepRecord).
  void BeginStep();
  // Recording hook: the runner ran an action (or a fault acting as one: a resubscribe cycle)
  // on `client` that may change its views locally.
  void OnLocalAction(const std::string& client) { ++At(client).step.local_actions; }
  // This step's record for `client` (empty when nothing reached it).
  const StepRecord& Step(const std::string& client) {
    return At(client).step;
  }

  // Recording hooks: the client retained a system sub (`qid` its retain qid, `remote_key`
  // RemoteQuery::Key(), `table` the lifecycle table its spec names) / released it.
  void OnSystemRetain(const std::string& client, int64_t qid, const std::string& remote_key,
                      const std::string& table);
  void OnSystemRelease(const std::string& client, int64_t qid);
  // One lifecycle row a release of the shadow gate handed to the client's system fold.
  struct SystemRow {
    std::string table;
    RowOp::Kind op = RowOp::Kind::kAdd;
    std::vector<std::string> columns;  // the qid's hello columns
    RowValues row;
  };
  // The system rows the shadow gate released since the last call, release order.
  std::vector<SystemRow> TakeSystemReleased(const std::string& client) {
    return std::exchange(At(client).system_released, {});
  }

  // Recording hook: a successful InvokeFolded of `fold_key` with `args`.
  void OnInvokeFolded(const std::string& client, const std::string& fold_key,
                      const nlohmann::json& args);
  // Recording hook: a successful normal Invoke took `mid`.
  void OnInvoke(const std::string& client, int64_t mid);

  // Room channels (issue 12; the harness's room delivery, sim/run/simulation_rooms.cc). A room
  // lmid release retired entries of `client`'s room domain: the client ran a reconcile cycle the
  // daemon-channel shadow cannot see (ClientModel::ForeignCycle).
  void OnRoomRelease(const std::string& client, bool burnt) {
    Client& c = At(client);
    c.model.ForeignCycle();
    ++c.step.room_releases;
    c.step.room_burnt = c.step.room_burnt || burnt;
  }
  // A daemon-carried room-ledger row confirmed a room mid its room burnt (StepRecord::room_burnt).
  void OnRoomBurntConfirmed(const std::string& client) { At(client).step.room_burnt = true; }
  // The harness delivered a mutationOutcome frame to `client` this step: a deopt's echoed args'
  // id (args.id) goes to StepRecord::room_outcome_ids (a deopt of a retired entry re-invokes it).
  void OnRoomOutcome(const std::string& client, const MutationOutcomeFrame& frame);

  // Room view plane (issue 13; optimistic_invariants_rooms.cc), the harness's record: the runner
  // retargeted the sub of `remote_key` onto `channel` (a room key or "daemon"; `views` the
  // client's live views, synced first). The shadow mirrors seed 002 302's two phases: the sub
  // leaves its old channel's gate and fence at once (its buffered frames dropped; the model keeps
  // its rows), waits for the new channel's first released snapshot (the sub is re-armed; the
  // views it fed stay hydrated), and only then are the old channel's rows GC'd
  // (ClientModel::DropSource when it left the daemon). A second move inside the window GCs the
  // intermediate channel at once; back home before the cutover keeps the home rows. Frames for
  // a sub on a room that arrive on the daemon are the client's grace frames: ignored.
  void OnRetarget(const std::string& client, const std::map<int64_t, ViewInfo>& views,
                  const std::string& remote_key, const std::string& channel);
  // The room delivery tap (a frame on room `key`'s channel right before the client's room source
  // sees it): each room channel has its own shadow gate (oracles/gate_model.h) — a welcome
  // (restart: reset; resync: drop the buffer, fence at the next lmid hello over the room's
  // subs), a hello drops its qid's frames, an overflow re-registers and fences — whose released
  // snapshots hydrate the subs on the room, swap their views (302 §4.1) and complete their
  // cutover. OnRoomChannel: the client attached (connect) or dropped (disconnect, demote) the
  // room's channel — a fresh shadow gate / none.
  void OnRoomChannel(const std::string& client, const std::string& key, bool attached);
  void OnRoomWelcome(const std::string& client, const std::string& key, int64_t boot_id);
  void OnRoomData(const std::string& client, const std::string& key, int64_t qid,
                  const NormalizedEvent& ev);
  // Releases what the room channel's shadow gate holds up to `cv_min`. Returns the cvs of the
  // lmid-stream frames released (empty: none) — nullopt when the harness does not model that
  // gate (no room gate for `key`, or the client is unhealthy and out of the checks).
  std::optional<std::set<int64_t>> OnRoomProgress(const std::string& client,
                                                  const std::string& key, int64_t cv_min);
  // seed 002 302 dropGhost's last condition as the harness sees it: every view the harness
  // expects on `key`'s twins is fed by a sub back on the daemon whose snapshot released there.
  bool SwapBackReady(const std::string& client, const std::string& key);
  // The harness expects the ghost of `key` to have dropped: its views read plain tables again.
  // Returns the views it expected on `key`'s twins (they swap back to the plain tables now).
  std::set<int64_t> OnGhostDrop(const std::string& client, const std::string& key);
  // Whether the harness expects some view of `client` on a room's twins, or some retarget of it
  // awaits its cutover (the single-plane client model cannot predict the client then).
  bool RoomBacked(const std::string& client) {
    Client& c = At(client);
    return !c.swapped.empty() || !c.cutover.empty();
  }
  // The views the harness expects on room `key`'s twins, ascending.
  std::vector<int64_t> SwappedViews(const std::string& client, const std::string& key) {
    std::vector<int64_t> out;
    for (const auto& [qid, room] : At(client).swapped) {
      if (room == key) out.push_back(qid);
    }
    return out;
  }
  // Whether the harness expects view `qid` of `client` on room `key`'s twins.
  bool SwappedOnto(const std::string& client, int64_t qid, const std::string& key) {
    Client& c = At(client);
    auto it = c.swapped.find(qid);
    return it != c.swapped.end() && it->second == key;
  }

  // The client model of `client`, brought up to date with the live `views` and the first-time
  // envelopes `sent` (idempotent within a step). Null (with *error set) when the model could not
  // replay; null without an error for a client never attached or no longer healthy.
  const ClientModel* Model(const std::string& client, const std::map<int64_t, ViewInfo>& views,
                           const std::map<int64_t, MutationEnvelope>& sent, absl::Status* error);

  // After every step. `views` = the client's live views; `sent` = every first-time envelope by
  // mid (used for fold-wire when sends are not observed).
  MaybeViolation Check(const std::string& client, const OptimisticBackend& backend,
                       const std::map<int64_t, ViewInfo>& views,
                       const std::map<int64_t, MutationEnvelope>& sent);

  // Counters for the campaign summary.
  int64_t frames_released() const { return frames_released_; }
  // The daemon lmid the shadow gate released to `client` (its client model's lmid stream; 0
  // before any): the harness's record of a daemon confirmation reaching the client.
  int64_t ReleasedLmid(const std::string& client) const {
    auto it = clients_.find(client);
    return it == clients_.end() ? 0 : it->second.model.released_lmid();
  }

 private:
  struct Client {
    Client(size_t buffer_cap, const std::string& id, const Schema& app)
        : gate(buffer_cap), model(id, app, buffer_cap) {}
    OptimisticBackend* backend = nullptr;
    bool observe_sends = false;
    // Shadow gate (oracles/gate_model.h; the frame's epoch tag is the qid's hello epoch).
    GateModel gate;
    int64_t last_boot = 0;
    bool resync_since_fence = true;  // a welcome (or none yet) since the last fence began
    std::map<int64_t, int64_t> epoch;  // qid → epoch of its latest hello
    int64_t superseded = 0;
    int64_t rejections = 0;    // skewed hellos the shadow judged (CRIT#4)
    std::set<int64_t> refused;  // qids whose current epoch was refused
    // Shadow subs (oracles/subscription_model.h), retained and released from the view set.
    std::map<int64_t, ViewInfo> views;
    SubscriptionModel subs;  // by remote key
    // Observer calls since the last Check.
    std::vector<std::pair<int64_t, ResultType>> rt_calls;
    std::vector<std::pair<int64_t, bool>> pending_calls;
    std::vector<MutationEnvelope> sends;
    struct Replay {
      int64_t cycle = 0;  // OptimisticBackend::reconcile_cycles() during the re-invocation
      PendingMutation entry;
      bool ok = false;
    };
    std::vector<Replay> replays;
    std::map<int64_t, ResultType> rt_shadow;
    std::map<int64_t, bool> pending_shadow;
    std::optional<Violation> deferred;
    StepRecord step;  // this step's tap record
    int64_t sent_boot = 0;                                  // boot of the last welcome sent
    std::map<std::pair<int64_t, int64_t>, int64_t> sent_batches;  // (boot, cv) → data batches
    // (qid, cv) of a buffered frame → the tables its ops touch (for StepRecord::released).
    std::map<std::pair<int64_t, int64_t>, std::set<std::string>> tables_of;
    // Sends and folds.
    int64_t last_mid = 0;
    std::map<std::string, nlohmann::json> windows;  // open fold key → last args
    ClientModel model;  // the independent expectation of what the client shows
    // System subs: source qid → its lifecycle table; (qid, cv) of a buffered system frame →
    // its ops; the rows released and not yet taken; source qid → its hello's columns.
    std::map<int64_t, std::string> system_tables;
    std::map<std::pair<int64_t, int64_t>, std::vector<RowOp>> system_ops;
    std::vector<SystemRow> system_released;
    std::map<int64_t, std::vector<std::string>> system_columns;
    // Room view plane: per attached room channel its shadow gate; per source qid the room its sub
    // lives on (absent: the daemon) and, inside a retarget's window, the channel it left; per
    // view (retain qid) the room whose twins the harness expects it to read.
    struct RoomGate {
      explicit RoomGate(size_t cap) : gate(cap) {}
      GateModel gate;
      int64_t last_boot = 0;
      bool resync_since_fence = true;
    };
    std::map<std::string, RoomGate> room_gates;
    std::map<int64_t, std::string> sub_room;
    std::map<int64_t, std::string> cutover;
    std::map<int64_t, std::string> swapped;
  };

  Client& At(const std::string& client) {
    return clients_.try_emplace(client, buffer_cap_, client, app_schema_).first->second;
  }
  void SyncViews(Client& c, const std::map<int64_t, ViewInfo>& views);
  void Defer(Client& c, Violation v) {
    if (!c.deferred) c.deferred = std::move(v);
  }

  bool HelloIsSkewed(const std::vector<WireTable>& tables) const;
  // CRIT#4 for a system qid's hello: only its lifecycle table, columns in the table's order (a
  // projection or an expansion), its pk columns present.
  static bool SystemHelloIsSkewed(const std::string& table, const std::vector<WireTable>& tables);
  // The tap's part for a system qid's data / released frame.
  static void NoteSystemData(Client& c, int64_t qid, const NormalizedEvent& ev);
  static void NoteSystemRelease(Client& c, int64_t qid, int64_t cv);
  // The shadow gate's resync fence over the live subs and the lmid query (`reregistered`: an
  // overflow's re-registration, which owes a hello per qid).
  static void BeginFence(Client& c, bool reregistered = false);
  // The fence of room `key`'s shadow gate over its subs and its lmid query.
  static void BeginRoomFence(Client& c, const std::string& key, bool reregistered);
  // Phase 2 of the retargets whose sub cut over onto `channel` (its first snapshot released
  // there): the channel they left is GC'd (the daemon model's rows of the sub go).
  static void FlushCutover(Client& c, const std::string& channel);
  // A sub went away (its last view released): every channel's shadow forgets it.
  static void ForgetRoomSub(Client& c, int64_t source_qid);
  // Every live view of the sub behind `source_qid` reads `key`'s twins from now on.
  static void SwapViews(Client& c, int64_t source_qid, const std::string& key);
  // The parts of Check(), in its order.
  MaybeViolation CheckGate(Client& c, const std::string& client, const OptimisticBackend& b,
                           const Inspect& insp, const std::map<int64_t, ViewInfo>& views);
  MaybeViolation CheckObserverCalls(Client& c, const std::string& client,
                                    const std::map<int64_t, ViewInfo>& views);
  MaybeViolation CheckViewAxes(Client& c, const std::string& client, const OptimisticBackend& b,
                               const Inspect& insp, const std::map<int64_t, ViewInfo>& views,
                               const std::map<int64_t, MutationEnvelope>& sent);
  MaybeViolation CheckFoldWire(Client& c, const std::string& client, const OptimisticBackend& b,
                               const std::map<int64_t, MutationEnvelope>& sent);
  MaybeViolation CheckReplayOrder(Client& c, const std::string& client);

  size_t buffer_cap_;
  Schema schema_;
  std::set<std::string> local_tables_;
  Schema app_schema_;  // schema_ without the local-only tables
  const std::map<std::string, Mutator>* mutators_;
  std::map<std::string, Client> clients_;
  int64_t frames_released_ = 0;
};

}  // namespace rindle::props
