// world.h — the read-only view of one simulated world the property checker reads after every
// step and at quiescence (checker.h). Shapes only, in engine/optimistic/oracle types: no sim/
// type and no sim/ include (ARCHITECTURE §5: properties never depend on sim). Holds no state of
// its own: the runner fills a World once at setup with pointers into its clients and authority
// (which outlive every check), and refreshes only the dirty flags each step.
//
// Invariants the runner keeps: `clients` is in client-index order and never reordered (the
// checker reports the first violation in that order); every pointer is non-null and stays valid
// for the run; `dirty` is true iff anything reached that client since the previous step check,
// `local_dirty` likewise for its local-only tables and views (SimClient::TakeDirty /
// TakeLocalDirty), `authority_dirty` iff the authority's store or a subscription changed.
// Source: SPEC §4 (the properties' inputs), seed 002 §5.1.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "engine/value.h"
#include "engine/ivm/view.h"
#include "nlohmann/json.hpp"
#include "optimistic/backend.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/source.h"
#include "properties/invariants.h"

namespace rindle::props {

// The run's counters (name → count); properties bump e.g. check.model_reorder_window_skip.
using StepCounters = std::map<std::string, int64_t>;

// One on_rejected call the harness recorded: the domain whose outcome frame was being handled.
struct RejectionRecord {
  std::string domain;
  MutationEnvelope envelope;
  std::string reason;
};

// What the harness's transport carried upstream on a client's link (ClientState::link) and its
// push path.
struct LinkRecord {
  int64_t connections = 0;                // Connect()s so far; each starts a fresh record
  std::map<int64_t, int64_t> registered;  // qid → RegisterQuery messages sent on this connection
  // Every mid whose push (a first send, a retry, a re-send or a duplicate copy) the network
  // delivered to the authority since the authority last lost its held pushes (a restart or a
  // rollback), and the client's lmid at the authority right after that (0 at the start).
  std::set<int64_t> pushes_delivered;
  int64_t pushes_base = 0;
};

// The harness's record of a client's ONE deal order (seed 002 `seq`: "confirmation order is
// per-domain; replay order is client-global"; H-v §3.3 keep-seq), from what the network carried:
// every mid the client first put on a push path — on the daemon link or any room link — gets the
// next slot, in send order (mid and seq are dealt in the same breath, right before the push). A
// daemon mid first pushed while the client handled a room's `deopt` (its outcome frame, or its
// outcome row released by a system stream) is that deopt's: the harness judges whether the room
// entry was still pending then — no confirmation covering its mid had been released to the
// client (its own record: the room channel's lmid stream, a daemon-carried room-ledger row of an
// EARLIER release), and no failed replay had dropped it (the backend's pending list right before:
// the single-domain client model cannot replay room entries; the drop itself is pending-axis's and
// consistent-view's to judge) — and if so it is the FLIP, which takes the room mid's slot (keeps
// its place); otherwise it is a RE-INVOKE, a new invocation at the end of the order. The seqs are
// never read here: they are what room-deopt-seq checks against these slots.
struct DealRecord {
  struct Deopt {
    std::string key;       // the room's source key
    int64_t room_mid = 0;  // the deopted room mid
    bool flip = false;     // judged a flip (keeps the slot) rather than a re-invoke
  };
  std::map<std::pair<std::string, int64_t>, int64_t> slot;  // (domain, mid) → slot
  int64_t next_slot = 0;
  std::map<int64_t, Deopt> deopt_of;  // daemon mid → the room deopt it was pushed for
  // (room key, room mid) → every daemon mid first pushed for that deopt (one, unless the client
  // both flipped and re-invoked it).
  std::map<std::pair<std::string, int64_t>, std::vector<int64_t>> daemon_mids;

