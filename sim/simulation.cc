// simulation.cc — see simulation.h.
#include "sim/simulation.h"

#include "engine/str_util.h"
#include "oracles/authority_model.h"
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
            network_->SendToClient(client, [c, frame = std::move(frame)] { c->Receive(frame); });
            return;
          }
          network_->SendToClient(client, [this, c, sent, label, frame = std::move(frame)] {
            timeline_->Message("authority", c->client_id(), sent, queue_.now_ms(), label);
            c->Receive(frame);
          });
          return;
        }
        network_->SendToClient(client, [c, frame = std::move(frame)] { c->Receive(frame); });
      },
      &counters_);
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
    opts.schema = schema_;
    opts.mutators = client_mutators_;
    opts.buffer_cap = config.buffer_cap;
    auto client = std::make_unique<SimClient>(i, StrCat("c", i), ClientUserId(i), std::move(opts),
                                              &queue_, network_.get(), daemon_.get(), &trace_,
                                              &counters_, root_.Fork(StrCat("client", i)),
                                              ClientTiming{});
    by_id_[client->client_id()] = client.get();
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
    case ScenarioAction::Kind::kMutate:
      break;
  }
  Count(StrCat("action.", action.name));
  const int64_t before = client->backend().inspect().next_mid;
  auto mid = client->Invoke(action.name, action.args);
  if (timeline_) {
    timeline_->Mark(lane, queue_.now_ms(),
                    StrCat(action.name, mid.ok() ? StrCat(" mid ", *mid) : " (rejected)"),
                    "action");
    if (mid.ok()) invoked_at_[{lane, *mid}] = queue_.now_ms();
  }
  if (!mid.ok()) {
    Count("action.client_rejected");
    if (client->backend().inspect().next_mid != before) {
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
    if (auto viol = props::CheckHeadIsSyncPlusPending(c->client_id(), b.engine(), schema_,
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
    for (const auto& [qid, view] : c->views()) {
      const ResultView* v = b.View(qid);
      if (v == nullptr) continue;
      if (auto viol = props::CheckTreeMatchesFresh(
              StrCat(c->client_id(), " view ", qid, " (", view.first.name, ") vs authority"),
              v->Tree(), view.second, store, schema_, "convergence")) {
        return viol;
      }
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
