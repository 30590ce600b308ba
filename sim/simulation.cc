#include "sim/simulation.h"

#include "engine/str_util.h"
#include "oracles/authority_model.h"
#include "oracles/plain_store.h"
#include "sim/query_resolution.h"
#include "sim/workload_mutators.h"
#include "sim/workload_queries.h"
#include "sim/workload_schema.h"

namespace rindle::sim {

nlohmann::json SimConfig::ToJson() const {
  return {{"clients", clients},
          {"safety_ms", safety_ms},
          {"action_gap_ms", {action_gap_ms_min, action_gap_ms_max}},
          {"retain_per_mille", retain_per_mille},
          {"release_per_mille", release_per_mille},
          {"link_breaks", link_breaks},
          {"restarts", restarts},
          {"partitions", partitions},
          {"starvations", starvations},
          {"buffer_cap", buffer_cap},
          {"latency_ms", {network.latency_ms_min, network.latency_ms_max}},
          {"push_loss_per_mille", network.push_loss_per_mille},
          {"push_dup_per_mille", network.push_dup_per_mille},
          {"ack_loss_per_mille", network.ack_loss_per_mille}};
}

SimConfig DrawConfig(Rng& rng) {
  SimConfig c;
  c.clients = static_cast<int>(rng.Range(2, 4));
  c.action_gap_ms_min = rng.Range(5, 40);
  c.action_gap_ms_max = c.action_gap_ms_min + rng.Range(20, 300);
  c.link_breaks = static_cast<int>(rng.Range(0, 4));
  c.restarts = static_cast<int>(rng.Range(0, 2));
  c.partitions = static_cast<int>(rng.Range(0, 2));
  c.starvations = static_cast<int>(rng.Range(0, 2));
  // A third of the runs give the gate a tiny buffer so starvation overflows it (seed 002 §8.5).
  const size_t caps[] = {6, 24, 1024};
  c.buffer_cap = caps[rng.Below(3)];
  c.network.latency_ms_min = rng.Range(1, 5);
  c.network.latency_ms_max = c.network.latency_ms_min + rng.Range(0, 80);
  c.network.push_loss_per_mille = static_cast<uint32_t>(rng.Range(0, 200));
  c.network.push_dup_per_mille = static_cast<uint32_t>(rng.Range(0, 200));
  c.network.ack_loss_per_mille = static_cast<uint32_t>(rng.Range(0, 200));
  return c;
}

Simulation::Simulation(const RunOptions& options)
    : options_(options),
      root_(options.seed),
      workload_rng_(root_.Fork("workload")),
      fault_rng_(root_.Fork("faults")),
      trace_(64) {
  Rng config_rng = root_.Fork("config");
  config_ = DrawConfig(config_rng);
  result_.seed = options.seed;
  if (!options_.trace_path.empty()) {
    auto s = trace_.OpenFile(options_.trace_path);
    if (!s.ok()) setup_status_ = s;
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
}

void Simulation::Setup() {
  auto schema = LoadAppSchema();
  if (!schema.ok()) {
    setup_status_ = schema.status();
    return;
  }
  schema_ = *schema;
  client_mutators_ = ClientMutators();
  std::map<std::string, std::string> user_of;
  for (int i = 0; i < config_.clients; ++i) {
    user_of[StrCat("c", i)] = ClientUserId(i);
  }
  network_ = std::make_unique<Network>(&queue_, root_.Fork("network"), config_.network, &counters_);
  daemon_ = std::make_unique<DaemonAuthority>(
      schema_, ServerMutators(), user_of,
      [this](const std::string& client, ServerFrame frame) {
        auto it = by_id_.find(client);
        if (it == by_id_.end()) return;
        SimClient* c = it->second;
        network_->SendToClient(client, [c, frame = std::move(frame)] { c->Receive(frame); });
      },
      &counters_);
  Rng seed_rng = root_.Fork("seed-data");
  SeedRows seed = SeedData(seed_rng);
  if (auto s = daemon_->Seed(seed); !s.ok()) {
    setup_status_ = s;
    return;
  }
  trace_.Add({{"ev", "config"}, {"seed", options_.seed}, {"config", config_.ToJson()}});
  for (int i = 0; i < config_.clients; ++i) {
    OptimisticOptions opts;
    opts.schema = schema_;
    opts.mutators = client_mutators_;
    opts.buffer_cap = config_.buffer_cap;
    auto client = std::make_unique<SimClient>(i, StrCat("c", i), ClientUserId(i), std::move(opts),
                                              &queue_, network_.get(), daemon_.get(), &trace_,
                                              &counters_, root_.Fork(StrCat("client", i)),
                                              ClientTiming{});
    by_id_[client->client_id()] = client.get();
    clients_.push_back(std::move(client));
  }
  for (auto& c : clients_) {
    SimClient* client = c.get();
    queue_.Schedule(workload_rng_.Range(0, 30), [client] { client->Connect(); });
    // Every client starts with two live queries.
    const auto queries = WorkloadQueries();
    for (int k = 0; k < 2; ++k) {
      const RemoteQuery q = workload_rng_.Pick(queries);
      queue_.Schedule(workload_rng_.Range(0, 50), [this, client, q] {
        if (auto s = client->Retain(q); !s.ok()) {
          Fail({"workload", StrCat(client->client_id(), ": retain failed: ", s.message())});
        }
      });
    }
    ScheduleActions(client);
  }
  ScheduleFaults();
}

void Simulation::ScheduleActions(SimClient* client) {
  const int64_t gap = workload_rng_.Range(config_.action_gap_ms_min, config_.action_gap_ms_max);
  if (queue_.now_ms() + gap > config_.safety_ms) return;
  queue_.Schedule(gap, [this, client] {
    if (healed_) return;
    Act(client);
    ScheduleActions(client);
  });
}

WorkloadState Simulation::StateOf(const SimClient& client) const {
  WorkloadState s;
  const Db& db = client.backend().engine();
  auto ids = [&](const std::string& table, std::vector<std::string>& out) {
    auto rows = db.TableRows(table);
    if (!rows.ok()) return;
    for (const auto& r : *rows) out.push_back(r[0].as_string());
  };
  ids("issue", s.issue_ids);
  ids("comment", s.comment_ids);
  ids("tag", s.tag_ids);
  ids("user", s.user_ids);
  return s;
}

void Simulation::Act(SimClient* client) {
  const uint64_t roll = workload_rng_.Below(1000);
  if (roll < config_.retain_per_mille) {
    const auto queries = WorkloadQueries();
    const RemoteQuery q = workload_rng_.Pick(queries);
    Count("action.retain");
    if (auto s = client->Retain(q); !s.ok()) {
      Fail({"workload", StrCat(client->client_id(), ": retain failed: ", s.message())});
    }
    return;
  }
  if (roll < config_.retain_per_mille + config_.release_per_mille && client->views().size() > 1) {
    std::vector<int64_t> qids;
    for (const auto& [qid, v] : client->views()) qids.push_back(qid);
    Count("action.release");
    client->ReleaseOne(workload_rng_.Pick(qids));
    return;
  }
  const MutationAction action = NextMutation(workload_rng_, StateOf(*client), client->index(),
                                             queue_.now_ms(), id_counters_[client->client_id()]);
  Count(StrCat("action.", action.name));
  const int64_t before = client->backend().inspect().next_mid;
  auto mid = client->Invoke(action.name, action.args);
  if (!mid.ok()) {
    Count("action.client_rejected");
    if (client->backend().inspect().next_mid != before) {
      Fail({"gapless-mids", StrCat(client->client_id(), ": mutator ", action.name,
                                   " failed yet consumed a mid (nextMid ", before, " → ",
                                   client->backend().inspect().next_mid, ")")});
    }
  }
}

void Simulation::ScheduleFaults() {
  auto at = [&] { return fault_rng_.Range(50, config_.safety_ms); };
  for (int i = 0; i < config_.link_breaks; ++i) {
    SimClient* c = clients_[fault_rng_.Below(clients_.size())].get();
    queue_.ScheduleAt(at(), [this, c] {
      if (healed_ || !network_->up(c->client_id())) return;
      Count("fault.link_break");
      network_->Break(c->client_id());
      c->LinkBroken();
    });
  }
  for (int i = 0; i < config_.restarts; ++i) {
    queue_.ScheduleAt(at(), [this] {
      if (healed_) return;
      Count("fault.authority_restart");
      trace_.Add({{"ev", "restart"}, {"t", queue_.now_ms()}});
      daemon_->Restart();
      for (auto& c : clients_) {
        network_->Break(c->client_id());
        c->LinkBroken();
      }
    });
  }
  for (int i = 0; i < config_.partitions; ++i) {
    SimClient* c = clients_[fault_rng_.Below(clients_.size())].get();
    const int64_t duration = fault_rng_.Range(50, config_.partition_ms_max);
    queue_.ScheduleAt(at(), [this, c, duration] {
      if (healed_) return;
      Count("fault.partition");
      network_->Partition(c->client_id(), duration);
      c->LinkBroken();
    });
  }
  for (int i = 0; i < config_.starvations; ++i) {
    const int64_t duration = fault_rng_.Range(50, config_.starvation_ms_max);
    queue_.ScheduleAt(at(), [this, duration] {
      if (healed_) return;
      Count("fault.progress_starvation");
      daemon_->StarveProgress(true);
      queue_.Schedule(duration, [this] { daemon_->StarveProgress(false); });
    });
  }
  queue_.ScheduleAt(config_.safety_ms, [this] { Heal(); });
}

void Simulation::Heal() {
  healed_ = true;
  trace_.Add({{"ev", "heal"}, {"t", queue_.now_ms()}});
  network_->Heal();
  daemon_->StarveProgress(false);
  // A client whose link is down reconnects (a reconnect may already be scheduled).
  for (auto& c : clients_) {
    if (!network_->up(c->client_id())) c->LinkBroken();
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

bool Simulation::quiescent() const { return queue_.empty(); }

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
    // Same purpose ⇒ the same stream: regenerates exactly the seeded rows.
    Rng seed_rng = root_.Fork("seed-data");
    SeedRows seed = SeedData(seed_rng);
    for (const auto& [table, rows] : seed) {
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
  return result_;
}

}  // namespace rindle::sim