  // A first push of (domain, mid): the next slot, once.
  void Add(const std::string& domain, int64_t mid) {
    if (slot.try_emplace({domain, mid}, next_slot).second) ++next_slot;
  }
};

// One simulated client as the properties see it.
struct ClientState {
  std::string id;  // "c<i>"
  const OptimisticBackend* backend = nullptr;
  // Live remote views: local qid → (remote query, the AST the view runs).
  const std::map<int64_t, std::pair<RemoteQuery, Ast>>* views = nullptr;
  // Local-only views: qid → (local query name, AST).
  const std::map<int64_t, std::pair<std::string, Ast>>* local_views = nullptr;
  // Every envelope the client ever pushed first-time, by mid.
  const std::map<int64_t, MutationEnvelope>* sent = nullptr;
  // Every envelope the client put on the push path, in send order: first sends, the transport's
  // retries and the backend's resync re-sends, each with the name and args it carried.
  const std::vector<MutationEnvelope>* carried = nullptr;
  // The model of what the client wrote to its local tables: table → id → row.
  const std::map<std::string, std::map<std::string, RowValues>>* local_rows = nullptr;
  // Rooms (issue 12), the harness's records: per room key, every envelope the client put on a
  // link to that room's push path, in send order (first sends and re-sends); every on_rejected
  // call; per (room key, mid) how many mutationOutcome frames the network delivered to it.
  const std::map<std::string, std::vector<MutationEnvelope>>* room_carried = nullptr;
  const std::vector<RejectionRecord>* rejections = nullptr;
  const std::map<std::pair<std::string, int64_t>, int64_t>* outcomes_delivered = nullptr;
  // Refreshed every step from the harness's room records (never the client's): room_flux — some
  // envelope this client put on a room link is not settled yet (its room has not processed it,
  // its room lmid row or outcome has not been released to the client, its confirmed writes have
  // not come back through a released daemon flush, or a deopt's daemon re-send has no released
  // confirmation yet);
  // the single-domain client model (oracles/client_model.h) cannot predict the client then, and
  // the model families skip it (check.room_flux_skip). room_unsettled_ids: the mutation ids
  // (args.id) of those unsettled envelopes — the rows no-flicker exempts
  // (check.room_unflushed_exempt).
  bool room_flux = false;
  std::set<std::string> room_unsettled_ids;
  // Room view plane (issue 13), the harness's records: the queries it retargeted onto a room
  // (RemoteQuery::Key → room key); room_views_moving — this client has a sub the harness moved
  // onto a room, a demoted room whose ghost the harness has not seen fenced, or had one in the
  // previous step (the model families skip it as for room_flux: the single-plane model holds no
  // twins); room_data_released — the harness's shadow of a room channel released a data frame
  // to this client this step (a swap-in, a room batch or a retarget GC may follow);
  // room_swapped_back — the views the harness expected to swap back from a room's twins this
  // step (its ghost-drop record: fence met, no sent room mid unresolved, feeders re-hydrated).
  const std::map<std::string, std::string>* room_retargeted = nullptr;
  bool room_views_moving = false;
  bool room_data_released = false;
  std::set<int64_t> room_swapped_back;
  // What each view showed inside this step from its first swap on (a state after each swap and
  // after each later batch into it); empty for a view no swap touched this step.
  const std::map<int64_t, std::vector<std::vector<TreeNode>>>* swap_states = nullptr;
  // System streams (issue 12), the harness's record from the shadow gate (what the daemon's
  // frames carried and the gate released, never the client's folds): per (room key, mid) how
  // many of this client's outcome rows the client's system subs released; per room key the
  // highest room lmid released to the client, through the room channel's lmid stream or a
  // daemon-carried room-ledger row of its system stream.
  const std::map<std::pair<std::string, int64_t>, int64_t>* system_outcomes = nullptr;
  const std::map<std::string, int64_t>* confirms_released = nullptr;
  // The harness's record of the one deal order and of each deopt's daemon mid (DealRecord).
  const DealRecord* deals = nullptr;
  bool dirty = false;
  bool local_dirty = false;
  // The harness's record of the client's link (its source, sim/run/sim_client.h): how many
  // connections it opened, and per qid the registrations it put on the link since the current
  // one opened (the lmid query's and overflow re-registrations included). fence_liveness.cc.
  const LinkRecord* link = nullptr;
};

// One processed envelope of the authority's log (valid until the log next grows).
struct ProcessedRef {
  std::string_view client_id;
  int64_t mid = 0;
  std::string_view name;
  const nlohmann::json* args = nullptr;
  bool applied = false;  // false: burnt
  std::string_view reason;
  int64_t cv = 0;
  int64_t boot = 0;  // the authority boot id it was processed under (cv restarts each boot)
  int64_t forgotten_at = 0;  // forgotten(): the boot of the rollback that forgot it; else 0
};

// The authority, read-only. Implemented in sim/ by an adapter over the daemon.
class AuthorityView {
 public:
  virtual ~AuthorityView() = default;
  // The first internal error (OK while healthy).
  virtual const absl::Status& health() const = 0;
  // The authority's engine over the app schema.
  virtual const Db& store() const = 0;
  // Every live subscription (client, qid), lmid query included, in a deterministic order.
  virtual std::vector<std::pair<std::string, int64_t>> Subscriptions() const = 0;
  virtual absl::StatusOr<std::vector<TreeNode>> SubscriptionResult(const std::string& client,
                                                                   int64_t qid) const = 0;
  // nullptr for no such subscription.
  virtual const Ast* SubscriptionAst(const std::string& client, int64_t qid) const = 0;
  // The processed log, in processing order.
  virtual size_t processed_count() const = 0;
  virtual ProcessedRef processed(size_t i) const = 0;
  // The last mid processed for `client` (0: none).
  virtual int64_t lmid(const std::string& client) const = 0;
  // What the client's live subscriptions ship, per (table, pk) (invariants.h Coverage).
  virtual props::Coverage CoverageOf(const std::string& client) const = 0;
  // The harness's record of the authority_rollback fault: how many rollbacks happened (a
  // property replaying the log incrementally starts over when it moves), and every envelope a
  // rollback forgot (processed, then lost with the newer ledger; no longer in processed()).
  virtual int64_t rollbacks() const { return 0; }
  virtual size_t forgotten_count() const { return 0; }
  virtual ProcessedRef forgotten(size_t) const { return {}; }
  // The authority's current boot id and cv (its last commit's, or a registration's bump); the
  // default (0, -1) matches no released cut. limit_page.cc reads the store as the state at a cut
  // only while the authority is at exactly that cut.
  virtual int64_t boot_id() const { return 0; }
  virtual int64_t cv() const { return -1; }
};

// One mid a room processed, from the room's own record (sim/authority/room.h RoomRecord).
struct RoomMidRef {
  std::string_view client_id;
  int64_t mid = 0;
  std::string_view name;
  const nlohmann::json* args = nullptr;
  std::string_view fate;  // "confirmed", "rejected" or "deopt"
  std::string_view reason;
  int64_t flush_seq = 0;  // the flush that carried it to the daemon (0: not yet)
  bool lost = false;      // a room crash lost its confirmed writes before any flush
};

// A room authority, read-only (an adapter in sim/ over RoomAuthority).
class RoomView {
 public:
  virtual ~RoomView() = default;
  virtual std::string_view key() const = 0;  // RoomSourceKey(doc)
  virtual size_t record_count() const = 0;
  virtual RoomMidRef record(size_t i) const = 0;
};

struct World {
  std::vector<ClientState> clients;
  const AuthorityView* authority = nullptr;
  bool authority_dirty = false;
  // The scenario's seed rows: table → positional rows in the app schema's column order.
  const std::map<std::string, std::vector<RowValues>>* seed_rows = nullptr;
  const Schema* schema = nullptr;         // the app schema (the authority's)
  const Schema* client_schema = nullptr;  // app + local-only tables (every client's backend)
  const Schema* local_schema = nullptr;   // the local-only tables alone
  const std::map<std::string, Mutator>* client_mutators = nullptr;
  const std::map<std::string, Mutator>* server_mutators = nullptr;  // the authority's twins
  std::vector<const RoomView*> rooms;  // every room authority of the run, by doc
};

}  // namespace rindle::props
