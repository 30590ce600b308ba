// scenario_generator.cc — see scenario_generator.h.
#include "sim/scenario_generator.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/str_util.h"
#include "oracles/authority_model.h"
#include "oracles/plain_store.h"
#include "sim/rng.h"
#include "sim/swarm.h"
#include "sim/workload_mutators.h"
#include "sim/workload_queries.h"
#include "sim/workload_schema.h"

namespace rindle::sim {
namespace {

struct Knobs {
  int clients = 3;
  int64_t action_gap_ms_min = 20;
  int64_t action_gap_ms_max = 250;
  size_t buffer_cap = 1024;
  NetworkConfig network;
};

Knobs DrawKnobs(Rng& rng) {
  Knobs k;
  k.clients = static_cast<int>(rng.Range(2, 4));
  k.action_gap_ms_min = rng.Range(5, 40);
  k.action_gap_ms_max = k.action_gap_ms_min + rng.Range(20, 300);
  // A third of the runs give the gate a tiny buffer so starvation overflows it (seed 002 §8.5).
  const size_t caps[] = {6, 24, 1024};
  k.buffer_cap = caps[rng.Below(3)];
  k.network.latency_ms_min = rng.Range(1, 5);
  k.network.latency_ms_max = k.network.latency_ms_min + rng.Range(0, 80);
  k.network.push_loss_per_mille = static_cast<uint32_t>(rng.Range(0, 200));
  k.network.push_dup_per_mille = static_cast<uint32_t>(rng.Range(0, 200));
  k.network.ack_loss_per_mille = static_cast<uint32_t>(rng.Range(0, 200));
  return k;
}

// The ids of the model's rows, in pk order: what a client "knows" at generation time.
WorkloadState StateOf(const PlainStore& store) {
  WorkloadState s;
  const std::pair<const char*, std::vector<std::string>*> tables[] = {
      {"issue", &s.issue_ids}, {"comment", &s.comment_ids}, {"tag", &s.tag_ids},
      {"user", &s.user_ids}};
  for (const auto& [table, out] : tables) {
    auto it = store.tables().find(table);
    if (it == store.tables().end()) continue;
    for (const auto& [pk, row] : it->second) {
      if (!row.empty() && row[0].is_string()) out->push_back(row[0].as_string());
    }
  }
  return s;
}

}  // namespace

absl::StatusOr<Scenario> GenerateScenario(uint64_t seed, const GenerateOptions& options) {
  absl::StatusOr<Schema> schema = LoadAppSchema();
  if (!schema.ok()) return schema.status();

  const Rng root(seed);
  Scenario s;
  s.seed = seed;
  s.generated = true;

  Rng config_rng = root.Fork("config");
  const Knobs knobs = DrawKnobs(config_rng);
  Rng swarm_rng = root.Fork("swarm");
  const SwarmDraw swarm = DrawSwarm(swarm_rng, options.swarm);
  s.swarm = swarm.ToJson();

  ScenarioConfig& c = s.config;
  c.clients = knobs.clients;
  c.buffer_cap = knobs.buffer_cap;
  c.network = knobs.network;
  if (!swarm.push_loss) c.network.push_loss_per_mille = 0;
  if (!swarm.push_dup) c.network.push_dup_per_mille = 0;
  if (!swarm.ack_loss) c.network.ack_loss_per_mille = 0;

  Rng seed_rng = root.Fork("seed-data");
  s.seed_rows = SeedData(seed_rng);

  // Action slots: per client, a connect time, two initial retains, then slots every gap.
  struct Slot {
    int64_t t;
    int client;
    int seq;       // per client, in draw order
    bool initial;  // one of the two initial retains
  };
  std::vector<Slot> slots;
  std::vector<Rng> action_rngs;
  for (int i = 0; i < c.clients; ++i) {
    Rng times = root.Fork(StrCat("workload/client/", i, "/times"));
    action_rngs.push_back(root.Fork(StrCat("workload/client/", i, "/actions")));
    c.connect_ms.push_back(times.Range(0, 30));
    int seq = 0;
    for (int k = 0; k < 2; ++k) slots.push_back({times.Range(0, 50), i, seq++, true});
    int64_t t = 0;
    while (true) {
      t += times.Range(knobs.action_gap_ms_min, knobs.action_gap_ms_max);
      if (t > c.safety_ms) break;
      slots.push_back({t, i, seq++, false});
    }
  }
  std::sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
    return std::tie(a.t, a.client, a.seq) < std::tie(b.t, b.client, b.seq);
  });

  // The model the state-dependent draws look at.
  PlainStore initial(*schema);
  for (const auto& [table, rows] : s.seed_rows) {
    for (const auto& r : rows) (void)initial.Add(table, r);
  }
  AuthorityModel model(std::move(initial), ServerMutators());
  std::vector<int64_t> mids(static_cast<size_t>(c.clients), 0);
  std::vector<int64_t> id_counters(static_cast<size_t>(c.clients), 0);
  std::vector<int64_t> next_handle(static_cast<size_t>(c.clients), 1);
  std::vector<std::set<int64_t>> live(static_cast<size_t>(c.clients));
  const std::vector<RemoteQuery> queries = WorkloadQueries();

  for (const Slot& slot : slots) {
    const size_t ci = static_cast<size_t>(slot.client);
    Rng& rng = action_rngs[ci];
    ScenarioAction a;
    a.t_ms = slot.t;
    a.client = slot.client;
    const uint64_t roll = slot.initial ? 0 : rng.Below(1000);
    const bool retain = slot.initial || roll < swarm.retain_per_mille;
    if (retain && !queries.empty()) {
      a.kind = ScenarioAction::Kind::kRetain;
      a.query = rng.Pick(queries);
      a.handle = next_handle[ci]++;
      live[ci].insert(a.handle);
      s.actions.push_back(std::move(a));
      continue;
    }
    if (!slot.initial && roll < swarm.retain_per_mille + swarm.release_per_mille &&
        live[ci].size() > 1) {
      std::vector<int64_t> handles(live[ci].begin(), live[ci].end());
      a.kind = ScenarioAction::Kind::kRelease;
      a.handle = rng.Pick(handles);
      live[ci].erase(a.handle);
      s.actions.push_back(std::move(a));
      continue;
    }
    const MutationAction m = NextMutation(rng, StateOf(model.store()), slot.client, slot.t,
                                          id_counters[ci], swarm.mix);
    (void)model.Process({StrCat("c", slot.client), ++mids[ci], m.name, m.args});
    a.kind = ScenarioAction::Kind::kMutate;
    a.name = m.name;
    a.args = m.args;
    s.actions.push_back(std::move(a));
  }

  // Faults.
  Rng fault_rng = root.Fork("faults");
  auto count = [&](const char* kind) {
    auto it = swarm.fault_counts.find(kind);
    return it == swarm.fault_counts.end() ? 0 : it->second;
  };
  auto at = [&] { return fault_rng.Range(50, c.safety_ms); };
  for (int i = 0; i < count("link_break"); ++i) {
    ScenarioFault f;
    f.kind = ScenarioFault::Kind::kLinkBreak;
    f.client = static_cast<int>(fault_rng.Below(static_cast<uint64_t>(c.clients)));
    f.t_ms = at();
    s.faults.push_back(f);
  }
  for (int i = 0; i < count("authority_restart"); ++i) {
    ScenarioFault f;
    f.kind = ScenarioFault::Kind::kAuthorityRestart;
    f.t_ms = at();
    s.faults.push_back(f);
  }
  for (int i = 0; i < count("partition"); ++i) {
    ScenarioFault f;
    f.kind = ScenarioFault::Kind::kPartition;
    f.client = static_cast<int>(fault_rng.Below(static_cast<uint64_t>(c.clients)));
    f.duration_ms = fault_rng.Range(50, std::max<int64_t>(50, swarm.partition_ms_max));
    f.t_ms = at();
    s.faults.push_back(f);
  }
  for (int i = 0; i < count("progress_starvation"); ++i) {
    ScenarioFault f;
    f.kind = ScenarioFault::Kind::kProgressStarvation;
    f.duration_ms = fault_rng.Range(50, std::max<int64_t>(50, swarm.starvation_ms_max));
    f.t_ms = at();
    s.faults.push_back(f);
  }
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const ScenarioFault& a, const ScenarioFault& b) { return a.t_ms < b.t_ms; });
  return s;
}

}  // namespace rindle::sim
