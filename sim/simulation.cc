// simulation.cc — see simulation.h.
#include "sim/simulation.h"

#include <algorithm>
#include <set>

#include "engine/str_util.h"
#include "oracles/authority_model.h"
#include "oracles/diff.h"
#include "oracles/plain_store.h"
#include "sim/query_resolution.h"
#include "sim/workload_mutators.h"
#include "sim/workload_schema.h"

namespace rindle::sim {

Simulation::Simulation(const Scenario& scenario, const RunOptions& options)
    : scenario_(scenario), options_(options), root_(scenario.seed), trace_(64) {
  result_.seed = scenario.seed;
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
    std::vector<std::string> lanes = {"authority"};
    for (int i = 0; i < scenario.config.clients; ++i) lanes.push_back(StrCat("c", i));
    timeline_ = std::make_unique<Timeline>(std::move(lanes));
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
  if (timeline_) timeline_->Failure(queue_.now_ms(), step_, v.property, v.message);
}

void Simulation::Setup() {
  auto schema = LoadAppSchema();
  if (!schema.ok()) {
    setup_status_ = schema.status();
    return;
  }
  schema_ = *schema;
  // Clients also hold the local-only UI tables; the authority (and schema_) never knows them.
  auto client_schema = LoadClientSchema();
  if (!client_schema.ok()) {
    setup_status_ = client_schema.status();
    return;
  }
  client_schema_ = *std::move(client_schema);
  client_mutators_ = ClientMutators();
  const ScenarioConfig& config = scenario_.config;
  std::map<std::string, std::string> user_of;
  for (int i = 0; i < config.clients; ++i) user_of[StrCat("c", i)] = ClientUserId(i);
  network_ = std::make_unique<Network>(&queue_, root_.Fork("network"), config.network, &counters_);
  daemon_ = std::make_unique<DaemonAuthority>(
      schema_, ServerMutators(), user_of,
      [this](const std::string& client, ServerFrame frame) {
        auto it = by_id_.find(client);
        if (it == by_id_.end()) return;
        SimClient* c = it->second;
        if (timeline_) {
          const int64_t sent = queue_.now_ms();
          const std::string label(FrameToTrace(frame).value("frame", "frame"));
          if (label == "progress") {
            network_->SendToClient(client, [this, c, frame = std::move(frame)] { Deliver(c, frame); });
            return;
          }
          network_->SendToClient(client, [this, c, sent, label, frame = std::move(frame)] {
            timeline_->Message("authority", c->client_id(), sent, queue_.now_ms(), label);
            Deliver(c, frame);
          });
          return;
        }
        network_->SendToClient(client, [this, c, frame = std::move(frame)] { Deliver(c, frame); });
      },
      &counters_);
  // Projection (daemon.h): a deterministic function of the run seed (Rng fork "projection") —
  // a third of the runs ship full rows only; the others project (and sometimes widen) hellos.
  daemon_->SetProjectionPolicy(SimProjectionPolicy(root_.Fork("projection")));
  opt_props_ = std::make_unique<props::OptimisticInvariants>(config.buffer_cap, client_schema_,
                                                              LocalTableNames());
  if (auto s = daemon_->Seed(scenario_.seed_rows); !s.ok()) {
    setup_status_ = s;
    return;
  }
  trace_.Add({{"ev", "config"},
              {"seed", scenario_.seed},
              {"config", ScenarioToJson(scenario_)["config"]},
              {"actions", scenario_.actions.size()},
              {"faults", scenario_.faults.size()}});
  for (int i = 0; i < config.clients; ++i) {
    OptimisticOptions opts;
    opts.schema = client_schema_;
    opts.local_tables = LocalTableNames();
    opts.mutators = client_mutators_;
    opts.buffer_cap = config.buffer_cap;
    auto client = std::make_unique<SimClient>(i, StrCat("c", i), ClientUserId(i), std::move(opts),
                                              &queue_, network_.get(), daemon_.get(), &trace_,
                                              &counters_, root_.Fork(StrCat("client", i)),
                                              ClientTiming{});
    by_id_[client->client_id()] = client.get();
    opt_props_->Attach(client->client_id(), &client->backend(), /*observe_sends=*/false);
    clients_.push_back(std::move(client));
  }
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

void Simulation::Act(const ScenarioAction& action) {
  SimClient* client = clients_[static_cast<size_t>(action.client)].get();
  const std::string lane = client->client_id();
  switch (action.kind) {
    case ScenarioAction::Kind::kRetain: {
      Count("action.retain");
      const std::map<int64_t, std::pair<RemoteQuery, Ast>> before = client->views();
      if (auto s = client->Retain(action.query); !s.ok()) {
        Fail({"workload", StrCat(lane, ": retain ", action.query.name,
                                 " failed: ", s.message())});
        return;
      }
      for (const auto& [qid, view] : client->views()) {
        if (!before.contains(qid)) handle_qid_[{action.client, action.handle}] = qid;
      }
      if (timeline_) timeline_->Mark(lane, queue_.now_ms(), StrCat("retain ", action.query.name), "action");
      return;
    }
    case ScenarioAction::Kind::kRelease: {
      auto it = handle_qid_.find({action.client, action.handle});
      if (it == handle_qid_.end()) {
        Count("action.release_noop");
        return;
      }
      Count("action.release");
      client->ReleaseOne(it->second);
      handle_qid_.erase(it);
      if (timeline_) timeline_->Mark(lane, queue_.now_ms(), "release", "action");
      return;
    }
    case ScenarioAction::Kind::kMutateFolded: {
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
      if (timeline_) {
        timeline_->Mark(lane, queue_.now_ms(),
                        StrCat(action.name, " (folded)", key.ok() ? "" : " (rejected)"), "action");
      }
      const int64_t dealt = client->backend().inspect().next_mid - before;
      if (dealt != client->fold_flushes() - flushes) {
        Fail({"gapless-mids", StrCat(lane, ": folded invoke of ", action.name, " moved nextMid by ",
                                     dealt, " with ", client->fold_flushes() - flushes,
                                     " fold flushes (a folded invoke deals mids only at flush)")});
        return;
      }
      if (!key.ok()) {
        Count("action.fold_rejected");
        // The workload's blind keyed writers are fold-legal: the read trap must not fire.
        static const std::set<std::string> kFoldLegal = {"editTitle", "setStatus", "setPriority",
                                                         "setOwner", "editComment"};
        if (kFoldLegal.contains(action.name)) {
          Fail({"fold", StrCat(lane, ": folded ", action.name, " ", action.args.dump(),
                               " refused: ", key.status().message())});
        }
      }
      return;
    }
    case ScenarioAction::Kind::kFlushFolds: {
      Count("action.flush_folds");
      client->FlushFolds();
      if (!client->backend().OpenFolds().empty()) {
        Fail({"fold", StrCat(lane, ": FlushFolds left ", client->backend().OpenFolds().size(),
                             " fold windows open")});
      }
      if (timeline_) timeline_->Mark(lane, queue_.now_ms(), "flush folds", "action");
      return;
    }
    case ScenarioAction::Kind::kWriteLocal: {
      Count("action.write_local");
      bool synced = false;
      for (const LocalOp& o : action.ops) synced = synced || o.kind == LocalOp::Kind::kSyncedWrite;
      auto n = client->WriteLocal(action.ops);
      if (timeline_) timeline_->Mark(lane, queue_.now_ms(), "write local", "action");
      if (n.ok()) {
        if (*n == 0) Count("action.write_local_noop");
        return;
      }
      if (synced && n.status().code() != absl::StatusCode::kInternal) {
        Count("action.write_local_rejected");
        return;
      }
      Fail({"local-tables", StrCat(lane, ": write_local: ", n.status().message())});
      return;
    }
    case ScenarioAction::Kind::kLocalView: {
      Count("action.local_view");
      auto qid = client->LocalView(action.local_query);
      if (!qid.ok()) {
        Fail({"workload", StrCat(lane, ": local view ", action.local_query,
                                 " failed: ", qid.status().message())});
        return;
      }
      handle_qid_[{action.client, action.handle}] = *qid;
      if (timeline_) timeline_->Mark(lane, queue_.now_ms(), StrCat("local view ", action.local_query), "action");
      return;
    }
    case ScenarioAction::Kind::kMutate:
      break;
  }
  Count(StrCat("action.", action.name));
  const int64_t before = client->backend().inspect().next_mid;
  const int64_t flushes_before = client->fold_flushes();
  auto mid = client->Invoke(action.name, action.args);
  if (timeline_) {
    timeline_->Mark(lane, queue_.now_ms(),
                    StrCat(action.name, mid.ok() ? StrCat(" mid ", *mid) : " (rejected)"),
                    "action");
    if (mid.ok()) invoked_at_[{lane, *mid}] = queue_.now_ms();
  }
  if (mid.ok()) {
    // Flush-on-enqueue (seed 002 §4.2): no open fold that does not defer across writes may share
    // a table with this write — it must have taken its mid first (wire order == apply order).
    const Inspect in = client->backend().inspect();
    const PendingInspect* self = nullptr;
    for (const auto& p : in.pending) {
      if (p.mid == *mid) self = &p;
    }
    for (const auto& p : in.pending) {
      if (self == nullptr || !p.fold || p.fold->flushed || p.fold->defer_across_writes) continue;
      for (const auto& t : p.tables) {
        if (std::find(self->tables.begin(), self->tables.end(), t) == self->tables.end()) continue;
        std::string key = p.key;
        std::replace(key.begin(), key.end(), '\0', '|');  // the fold key's separator
        Fail({"flush-on-enqueue", StrCat(lane, ": ", action.name, " (mid ", *mid, ") wrote \"", t,
                                         "\" while fold ", key, " stayed open on it")});
        return;
      }
    }
  }
  if (!mid.ok()) {
    Count("action.client_rejected");
    // Only an overlapping fold flushed ahead of it may have dealt mids (flush-on-enqueue).
    if (client->backend().inspect().next_mid != before + client->fold_flushes() - flushes_before) {
      Fail({"gapless-mids", StrCat(lane, ": mutator ", action.name,
                                   " failed yet consumed a mid (nextMid ", before, " → ",
                                   client->backend().inspect().next_mid, ")")});
    }
  }
}

void Simulation::Inject(const ScenarioFault& fault) {
  const int64_t now = queue_.now_ms();
  switch (fault.kind) {
    case ScenarioFault::Kind::kLinkBreak: {
      SimClient* c = clients_[static_cast<size_t>(fault.client)].get();
      if (!network_->up(c->client_id())) return;
      Count("fault.link_break");
      if (timeline_) timeline_->Mark(c->client_id(), now, "link break", "fault");
      network_->Break(c->client_id());
      c->LinkBroken();
      return;
    }
    case ScenarioFault::Kind::kAuthorityRestart:
      Count("fault.authority_restart");
      for (auto& c : clients_) {
        if (!c->backend().OpenFolds().empty()) {
          Count("fault.authority_restart_mid_fold");  // a fold window open on some client
          break;
        }
      }
      trace_.Add({{"ev", "restart"}, {"t", now}});
      if (timeline_) timeline_->Mark("authority", now, "restart", "fault");
      daemon_->Restart();
      for (auto& c : clients_) {
        network_->Break(c->client_id());
        c->LinkBroken();
      }
      return;
    case ScenarioFault::Kind::kPartition: {
      SimClient* c = clients_[static_cast<size_t>(fault.client)].get();
      Count("fault.partition");
      if (timeline_) timeline_->Span(c->client_id(), now, now + fault.duration_ms, "partition");
      network_->Partition(c->client_id(), fault.duration_ms);
      c->LinkBroken();
      return;
    }
    case ScenarioFault::Kind::kResubscribeStorm: {
      Count("fault.resubscribe_storm");
      const int idx = fault.client;
      if (timeline_) {
        timeline_->Span(clients_[static_cast<size_t>(idx)]->client_id(), now,
                        now + kStormGapMs * std::max<int64_t>(fault.count - 1, 0) + 1,
                        "resubscribe storm");
      }
      for (int64_t k = 0; k < fault.count; ++k) {
        queue_.Schedule(k * kStormGapMs, [this, idx] {
          if (healed_) return;
          Count("fault.resubscribe_cycle");
          const std::map<int64_t, int64_t> moved =
              clients_[static_cast<size_t>(idx)]->ResubscribeAll();
          for (auto& [key, qid] : handle_qid_) {
            if (key.first != idx) continue;
            if (auto m = moved.find(qid); m != moved.end()) qid = m->second;
          }
        });
      }
      return;
    }
    case ScenarioFault::Kind::kSchemaSkew: {
      SimClient* c = clients_[static_cast<size_t>(fault.client)].get();
      Count("fault.schema_skew");
      if (timeline_) timeline_->Mark(c->client_id(), now, "schema skew", "fault");
      daemon_->SkewNextHello(c->client_id());
      return;
    }
    case ScenarioFault::Kind::kProgressStarvation:
      Count("fault.progress_starvation");
      if (timeline_) {
        timeline_->Span("authority", now, now + fault.duration_ms, "progress starvation");
      }
      daemon_->StarveProgress(true);
      queue_.Schedule(fault.duration_ms, [this] { daemon_->StarveProgress(false); });
      return;
  }
}

void Simulation::Heal() {
  healed_ = true;
  trace_.Add({{"ev", "heal"}, {"t", queue_.now_ms()}});
  if (timeline_) timeline_->Mark("authority", queue_.now_ms(), "heal", "info");
  network_->Heal();
  daemon_->StarveProgress(false);
  // A client whose link is down reconnects (a reconnect may already be scheduled).
  for (auto& c : clients_) {
    if (!network_->up(c->client_id())) c->LinkBroken();
  }
}

void Simulation::ObserveProcessed() {
  const auto& log = daemon_->log();
  for (; log_seen_ < log.size(); ++log_seen_) {
    const auto& e = log[log_seen_];
    auto it = invoked_at_.find({e.client_id, e.mid});
    const int64_t sent = it == invoked_at_.end() ? queue_.now_ms() : it->second;
    timeline_->Message(e.client_id, "authority", sent, queue_.now_ms(),
                       StrCat("mid ", e.mid, " ", e.name, e.applied ? "" : " (burnt)"));
  }
}

void Simulation::Deliver(SimClient* c, const ServerFrame& frame) {
  switch (frame.kind) {
    case ServerFrame::Kind::kWelcome:
      opt_props_->OnWelcome(c->client_id(), frame.boot_id);
      break;
    case ServerFrame::Kind::kData:
      opt_props_->OnData(c->client_id(), frame.qid, frame.event, frame.epoch);
      break;
    case ServerFrame::Kind::kProgress:
      opt_props_->OnProgress(c->client_id(), frame.cv_min);
      break;
  }
  c->Receive(frame);
}

std::optional<props::Violation> Simulation::CheckStep() {
  if (!daemon_->health().ok()) {
    return props::Violation{"authority-health", std::string(daemon_->health().message())};
  }
  for (auto& c : clients_) {
    if (!c->TakeDirty()) continue;
    const OptimisticBackend& b = c->backend();
    if (!b.health().ok()) {
      return props::Violation{"client-health",
                              StrCat(c->client_id(), ": ", b.health().message())};
    }
    const PlainTables head = props::PlainTablesOf(b.engine(), schema_, false);
    for (const auto& [qid, view] : c->views()) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) {
        return props::Violation{"view==fresh", StrCat(c->client_id(), ": view ", qid, " missing")};
      }
      // Folding the delivered events gave exactly the engine's own materialization.
      if (auto mat = b.engine().QueryResult(qid); mat.ok()) {
        if (auto viol = props::CheckFoldedMatchesMaterialized(
                StrCat(c->client_id(), " view ", qid, " (", view.first.name, ")"), *v, *mat)) {
          return viol;
        }
      }
      if (auto viol = props::CheckViewMatchesFresh(StrCat(c->client_id(), " view ", qid, " (",
                                                          view.first.name, ")"),
                                                   *v, view.second, head, schema_)) {
        return viol;
      }
    }
    // Skipped only inside the accepted §4.2 reorder window (a write overtook an open fold it
    // interacts with); the next reconcile re-derives head and the check resumes.
    if (b.head_reordered()) {
      Count("check.head_reordered_skip");
    } else if (auto viol = props::CheckHeadIsSyncPlusPending(c->client_id(), b.engine(), schema_,
                                                             b.pending(), client_mutators_)) {
      return viol;
    }
    // Feed the ledger oracle: newly issued mids, and the confirmation watermark.
    int64_t& fed = ledger_fed_[c->client_id()];
    for (auto it = c->sent().upper_bound(fed); it != c->sent().end(); ++it) {
      ledger_.Issue(c->client_id(), "daemon", it->first, it->second.name, it->second.args);
      fed = it->first;
    }
    const int64_t wm = b.inspect().confirmed_lmid;
    ledger_.ObserveWatermark(c->client_id(), "daemon", wm);
    int64_t& last = last_watermark_[c->client_id()];
    if (wm < last) {
      return props::Violation{"gapless-mids", StrCat(c->client_id(), ": watermark went back from ",
                                                     last, " to ", wm)};
    }
    last = wm;
    // Mids sent are 1..n with no gap and no reuse.
    int64_t expect = 1;
    for (const auto& [mid, env] : c->sent()) {
      if (mid != expect) {
        return props::Violation{"gapless-mids", StrCat(c->client_id(), ": sent mids jump from ",
                                                       expect - 1, " to ", mid)};
      }
      ++expect;
    }
    // Seed-002 axes, gate model, fold wire, replay order (optimistic_invariants.h).
    std::map<int64_t, props::ViewInfo> infos;
    for (const auto& [qid, view] : c->views()) {
      infos[qid] = props::ViewInfo{view.first.Key(), AstTables(view.second)};
    }
    for (const auto& [qid, view] : c->local_views()) {
      infos[qid] = props::ViewInfo{std::nullopt, AstTables(view.second)};
    }
    if (auto viol = opt_props_->Check(c->client_id(), b, infos, c->sent())) return viol;
  }
  if (!daemon_->TakeDirty()) return std::nullopt;
  // The authority's own views.
  const PlainTables store = props::PlainTablesOf(daemon_->store(), schema_, false);
  for (const auto& [client, qid] : daemon_->Subscriptions()) {
    if (qid == kLmidQid) continue;
    auto tree = daemon_->SubscriptionResult(client, qid);
    const Ast* ast = daemon_->SubscriptionAst(client, qid);
    if (!tree.ok() || ast == nullptr) continue;
    if (auto viol = props::CheckTreeMatchesFresh(StrCat("authority sub ", client, "/", qid), *tree,
                                                 *ast, store, schema_, "view==fresh")) {
      return viol;
    }
  }
  // The authority processed each client's mids in order, each once.
  std::map<std::string, int64_t> last_mid;
  for (const auto& e : daemon_->log()) {
    int64_t& l = last_mid[e.client_id];
    if (e.mid != l + 1) {
      return props::Violation{"gapless-mids", StrCat("authority processed ", e.client_id, " mid ",
                                                     e.mid, " after ", l)};
    }
    l = e.mid;
  }
  return std::nullopt;
}

