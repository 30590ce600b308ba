// simulation.h — executes one Scenario (scenario.h): the daemon authority, the scenario's
// clients and the network, driven by one event queue in virtual time (SPEC §1, §2.3–2.4, §4).
// Holds state for the duration of one run. The generator is never consulted: everything the
// run does comes from the scenario, plus the network's and clients' runtime randomness from
// Rng(scenario.seed) forks "network", "client<i>" and "projection" — each draw keyed by its
// entity (a message's path, send ms and ordinal; a break's ms; a registration's client, query
// and ordinal), so a scenario with one action fewer re-rolls nothing but what that action caused.
//
// Phases (TigerBeetle's VOPR shape): SAFETY — the scenario's actions and faults fire at their
// times until config.safety_ms; every event is followed by the step checks (view==fresh on
// every client and on the authority, head==sync+pending, gapless mids, watermarks monotone,
// health). LIVENESS — at safety_ms the faults heal (no loss, partitions end, progress released),
// and the queue drains; then the quiescence checks (nothing pending, every issued mid processed
// exactly once, every client view equals the same query over the authority's store, the
// authority's store equals the sequential replay of its log over the scenario's seed rows).
// A run still not quiescent after max_steps events fails `liveness`.
// Action semantics: a retain opens a view and remembers its handle; a release of a handle with
// no open view is a no-op (counted as action.release_noop); a mutate invokes the named mutator
// with the recorded args — a mutator that fails client-side consumes no mid (checked).
// mutate_folded → InvokeFolded (a fold-legal workload mutator refused fails `fold`; nextMid may
// move only by fold flushes), flush_folds → FlushFolds (no window may stay open: `fold`),
// write_local → SimClient::WriteLocal (a valid batch refused, or an illegal synced_write batch
// accepted, fails `local-tables`), local_view → a local-only view under the action's handle.
// resubscribe_storm: `count` cycles kStormGapMs apart, each releasing every remote view of the
// client and re-retaining it (handles follow their views). Clients run the client schema
// (app + local UI tables, workload_schema.h) with a SimFoldClock; the authority and every
// property check over app tables use the app schema.
// Checks: every property lives in properties/ (families.h); the simulation fills a read-only
// props::World once at setup (pointers into its clients, the daemon behind DaemonAuthorityView),
// refreshes its dirty flags after every event and hands it to the props::Checker after every step
// and at quiescence; the action-time checks (families.h) run right after their action. The
// failure report (--report, formerly --timeline) is a RunObserver (run_observer.h); without it
// the no-op observer runs.
// The trace's data lines (seed rows, faults, applied and delivered rows, view checkpoints) come
// from a DataTracer (trace_data.h) fed from setup, Inject, Deliver and the step loop.
// Rooms (issue 12; sim/authority/room.h): one RoomAuthority per doc any room action or fault
// names, on its own engine, seeded with its doc's rows; room_connect / room_disconnect attach a
// client's RoomLink (room_link.h). Room frames travel the (client, room) path; an outcome frame
// passes the armed outcome faults (lost / duplicated / re-sent behind the lmid release). After a
// push the room handled, a flush to the daemon is scheduled (one pending per room) after a lag
// drawn per flush from Rng fork "flush/<doc>/<seq>" (long while a flush_lag window is open).
// simulation_rooms.cc holds the rooms, their frames, actions and faults;
// simulation_system_record.cc the record of what the outcome frames and system streams released
// and the deal record of each deopt's daemon push; simulation_room_views.cc the room view plane.
// Scheduling order at equal virtual times: actions (file order), faults (file order), heal.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "properties/checker.h"
#include "properties/invariants.h"
#include "properties/optimistic_invariants.h"
#include "properties/world.h"
#include "sim/authority/daemon.h"
#include "sim/authority/daemon_view.h"
#include "sim/authority/room.h"
#include "sim/authority/room_view.h"
#include "sim/world/event_queue.h"
#include "sim/world/network.h"
#include "base/rng.h"
#include "sim/run/run_observer.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/run/frame_faults.h"
#include "sim/run/sim_client.h"
#include "sim/run/trace.h"
#include "sim/run/trace_data.h"

namespace rindle::sim {

class Simulation {
 public:
  // `scenario` must be generated (Scenario::generated) and valid (ValidateScenario).
  Simulation(const Scenario& scenario, const RunOptions& options);
  ~Simulation();
  RunResult Run();

