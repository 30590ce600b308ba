// simulation.cc — see simulation.h.
#include "sim/run/simulation.h"


#include <algorithm>

#include "base/check.h"
#include "base/str_util.h"
#include "properties/families.h"
#include "sim/workload/catalog.h"
#include "sim/workload/query_resolution.h"
#include "sim/workload/mutators.h"
#include "sim/workload/schema.h"

namespace rindle::sim {

Simulation::Simulation(const Scenario& scenario, const RunOptions& options)
    : scenario_(scenario), options_(options), root_(scenario.seed), trace_(64) {
  result_.seed = scenario.seed;
  room_view_plane_ = scenario.config.room_views;  // simulation.h
  if (room_view_plane_) counters_["room_views.enabled"] = 1;
  if (!scenario.generated) {
    setup_status_ = absl::FailedPreconditionError("scenario not generated (seed-only /1 form)");
  } else if (auto s = ValidateScenario(scenario, scenario.path.empty() ? "scenario" : scenario.path);
             !s.ok()) {
    setup_status_ = s;
  }
  if (setup_status_.ok() && !options_.trace_path.empty()) {
    auto s = trace_.OpenFile(options_.trace_path);
    if (!s.ok()) setup_status_ = s;
  }
  if (setup_status_.ok() && !options_.timeline_path.empty()) {
    std::vector<std::string> clients;
    for (int i = 0; i < scenario.config.clients; ++i) clients.push_back(StrCat("c", i));
    observer_ = std::make_unique<TimelineObserver>(clients, options_.timeline_path);
  } else {
    observer_ = std::make_unique<RunObserver>();
  }
}

Simulation::~Simulation() = default;

void Simulation::Fail(const props::Violation& v) {
  if (!result_.ok) return;
  result_.ok = false;
  result_.property = v.property;
  result_.step = step_;
  result_.message = v.message;
  trace_.Add({{"ev", "violation"}, {"property", v.property}, {"message", v.message},
              {"step", step_}, {"t", queue_.now_ms()}});
  observer_->OnViolation(queue_.now_ms(), step_, v.property, v.message);
}

// --- setup -------------------------------------------------------------------------------------

void Simulation::Setup() {
  if (!LoadSchemas()) return;
  MakeNetworkAndDaemon();
  MakeRooms();
  opt_props_ = std::make_unique<props::OptimisticInvariants>(
      scenario_.config.buffer_cap, client_schema_, LocalTableNames(), &client_mutators_);
  if (auto s = daemon_->Seed(scenario_.seed_rows); !s.ok()) {
    setup_status_ = s;
    return;
  }
  trace_.Add({{"ev", "config"},
              {"seed", scenario_.seed},
              {"config", ScenarioToJson(scenario_)["config"]},
              {"actions", scenario_.actions.size()},
              {"faults", scenario_.faults.size()}});
  data_trace_ = std::make_unique<DataTracer>(&trace_, &schema_);
  data_trace_->SeedRows(scenario_.seed_rows);
  MakeClients();
  BuildWorld();
  ScheduleScenario();
}

bool Simulation::LoadSchemas() {
  auto schema = LoadAppSchema();
  if (!schema.ok()) {
    setup_status_ = schema.status();
    return false;
  }
  schema_ = *schema;
  // Clients also hold the local-only UI tables; the authority (and schema_) never knows them.
  auto client_schema = LoadClientSchema();
  if (!client_schema.ok()) {
    setup_status_ = client_schema.status();
    return false;
  }
  client_schema_ = *std::move(client_schema);
  local_schema_ = LocalTableSpecs();
  client_mutators_ = ClientMutators();
  server_mutators_ = ServerMutators();
  // A room flush is logged by the daemon as this reserved mutator (room.h): the authority-model
  // and applied-once replays apply its row images like any twin.
  server_mutators_[kRoomFlushMutator] = RoomFlushTwin();
  return true;
}

void Simulation::MakeNetworkAndDaemon() {
  const ScenarioConfig& config = scenario_.config;
  std::map<std::string, std::string> user_of;
  for (int i = 0; i < config.clients; ++i) user_of[StrCat("c", i)] = ClientUserId(i);
  network_ = std::make_unique<Network>(&queue_, root_.Fork("network"), config.network, &counters_);
  if (observer_->WantsNetwork()) {
    network_->SetTap([obs = observer_.get()](const NetEvent& e) { obs->OnNet(e); });
  }
  frame_faults_ = std::make_unique<FrameFaults>(&queue_, network_.get(), &counters_);
  daemon_ = std::make_unique<DaemonAuthority>(
      schema_, ServerMutators(), user_of,
      [this](const std::string& client, ServerFrame frame) { SendFrame(client, std::move(frame)); },
      &counters_);
  // Projection (daemon.h): a deterministic function of the run seed (Rng fork "projection") —
  // a third of the runs ship full rows only; the others project (and sometimes widen) hellos.
  daemon_->SetProjectionPolicy(SimProjectionPolicy(root_.Fork("projection")));
  authority_view_ = std::make_unique<DaemonAuthorityView>(daemon_.get());
}

void Simulation::SendFrame(const std::string& client, ServerFrame frame) {
  auto it = by_id_.find(client);
  if (it == by_id_.end()) return;
  SimClient* c = it->second;
  // The send tap sees what the authority put on the link (lost or not; copies the frame faults
  // add are not new sends).
  if (frame.kind == ServerFrame::Kind::kWelcome) opt_props_->OnSentWelcome(client, frame.boot_id);
  if (frame.kind == ServerFrame::Kind::kData) {
    opt_props_->OnSentData(client, frame.qid, frame.event.cv,
                           frame.event.type == NormalizedEvent::Type::kBatch);
  }
  // Through the frame faults (frame_faults.h): they may add copies or let a snapshot overtake.
  frame_faults_->Send(client, frame, [this, c, sent = queue_.now_ms()](const ServerFrame& f) {
    observer_->OnFrameDelivered(c->client_id(), sent, queue_.now_ms(), f);
    Deliver(c, f);
  });
}

ClientTiming Simulation::Timing() const {
  ClientTiming t;
  t.transport_retry = scenario_.config.transport_retry;
  return t;
}

void Simulation::MakeClients() {
  const ScenarioConfig& config = scenario_.config;
  for (int i = 0; i < config.clients; ++i) {
    OptimisticOptions opts;
    opts.schema = client_schema_;
    opts.local_tables = LocalTableNames();
    opts.mutators = client_mutators_;
    opts.buffer_cap = config.buffer_cap;
    auto client = std::make_unique<SimClient>(i, StrCat("c", i), ClientUserId(i), std::move(opts),
                                              &queue_, network_.get(), daemon_.get(), &trace_,
                                              &counters_, root_.Fork(StrCat("client", i)),
                                              Timing());
    by_id_[client->client_id()] = client.get();
    opt_props_->Attach(client->client_id(), &client->backend(), /*observe_sends=*/false);
    clients_.push_back(std::move(client));
  }
}

// Pointers into the clients and the daemon, which live for the whole run; only the dirty flags
// change per step (RefreshDirtyFlags).
void Simulation::BuildWorld() {
  for (const auto& c : clients_) {
    props::ClientState s;
    s.id = c->client_id();
    s.backend = &c->backend();
    s.views = &c->views();
    s.local_views = &c->local_views();
    s.sent = &c->sent();
    s.carried = &c->carried();
    s.local_rows = &c->local_rows();
    s.room_carried = &c->room_carried();
    s.room_retargeted = &c->retargeted();
    s.swap_states = &c->swap_states();
    s.rejections = &c->rejections();
    s.outcomes_delivered = &c->outcomes_delivered();
    SystemRecord& sys = system_record_[c->client_id()];
    s.system_outcomes = &sys.outcomes;
    s.confirms_released = &sys.confirms;
    s.deals = &c->deals();
    s.link = &c->link_record();
    world_.clients.push_back(std::move(s));
    c->OnStuck([this, cl = c.get()](const DowngradeStuckEvent& e) { OnRoomStuck(cl, e); });
    if (room_view_plane_) {
      c->EnableRoomViews();
      const size_t i = world_.clients.size() - 1;
      c->OnRetargeted([this, i](const RemoteQuery& q, const std::string& channel) {
        const props::ClientState& cs = world_.clients[i];
        opt_props_->OnRetarget(cs.id, props::ViewInfosOf(cs), q.Key(), channel);
      });
      c->OnRoomChannel([this, id = c->client_id()](const std::string& key, bool attached) {
        opt_props_->OnRoomChannel(id, key, attached);
      });
    }
  }
  for (auto& [doc, st] : rooms_) {
    room_views_.push_back(std::make_unique<RoomRecordView>(st.room.get()));
    world_.rooms.push_back(room_views_.back().get());
  }
  world_.authority = authority_view_.get();
  world_.seed_rows = &scenario_.seed_rows;
  world_.schema = &schema_;
  world_.client_schema = &client_schema_;
  world_.local_schema = &local_schema_;
  world_.client_mutators = &client_mutators_;
  world_.server_mutators = &server_mutators_;
  checker_ = std::make_unique<props::Checker>(props::MakeRunChecker(opt_props_.get()));
}

void Simulation::ScheduleScenario() {
  const ScenarioConfig& config = scenario_.config;
  for (auto& c : clients_) {
    SimClient* client = c.get();
    queue_.ScheduleAt(config.connect_ms[static_cast<size_t>(client->index())],
                      [client] { client->Connect(); });
  }
  for (const ScenarioAction& action : scenario_.actions) {
    queue_.ScheduleAt(action.t_ms, [this, &action] {
      if (!healed_) Act(action);
    });
  }
  for (const ScenarioFault& fault : scenario_.faults) {
    queue_.ScheduleAt(fault.t_ms, [this, &fault] {
      if (!healed_) Inject(fault);
    });
  }
  queue_.ScheduleAt(config.safety_ms, [this] { Heal(); });
}

// --- actions -----------------------------------------------------------------------------------

void Simulation::Act(const ScenarioAction& action) {
  SimClient* client = clients_[static_cast<size_t>(action.client)].get();
  if (client->refused()) {  // the app shut it down after a ledger-regression refusal
    Count("action.refused_client_skip");
    return;
  }
  opt_props_->OnLocalAction(client->client_id());  // no-flicker: a local change may follow
  switch (action.kind) {
    case ScenarioAction::Kind::kRetain:
      return ActRetain(action, client);
    case ScenarioAction::Kind::kRelease:
      return ActRelease(action, client);
    case ScenarioAction::Kind::kMutateFolded:
      return ActMutateFolded(action, client);
    case ScenarioAction::Kind::kFlushFolds:
      return ActFlushFolds(client);
    case ScenarioAction::Kind::kWriteLocal:
      return ActWriteLocal(action, client);
    case ScenarioAction::Kind::kLocalView:
      return ActLocalView(action, client);
    case ScenarioAction::Kind::kMutate:
      return ActMutate(action, client);
    case ScenarioAction::Kind::kRoomConnect:
      return ActRoomConnect(action, client);
    case ScenarioAction::Kind::kRoomDisconnect:
      return ActRoomDisconnect(action, client);
  }
}

void Simulation::ActRetain(const ScenarioAction& action, SimClient* client) {
  const std::string& lane = client->client_id();
  Count("action.retain");
  Count(StrCat("workload.query.", QueryShape(action.query)));
  const std::map<int64_t, std::pair<RemoteQuery, Ast>> before = client->views();
  if (auto s = client->Retain(action.query); !s.ok()) {
    Fail({"workload", StrCat(lane, ": retain ", action.query.name, " failed: ", s.message())});
    return;
  }
  for (const auto& [qid, view] : client->views()) {
    if (!before.contains(qid)) handle_qid_[{action.client, action.handle}] = qid;
  }
  observer_->OnMark(lane, queue_.now_ms(), StrCat("retain ", action.query.name), "action");
}

void Simulation::ActRelease(const ScenarioAction& action, SimClient* client) {
  auto it = handle_qid_.find({action.client, action.handle});
  if (it == handle_qid_.end()) {
    Count("action.release_noop");
    return;
  }
  Count("action.release");
  client->ReleaseOne(it->second);
  handle_qid_.erase(it);
  observer_->OnMark(client->client_id(), queue_.now_ms(), "release", "action");
}

void Simulation::ActMutateFolded(const ScenarioAction& action, SimClient* client) {
  const std::string& lane = client->client_id();
  Count("action.mutate_folded");
  const int64_t before = client->backend().inspect().next_mid;
  const int64_t flushes = client->fold_flushes();
  FoldOptions opts;
  opts.key = action.fold_key;
  opts.debounce_ms = action.debounce_ms;
  opts.max_wait_ms = action.max_wait_ms;
  opts.defer_across_writes = action.defer_across_writes;
  auto key = client->InvokeFolded(action.name, action.args, opts);
  if (key.ok()) opt_props_->OnInvokeFolded(lane, *key, action.args);  // fold-wire's record
  observer_->OnMark(lane, queue_.now_ms(),
                    StrCat(action.name, " (folded)", key.ok() ? "" : " (rejected)"), "action");
  if (auto v = props::CheckFoldedInvokeDeals(lane, action.name,
                                             client->backend().inspect().next_mid - before,
                                             client->fold_flushes() - flushes)) {
    Fail(*v);
    return;
  }
  if (!key.ok()) {
    Count("action.fold_rejected");
    Fail(props::CheckFoldRefusal(lane, action.name, action.args, key.status()));
  }
}

void Simulation::ActFlushFolds(SimClient* client) {
  Count("action.flush_folds");
  client->FlushFolds();
  Fail(props::CheckFlushFoldsClosedAll(client->client_id(), client->backend().OpenFolds().size()));
  observer_->OnMark(client->client_id(), queue_.now_ms(), "flush folds", "action");
}

void Simulation::ActWriteLocal(const ScenarioAction& action, SimClient* client) {
  Count("action.write_local");
  bool synced = false;
  for (const LocalOp& o : action.ops) synced = synced || o.kind == LocalOp::Kind::kSyncedWrite;
  auto n = client->WriteLocal(action.ops);
  observer_->OnMark(client->client_id(), queue_.now_ms(), "write local", "action");
  if (n.ok()) {
    if (*n == 0) Count("action.write_local_noop");
    return;
  }
  if (auto v = props::CheckWriteLocalOutcome(client->client_id(), synced, n.status())) {
    Fail(*v);
    return;
  }
  Count("action.write_local_rejected");
}

void Simulation::ActLocalView(const ScenarioAction& action, SimClient* client) {
  const std::string& lane = client->client_id();
  Count("action.local_view");
  auto qid = client->LocalView(action.local_query);
  if (!qid.ok()) {
    Fail({"workload", StrCat(lane, ": local view ", action.local_query,
                             " failed: ", qid.status().message())});
    return;
  }
  handle_qid_[{action.client, action.handle}] = *qid;
  observer_->OnMark(lane, queue_.now_ms(), StrCat("local view ", action.local_query), "action");
}

void Simulation::ActMutate(const ScenarioAction& action, SimClient* client) {
  const std::string& lane = client->client_id();
  Count(StrCat("action.", action.name));
  const int64_t before = client->backend().inspect().next_mid;
  const int64_t flushes_before = client->fold_flushes();
  auto mid = client->Invoke(action.name, action.args);
  observer_->OnInvoke(lane, queue_.now_ms(), action.name,
                      mid.ok() ? std::optional<int64_t>(*mid) : std::nullopt);
  if (mid.ok() && client->last_invoke_in_room()) return;  // a room mid: not the daemon's ledger
  if (mid.ok()) {
    opt_props_->OnInvoke(lane, *mid);  // the client model's record: this mid is no fold flush
    Fail(props::CheckFlushOnEnqueue(lane, action.name, *mid, client->backend().inspect()));
    return;
  }
  Count("action.client_rejected");
  Fail(props::CheckRejectedInvokeDeals(lane, action.name, before,
                                       client->backend().inspect().next_mid,
                                       client->fold_flushes() - flushes_before));
}

// --- faults ------------------------------------------------------------------------------------

void Simulation::Inject(const ScenarioFault& fault) {
  const int64_t now = queue_.now_ms();
  auto client = [&] { return clients_[static_cast<size_t>(fault.client)].get(); };
  data_trace_->Fault(fault, now);
  switch (fault.kind) {
    case ScenarioFault::Kind::kLinkBreak:
      return InjectLinkBreak(client());
    case ScenarioFault::Kind::kAuthorityRestart:
      return InjectAuthorityRestart();
    case ScenarioFault::Kind::kPartition: {
      SimClient* c = client();
      Count("fault.partition");
      observer_->OnSpan(c->client_id(), now, now + fault.duration_ms, "partition");
      network_->Partition(c->client_id(), fault.duration_ms);
      c->LinkBroken();
      return;
    }
    case ScenarioFault::Kind::kResubscribeStorm:
      return InjectResubscribeStorm(fault);
    case ScenarioFault::Kind::kSchemaSkew: {
      SimClient* c = client();
      Count("fault.schema_skew");
      observer_->OnMark(c->client_id(), now, "schema skew", "fault");
      daemon_->SkewNextHello(c->client_id());
      return;
    }
    case ScenarioFault::Kind::kProgressStarvation:
      return InjectProgressStarvation(fault);
    case ScenarioFault::Kind::kStaleRedelivery:
      Count("fault.stale_redelivery_armed");
      frame_faults_->ArmStaleRedelivery(client()->client_id());
      return InjectLinkBreak(client());  // the resume that replays
    case ScenarioFault::Kind::kFrameDuplicate:
      Count("fault.frame_duplicate");
      frame_faults_->ArmDuplicate(client()->client_id(), fault.count);
      return;
    case ScenarioFault::Kind::kSnapshotOvertake:
      Count("fault.snapshot_overtake_armed");
      frame_faults_->ArmOvertake(client()->client_id());
      return;
    case ScenarioFault::Kind::kAuthorityRollback:
      return InjectAuthorityRollback(fault.count);
    case ScenarioFault::Kind::kRoomRestart:
    case ScenarioFault::Kind::kRoomLinkBreak:
    case ScenarioFault::Kind::kRoomPartition:
    case ScenarioFault::Kind::kOutcomeLoss:
    case ScenarioFault::Kind::kOutcomeDuplicate:
    case ScenarioFault::Kind::kOutcomeDelay:
    case ScenarioFault::Kind::kDeoptStorm:
    case ScenarioFault::Kind::kRejectStorm:
    case ScenarioFault::Kind::kFlushLag:
    case ScenarioFault::Kind::kRoomCrash:
    case ScenarioFault::Kind::kRoomFlushLinkDown:
      return InjectRoomFault(fault);
  }
}

void Simulation::InjectLinkBreak(SimClient* c) {
  if (!network_->up(c->client_id())) return;
  Count("fault.link_break");
  observer_->OnMark(c->client_id(), queue_.now_ms(), "link break", "fault");
  network_->Break(c->client_id());
  c->LinkBroken();
}

void Simulation::InjectAuthorityRestart() {
  const int64_t now = queue_.now_ms();
  Count("fault.authority_restart");
  for (auto& c : clients_) {
    if (!c->backend().OpenFolds().empty()) {
      Count("fault.authority_restart_mid_fold");  // a fold window open on some client
      break;
    }
  }
  trace_.Add({{"ev", "restart"}, {"t", now}});
  observer_->OnMark("authority", now, "restart", "fault");
  daemon_->Restart();
  for (auto& c : clients_) c->RestartPushRecord(daemon_->lmid(c->client_id()));
  BreakEveryLink();
}

void Simulation::BreakEveryLink() {
  for (auto& c : clients_) {
    network_->Break(c->client_id());
    c->LinkBroken();
  }
}

// The authority comes back from an older backup (sim/authority/daemon.h RollBack): a restart
// whose store and ledgers lack the last `forget` processed envelopes.
void Simulation::InjectAuthorityRollback(int64_t forget) {
  const int64_t now = queue_.now_ms();
  Count("fault.authority_rollback");
  const int64_t forgot = daemon_->RollBack(forget);
  for (auto& c : clients_) c->RestartPushRecord(daemon_->lmid(c->client_id()));
  counters_["fault.authority_rollback_forgot"] += forgot;
  trace_.Add({{"ev", "rollback"}, {"t", now}, {"forgot", forgot}});
  observer_->OnMark("authority", now, StrCat("rollback -", forgot), "fault");
  BreakEveryLink();
}

void Simulation::InjectResubscribeStorm(const ScenarioFault& fault) {
  const int64_t now = queue_.now_ms();
  Count("fault.resubscribe_storm");
  const int idx = fault.client;
  observer_->OnSpan(clients_[static_cast<size_t>(idx)]->client_id(), now,
                    now + kStormGapMs * std::max<int64_t>(fault.count - 1, 0) + 1,
                    "resubscribe storm");
  for (int64_t k = 0; k < fault.count; ++k) {
    queue_.Schedule(k * kStormGapMs, [this, idx] {
      if (healed_) return;
      Count("fault.resubscribe_cycle");
      opt_props_->OnLocalAction(clients_[static_cast<size_t>(idx)]->client_id());
      const std::map<int64_t, int64_t> moved = clients_[static_cast<size_t>(idx)]->ResubscribeAll();
      for (auto& [key, qid] : handle_qid_) {
        if (key.first != idx) continue;
        if (auto m = moved.find(qid); m != moved.end()) qid = m->second;
      }
    });
  }
}

void Simulation::InjectProgressStarvation(const ScenarioFault& fault) {
  const int64_t now = queue_.now_ms();
  Count("fault.progress_starvation");
  observer_->OnSpan("authority", now, now + fault.duration_ms, "progress starvation");
  daemon_->StarveProgress(true);
  queue_.Schedule(fault.duration_ms, [this] { daemon_->StarveProgress(false); });
}

void Simulation::Heal() {
  healed_ = true;
  trace_.Add({{"ev", "heal"}, {"t", queue_.now_ms()}});
  observer_->OnMark("authority", queue_.now_ms(), "heal", "info");
  network_->Heal();
  frame_faults_->Heal();
  daemon_->StarveProgress(false);
  // A client whose link is down reconnects (a reconnect may already be scheduled).
  for (auto& c : clients_) {
    if (!network_->up(c->client_id())) c->LinkBroken();
    for (const auto& [key, link] : c->rooms()) {
      if (!link->up()) link->LinkBroken();
    }
  }
  for (auto& [doc, st] : rooms_) {
    st.room->SetStorm(RoomAuthority::Storm::kNone, 0);
    st.lag_until_ms = -1;
    st.outcome_loss = st.outcome_duplicate = st.outcome_delay = 0;
    st.link_down_armed.clear();
    std::vector<std::string> held;
    for (const auto& [client, h] : st.link_down) held.push_back(client);
    for (const std::string& client : held) ReleaseLinkDown(doc, client, "at_heal");
  }
}

// --- the checker loop --------------------------------------------------------------------------

void Simulation::Deliver(SimClient* c, const ServerFrame& frame) {
  frame_faults_->Delivered(c->client_id(), frame);
  switch (frame.kind) {
    case ServerFrame::Kind::kWelcome:
      opt_props_->OnWelcome(c->client_id(), frame.boot_id);
      daemon_progress_[c->client_id()] = {frame.boot_id, -1};
      break;
    case ServerFrame::Kind::kData:
      opt_props_->OnData(c->client_id(), frame.qid, frame.event, frame.epoch, frame.redelivered);
      break;
    case ServerFrame::Kind::kProgress: {
      opt_props_->OnProgress(c->client_id(), frame.cv_min);
      ++daemon_progress_count_[c->client_id()];
      auto& p = daemon_progress_[c->client_id()];
      p.second = std::max(p.second, frame.cv_min);
      break;
    }
    case ServerFrame::Kind::kOutcome:  // rooms only (simulation_rooms.cc DeliverRoom)
      break;
  }
  data_trace_->Frame(c->client_id(), frame, queue_.now_ms());
  const size_t pushes = c->outcome_pushes().size();
  // The confirmations released BEFORE this frame: its own ledger rows fold after its outcome rows.
  const std::map<std::string, int64_t> confirmed = system_record_[c->client_id()].confirms;
  const std::set<std::pair<std::string, int64_t>> pending = RoomPending(*c);
  NoteSystemRows(*c);
  if (c->rooms().empty()) {
    c->Receive(frame);
    if (frame.kind == ServerFrame::Kind::kProgress) FeedWatermarks(c);
    NoteSystemDeoptPushes(c, pushes, confirmed, pending);
    return CheckRoomWatermarks(*c);
  }
  const auto before = ChannelMarks(*c);
  c->Receive(frame);
  if (frame.kind == ServerFrame::Kind::kProgress) FeedWatermarks(c);
  NoteSystemDeoptPushes(c, pushes, confirmed, pending);
  CheckRoomWatermarks(*c);
  CheckNow("channel-isolation", props::CheckChannelIsolation(c->client_id(),
                                                              std::string(kDaemonSource),
                                                              before, ChannelMarks(*c)));
}

void Simulation::RefreshDirtyFlags() {
  RINDLE_CHECK_EQ(world_.clients.size(), clients_.size());
  for (size_t i = 0; i < clients_.size(); ++i) {
    world_.clients[i].dirty = clients_[i]->TakeDirty();
    world_.clients[i].local_dirty = clients_[i]->TakeLocalDirty();
  }
  world_.authority_dirty = daemon_->TakeDirty();
  if (world_.authority_dirty && room_view_plane_) {
    for (auto& [doc, st] : rooms_) st.room->MirrorDaemon(daemon_->store());  // room.h
  }
  for (auto& [doc, st] : rooms_) st.room->TakeDirty();
  if (!rooms_.empty()) RefreshRoomFlags();
  if (!rooms_.empty()) RefreshRoomViewFlags();
}

RunResult Simulation::Run() {
  if (setup_status_.ok()) Setup();
  if (!setup_status_.ok()) {
    result_.ok = false;
    result_.property = "setup";
    result_.message = std::string(setup_status_.message());
    return result_;
  }
  for (;;) {
    if (options_.progress != nullptr) options_.progress->store(step_ + 1, std::memory_order_relaxed);
    opt_props_->BeginStep();  // the tap's step record (no-flicker, cv-promise)
    for (auto& c : clients_) c->BeginStep();  // the views' states inside the step (swaps)
    if (!result_.ok || !queue_.RunNext()) break;
    ++step_;
    observer_->OnStep(*daemon_, queue_.now_ms());
    data_trace_->AfterStep(step_, queue_.now_ms(), *daemon_, world_, counters_);
    RefreshDirtyFlags();
    if (auto v = checker_->AfterStep(world_, &counters_)) {
      Fail(*v);
      break;
    }
    // The budget is spent only when work remains: a queue drained by the last allowed step is
    // quiescent (the loop ends and AtQuiescence runs).
    if (step_ >= options_.max_steps && !queue_.empty()) {
      Fail({"liveness", StrCat("not quiescent after ", step_, " steps (", queue_.size(),
                               " events queued at t=", queue_.now_ms(), "ms)")});
      break;
    }
  }
  if (result_.ok) Fail(checker_->AtQuiescence(world_));
  data_trace_->Checkpoint("end", step_, queue_.now_ms(), *daemon_, world_);
  trace_.Add({{"ev", "end"}, {"ok", result_.ok}, {"steps", step_}, {"t", queue_.now_ms()}});
  result_.steps = step_;
  result_.virtual_ms = queue_.now_ms();
  result_.digest = trace_.DigestHex();
  result_.counters = counters_;
  observer_->OnEnd(scenario_.seed, &result_);
  return result_;
}

}  // namespace rindle::sim