std::optional<props::Violation> Simulation::CheckQuiescence() {
  const PlainTables store = props::PlainTablesOf(daemon_->store(), schema_, false);
  for (auto& c : clients_) {
    const OptimisticBackend& b = c->backend();
    const auto insp = b.inspect();
    if (!b.pending().empty()) {
      return props::Violation{"no-lost-writes", StrCat(c->client_id(), ": ", b.pending().size(),
                                                       " mutations still pending at quiescence")};
    }
    const int64_t issued = insp.next_mid - 1;
    if (daemon_->lmid(c->client_id()) != issued) {
      return props::Violation{"no-lost-writes",
                              StrCat(c->client_id(), ": issued mids 1..", issued,
                                     " but the authority processed through ",
                                     daemon_->lmid(c->client_id()))};
    }
    // Under projection a client holds, per row, only the columns its live subscriptions ship:
    // compare against the authority's store masked the same way (daemon.h Coverage).
    const props::Coverage coverage = daemon_->Coverage(c->client_id());
    const PlainTables masked = props::MaskStore(store, coverage, /*covered_only=*/false);
    for (const auto& [qid, view] : c->views()) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) continue;
      if (auto viol = props::CheckTreeMatchesFresh(
              StrCat(c->client_id(), " view ", qid, " (", view.first.name, ") vs authority"),
              v->Tree(), view.second, masked, schema_, "convergence")) {
        return viol;
      }
    }
    // Its synced tables are exactly the authority's footprint of its queries, masked (SPEC §4.2).
    const PlainTables footprint = props::MaskStore(store, coverage, /*covered_only=*/true);
    const PlainTables synced = props::PlainTablesOf(b.engine(), schema_, /*sync=*/true);
    if (!PlainTablesEqual(footprint, synced)) {
      return props::Violation{
          "convergence", StrCat(c->client_id(), ": synced rows differ from the authority's masked "
                                                "footprint: ",
                                JsonDiff(PlainTablesToJson(footprint), PlainTablesToJson(synced)))};
    }
  }
  // The authority's store equals the sequential replay of its processed log (authority model).
  PlainStore initial(schema_);
  {
    for (const auto& [table, rows] : scenario_.seed_rows) {
      for (const auto& r : rows) {
        if (auto s = initial.Add(table, r); !s.ok()) {
          return props::Violation{"authority-model", StrCat("seed rejected: ", s.message())};
        }
      }
    }
  }
  AuthorityModel model(std::move(initial), ServerMutators());
  for (const auto& e : daemon_->log()) {
    auto fate = model.Process({e.client_id, e.mid, e.name, e.args});
    if (!fate.ok()) {
      return props::Violation{"authority-model", StrCat(e.client_id, " mid ", e.mid, ": ",
                                                        fate.status().message())};
    }
    const bool applied = *fate == EnvelopeFate::kApplied;
    if (applied != e.applied) {
      return props::Violation{"authority-model",
                              StrCat(e.client_id, " mid ", e.mid, " (", e.name, "): the model ",
                                     applied ? "applied" : "burnt", " it, the authority ",
                                     e.applied ? "applied" : "burnt", " it")};
    }
    ledger_.SetFate(e.client_id, "daemon", e.mid, e.applied ? MidFate::kApplied : MidFate::kBurnt,
                    e.reason);
  }
  if (auto s = ledger_.Check(); !s.ok()) {
    return props::Violation{"gapless-mids", StrCat("ledger oracle: ", s.message())};
  }
  const nlohmann::json expected = PlainTablesToJson(model.store().tables());
  const nlohmann::json actual = PlainTablesToJson(store);
  if (expected != actual) {
    return props::Violation{"authority-model", "authority store differs from the sequential model"};
  }
  return std::nullopt;
}