 private:
  // Setup, in this order (the Rng forks and the trace depend on it).
  void Setup();
  bool LoadSchemas();
  void MakeNetworkAndDaemon();
  void SendFrame(const std::string& client, ServerFrame frame);
  void MakeClients();
  ClientTiming Timing() const;  // the clients' timing (the scenario's transport_retry)
  void BuildWorld();
  void ScheduleScenario();
  // One function per action kind.
  void Act(const ScenarioAction& action);
  void ActRetain(const ScenarioAction& action, SimClient* client);
  void ActRelease(const ScenarioAction& action, SimClient* client);
  void ActMutateFolded(const ScenarioAction& action, SimClient* client);
  void ActFlushFolds(SimClient* client);
  void ActWriteLocal(const ScenarioAction& action, SimClient* client);
  void ActLocalView(const ScenarioAction& action, SimClient* client);
  void ActMutate(const ScenarioAction& action, SimClient* client);
  void ActRoomConnect(const ScenarioAction& action, SimClient* client);
  void ShadowSystemRetains(const SimClient& client);
  // After a daemon frame reached `c`: its system fold's deopt pushes (first `pushes_before` of
  // outcome_pushes() were older) are the client model's invokes of those daemon mids, and each is
  // matched to the deopt row this frame released for it (NoteDeoptPushes; `confirmed`: the
  // system-carried confirmations released before this frame).
  // A deopt (room `key`, room `mid`) the client handled without a daemon push the harness must
  // match: its outcome frame was delivered (the row is a duplicate) or its re-invoke failed
  // client-side and surfaced through on_rejected.
  // Whether room `key`'s records hold a mid of `client` in (from, to] it deopted or rejected.
  bool RoomBurnt(const std::string& client, const std::string& key, int64_t from, int64_t to) const;
  static bool DeoptSettled(const SimClient& c, const std::string& key, int64_t mid);
  void NoteSystemDeoptPushes(SimClient* c, size_t pushes_before,
                             const std::map<std::string, int64_t>& confirmed,
                             const std::set<std::pair<std::string, int64_t>>& pending);
  // The (room key, mid) of `c`'s pending room-domain entries (right before an outcome is handled).
  static std::set<std::pair<std::string, int64_t>> RoomPending(const SimClient& c);
  // The deopt of (key, mid) — echoed `name`/`args` — was just handled by `c`: of the daemon mids
  // it first pushed since outcome_pushes()[from] and not `taken`, those carrying that mutation are
  // the deopt's (at most `limit` of them); a flip when `confirmed` (the highest room lmid released to `c` before) is below
  // `mid` and the entry was `listed` pending (no failed replay dropped it), else a re-invoke —
  // recorded into the client's DealRecord (world.h).
  void NoteDeoptPushes(SimClient* c, const std::string& key, int64_t mid, const std::string& name,
                       const nlohmann::json& args, int64_t confirmed, bool listed, size_t from,
                       size_t limit, std::set<int64_t>* taken);
  void ActRoomDisconnect(const ScenarioAction& action, SimClient* client);
  // Rooms.
  void MakeRooms();
  void SendRoomFrame(RoomAuthority* room, const std::string& client, ServerFrame frame);
  void PutRoomFrame(const std::string& client, const std::string& key, ServerFrame frame);
  void DeliverRoom(SimClient* c, const std::string& key, const ServerFrame& frame);
  void MaybeScheduleFlush(RoomAuthority* room);
  // After the room handled a push of `client` (RoomLink's after_push): the flush schedule, and a
  // room_flush_link_down armed for the client fires.
  void AfterRoomPush(RoomAuthority* room, const std::string& client);
  // Ends a room_flush_link_down hold of `client` on `doc` (`why`: the counter's suffix).
  void ReleaseLinkDown(const std::string& doc, const std::string& client, const char* why);
  // After NoteSystemRows: a held link whose mid a released system confirmation now covers.
  void MaybeReleaseLinkDowns(const std::string& client);
  void Flush(RoomAuthority* room);
  void InjectRoomFault(const ScenarioFault& fault);
  void InjectRoomStorm(RoomAuthority* room, RoomAuthority::Storm storm, int64_t duration_ms);
  void BreakRoomLinks(RoomAuthority* room);
  // One function per fault kind.
  void Inject(const ScenarioFault& fault);
  void InjectLinkBreak(SimClient* c);
  void InjectAuthorityRestart();
  void InjectAuthorityRollback(int64_t forget);
  void BreakEveryLink();  // a restart drops every client's link
  void InjectResubscribeStorm(const ScenarioFault& fault);
  void InjectProgressStarvation(const ScenarioFault& fault);
  void Heal();
  void RefreshDirtyFlags();
  void Fail(const props::Violation& v);
  void Fail(const props::MaybeViolation& v) {
    if (v) Fail(*v);
  }
  void Count(const std::string& name) { ++counters_[name]; }
  // An action-time check (the simulator calls it where it observes what is checked; no checker
  // family runs it): counted check.<property>.checked like a family's step checks, so the
  // summary's health table shows how often it ran (cli/progress.h).
  void CheckNow(const std::string& property, const props::MaybeViolation& v) {
    Count("check." + property + ".checked");
    Fail(v);
  }
  // Seed-002 delivery tap (properties/optimistic_invariants.h), then the client sees the frame.
  void Deliver(SimClient* c, const ServerFrame& frame);

  const Scenario& scenario_;
  RunOptions options_;
  Rng root_;
  EventQueue queue_;
  Trace trace_;
  std::unique_ptr<DataTracer> data_trace_;  // seed rows, faults, applied rows, view hashes
  std::map<std::string, int64_t> counters_;
  Schema schema_;         // the app schema: the authority's, and every property check's
  Schema client_schema_;  // schema_ + the local-only UI tables (workload_schema.h)
  Schema local_schema_;   // the local-only UI tables alone
  std::map<std::string, Mutator> client_mutators_;
  std::map<std::string, Mutator> server_mutators_;  // the authority model's twins (properties)
  std::unique_ptr<Network> network_;
  std::unique_ptr<FrameFaults> frame_faults_;  // after network_: holds a pointer to it
  std::unique_ptr<DaemonAuthority> daemon_;
  struct RoomState {
    std::unique_ptr<RoomAuthority> room;
    bool flush_scheduled = false;
    int64_t lag_until_ms = -1;     // flush_lag: long lags until then
    int64_t outcome_loss = 0;      // outcome frames still to lose / duplicate / delay
    int64_t outcome_duplicate = 0;
    int64_t outcome_delay = 0;
    int64_t storm_generation = 0;  // a storm's end only clears its own storm
    // room_flush_link_down: armed per client (the room lmid of the client when armed); fired, the
    // client's held link waits for the system stream to release a confirmation of `mid`.
    std::map<std::string, int64_t> link_down_armed;
    struct HeldLink {
      int64_t mid = 0;         // the mid the room handled right before the link went down
      int64_t generation = 0;  // the cap's release only ends its own hold
    };
    std::map<std::string, HeldLink> link_down;
    int64_t link_down_generation = 0;
  };
  std::map<std::string, RoomState> rooms_;  // by doc
  std::vector<std::unique_ptr<RoomRecordView>> room_views_;
  // The harness's records the room flags (world.h room_flux) are computed from: per client the
  // daemon boot of its last delivered welcome and the highest cvMin delivered since; per room
  // flush the daemon (boot, cv) it committed at; per (client, room key) a shadow of the room
  // lmid stream's release (lmid rows buffered by cv, released at delivered progress).
  struct RoomLmidShadow {
    std::vector<std::pair<int64_t, int64_t>> buffered;  // (cv, lmid)
    int64_t released = 0;
    std::vector<int64_t> data_cvs;  // buffered data frames (not the lmid stream's), by cv
  };
  std::map<std::string, std::pair<int64_t, int64_t>> daemon_progress_;
  std::map<std::pair<std::string, int64_t>, std::pair<int64_t, int64_t>> flush_at_;
  std::map<std::pair<std::string, std::string>, RoomLmidShadow> room_lmid_;
  std::map<std::string, std::pair<bool, std::set<std::string>>> room_prev_;
  std::map<std::string, int64_t> daemon_progress_count_;  // daemon progress frames delivered
  // (client, room key, mid) → daemon_progress_count_ when its room verdict was first released.
  std::map<std::tuple<std::string, std::string, int64_t>, int64_t> room_verdict_mark_;
  // Room view plane (issue 13; simulation_room_views.cc): at a room connect the client may
  // retain the detail view and upgrade it into the room (RetargetRemoteQuery), a late
  // view joins it there, and a room disconnect of a client with room views (or a drawn one)
  // demotes the room (DemoteRoomSource with the final flush seq the room authority reports);
  // faults land between the retarget's phases and between the demote and its fence; the
  // watermark reaches the client with the daemon progress covering the flush's commit; a stuck
  // ghost is recovered by reconnecting the room. Each draw is keyed (client, doc, virtual ms).
  struct RoomViewState {
    int64_t ghost = 0;           // demotes issued (the current ghost's ordinal)
    int64_t stuck_fired = 0;     // stuck events seen for the current ghost
    bool ghost_open = false;     // demoted, fence not yet seen by the harness
    int64_t final_flush_seq = 0;
    std::string doc;
  };
  // The view plane is driven only when the scenario's config.room_views is set (its drive
  // still fails no-flicker on seeds the README names; off, a run is the issue-12 room plane).
  bool room_view_plane_ = false;
  std::map<std::pair<std::string, std::string>, RoomViewState> room_views_state_;
  std::map<std::pair<std::string, std::string>, int64_t> watermark_fed_;  // (client, doc) → seq
  std::map<std::string, int64_t> room_data_step_;  // client → last step a room data release
  // client → (the last step the harness expected a ghost drop, the views it swapped back then)
  std::map<std::string, std::pair<int64_t, std::set<int64_t>>> room_swap_back_;
  std::map<std::string, bool> room_moving_prev_;
  std::set<std::pair<std::string, std::string>> context_covered_;  // (client, cover query key)
  void PlanRoomViews(SimClient* client, RoomAuthority* room);
  void RetargetIntoRoom(SimClient* client, const RemoteQuery& query, const std::string& doc);
  void LateJoinRoom(SimClient* client, const RemoteQuery& query, const std::string& key);
  // True when the disconnect was handled as a demote.
  bool MaybeDemote(SimClient* client, RoomAuthority* room, const ScenarioAction& action,
                   bool force = false);
  void FeedWatermarks(SimClient* client);
  void OnRoomStuck(SimClient* client, const DowngradeStuckEvent& e);
  // The harness's record: mids first sent on `c`'s links to `key`, not yet resolved (the room
  // lmid the shadow saw released, or an outcome frame delivered).
  std::set<int64_t> UnresolvedRoomMids(const SimClient& c, const std::string& key);
  // UnresolvedRoomMids less the mids the client no longer lists (a failed replay dropped them:
  // counted check.room_ghost_fence.dropped_unverified) — what holds a ghost and what a stuck
  // event must name.
  std::set<int64_t> HoldingRoomMids(const SimClient& c, const std::string& key);
  bool RoomViewsMoving(const SimClient& c);
  // After `client` reconnected `room` (a scenario connect or the stuck recovery): a pending ghost
  // is cancelled, and views the harness expects on the room's twins are upgraded back into it.
  void AfterRoomReconnect(SimClient* client, RoomAuthority* room);
  // room-ghost-fence (properties/room_views.h) for every ghost the harness holds open, per step.
  void CheckGhostFences();
  // world.h room_views_moving / room_data_released (after RefreshRoomFlags).
  void RefreshRoomViewFlags();
  PlainTables ContextRows(const SimClient& c) const;
  void ShadowRoomFrame(const std::string& client, const std::string& key, const ServerFrame& f);
  void RefreshRoomFlags();
  // Per client, the harness's record of what its system subs released (world.h system_outcomes,
  // confirms_released; the latter also takes the room lmid shadow's releases).
  struct SystemRecord {
    std::map<std::pair<std::string, int64_t>, int64_t> outcomes;
    std::map<std::string, int64_t> confirms;
    // doc → the highest flush_seq of the watermark rows released to it.
    std::map<std::string, int64_t> watermark_released;
    // The deopt rows of this client the shadow released whose push has not shown yet (room key,
    // mid, name, args), in release order, each once (Simulation::NoteSystemRows).
    std::vector<std::tuple<std::string, int64_t, std::string, nlohmann::json>> frame_deopts;
  };
  std::map<std::string, SystemRecord> system_record_;
  // A released outcome row of `c` (room `key`, room `mid`): a deopt row with a name and parseable
  // args joins rec->frame_deopts (once) and tells the client model (OnRoomOutcome).
  void NoteDeoptRow(const SimClient& c, const std::string& key, int64_t mid, const Value* kind,
                    const Value* name, const Value* args, SystemRecord* rec);
  // After a daemon frame reached `c`: the lifecycle rows the shadow gate released into its record
  // (client.system_only_verdict: an outcome no room frame delivered).
  void NoteSystemRows(const SimClient& c);
  // room-watermark, after a daemon frame reached `c` (properties/families.h).
  void CheckRoomWatermarks(const SimClient& c);
  // channel-isolation: every channel's (appliedCv, buffered) of `c`.
  static std::map<std::string, std::pair<int64_t, size_t>> ChannelMarks(const SimClient& c);
  std::vector<std::unique_ptr<SimClient>> clients_;
  std::map<std::string, SimClient*> by_id_;
  std::map<std::pair<int, int64_t>, int64_t> handle_qid_;  // (client, handle) → local qid
  std::unique_ptr<RunObserver> observer_;  // the report with options.timeline_path, else no-op
  bool healed_ = false;
  int64_t step_ = 0;
  RunResult result_;
  absl::Status setup_status_;
  // The properties: memoryful seed-002 invariants (fed by Deliver and the backends' observers),
  // the world they read, and the checker that runs every family.
  std::unique_ptr<props::OptimisticInvariants> opt_props_;
  std::unique_ptr<DaemonAuthorityView> authority_view_;
  props::World world_;
  std::unique_ptr<props::Checker> checker_;
};

}  // namespace rindle::sim