// Local-only tables and views (SimClient::CheckLocal): the engine's local rows are what the
// client wrote; every local-only view equals the fresh query over the client's head.
std::optional<props::Violation> Simulation::CheckLocal() {
  for (auto& c : clients_) {
    if (auto v = c->CheckLocal()) return v;
  }
  return std::nullopt;
}

RunResult Simulation::Run() {
  if (setup_status_.ok()) Setup();
  if (!setup_status_.ok()) {
    result_.ok = false;
    result_.property = "setup";
    result_.message = std::string(setup_status_.message());
    return result_;
  }
  while (result_.ok && queue_.RunNext()) {
    ++step_;
    if (timeline_) ObserveProcessed();
    if (auto v = CheckStep()) {
      Fail(*v);
      break;
    }
    if (auto v = CheckLocal()) {
      Fail(*v);
      break;
    }
    if (step_ >= options_.max_steps) {
      Fail({"liveness", StrCat("not quiescent after ", step_, " steps (", queue_.size(),
                               " events queued at t=", queue_.now_ms(), "ms)")});
      break;
    }
  }
  if (result_.ok) {
    if (auto v = CheckQuiescence()) Fail(*v);
  }
  trace_.Add({{"ev", "end"}, {"ok", result_.ok}, {"steps", step_}, {"t", queue_.now_ms()}});
  result_.steps = step_;
  result_.virtual_ms = queue_.now_ms();
  result_.digest = trace_.DigestHex();
  result_.counters = counters_;
  if (timeline_) {
    const std::string title =
        StrCat("rindle-sim seed ", scenario_.seed, result_.ok ? " — ok" : StrCat(" — ", result_.property, " failed at step ", result_.step));
    if (auto s = timeline_->WriteHtml(options_.timeline_path, title); !s.ok()) {
      result_.counters["timeline.write_error"] = 1;
    }
  }
  return result_;
}

}  // namespace rindle::sim
