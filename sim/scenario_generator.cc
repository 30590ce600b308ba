// scenario_generator.cc — see scenario_generator.h.
#include "sim/scenario_generator.h"

#include <algorithm>
#include <map>
#include <optional>
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
  // Per client: live handles → the remote query (nullopt: a local view), and retains scheduled
  // for later (navigation) that become live once their time is reached.
  std::vector<std::map<int64_t, std::optional<RemoteQuery>>> live(static_cast<size_t>(c.clients));
  std::vector<std::multimap<int64_t, std::pair<int64_t, RemoteQuery>>> deferred(
      static_cast<size_t>(c.clients));
  const std::vector<RemoteQuery> queries = WorkloadQueries();
  const std::vector<std::string> local_queries = LocalQueryNames();
  struct FoldWindow {
    int64_t open_ms;
    int64_t close_ms;  // last invoke + debounce
  };
  std::vector<FoldWindow> fold_windows;

  // Fold-legal mutators (blind keyed writes, workload_mutators.h) the mix leaves on.
  std::vector<std::string> fold_mutators;
  for (const char* name : {"editTitle", "setPriority", "setStatus"}) {
    auto it = swarm.mix.weights.find(name);
    if (it != swarm.mix.weights.end() && it->second > 0) fold_mutators.push_back(name);
  }
  if (fold_mutators.empty()) fold_mutators.push_back("setPriority");
  static const std::vector<std::string> kFoldStatuses = {"backlog", "todo", "in-progress",
                                                         "review", "done"};
  static const std::vector<std::string> kDraftBodies = {"wip", "lgtm?", "see above", "needs repro",
                                                        "", "draft — ünïcode"};

  for (const Slot& slot : slots) {
    const size_t ci = static_cast<size_t>(slot.client);
    Rng& rng = action_rngs[ci];
    for (auto it = deferred[ci].begin(); it != deferred[ci].end() && it->first <= slot.t;) {
      live[ci][it->second.first] = it->second.second;
      it = deferred[ci].erase(it);
    }
    ScenarioAction a;
    a.t_ms = slot.t;
    a.client = slot.client;
    const uint64_t roll = slot.initial ? 0 : rng.Below(1000);
    uint64_t bound = swarm.retain_per_mille;
    const bool retain = slot.initial || roll < bound;
    if (retain && !queries.empty()) {
      a.kind = ScenarioAction::Kind::kRetain;
      std::vector<RemoteQuery> remote_live;
      for (const auto& [h, q] : live[ci]) {
        if (q) remote_live.push_back(*q);
      }
      if (!slot.initial && !remote_live.empty() && rng.Below(1000) < swarm.same_query_per_mille) {
        a.query = rng.Pick(remote_live);  // the same query twice on one client: refcount
      } else {
        a.query = rng.Pick(queries);
      }
      a.handle = next_handle[ci]++;
      live[ci][a.handle] = a.query;
      s.actions.push_back(std::move(a));
      continue;
    }
    bound += swarm.release_per_mille;
    if (!slot.initial && roll < bound && live[ci].size() > 1) {
      std::vector<int64_t> handles;
      for (const auto& [h, q] : live[ci]) handles.push_back(h);
      a.kind = ScenarioAction::Kind::kRelease;
      a.handle = rng.Pick(handles);
      live[ci].erase(a.handle);
      s.actions.push_back(a);
      // Navigation: the view is left for another one shortly after.
      if (!queries.empty() && rng.Below(1000) < swarm.navigate_per_mille) {
        const int64_t t = slot.t + rng.Range(1, 30);
        if (t <= c.safety_ms) {
          ScenarioAction r;
          r.kind = ScenarioAction::Kind::kRetain;
          r.t_ms = t;
          r.client = slot.client;
          r.query = rng.Pick(queries);
          r.handle = next_handle[ci]++;
          deferred[ci].emplace(t, std::make_pair(r.handle, r.query));
          s.actions.push_back(std::move(r));
        }
      }
      continue;
    }
    const WorkloadState state = StateOf(model.store());
    bound += swarm.fold_per_mille;
    if (roll < bound && !state.issue_ids.empty()) {
      // A burst of folded invokes of one (mutator, key): a slider dragged for a moment.
      const std::string name = rng.Pick(fold_mutators);
      const std::string issue = rng.Pick(state.issue_ids);
      const int64_t debounce = rng.Range(10, 200);
      std::optional<int64_t> max_wait;
      if (rng.Chance(1, 3)) max_wait = rng.Range(debounce, 3 * debounce);
      const bool defer = rng.Chance(1, 4);
      const int n = static_cast<int>(rng.Range(2, 6));
      int64_t t = slot.t;
      int64_t open = t;
      for (int k = 0; k < n && t <= c.safety_ms; ++k) {
        ScenarioAction f;
        f.kind = ScenarioAction::Kind::kMutateFolded;
        f.t_ms = t;
        f.client = slot.client;
        f.name = name;
        nlohmann::json args = {{"id", issue}, {"updatedAt", t}};
        if (name == "editTitle") {
          args["title"] = rng.Chance(swarm.mix.blank_num, swarm.mix.blank_den)
                              ? std::string("  ")
                              : StrCat("slider title ", rng.Below(1000));
        } else if (name == "setStatus") {
          args["status"] = rng.Pick(kFoldStatuses);
        } else {
          args["priority"] = rng.Pick(PriorityLadder());
        }
        f.args = std::move(args);
        f.fold_key = {{"id", issue}};
        f.debounce_ms = debounce;
        f.max_wait_ms = max_wait;
        f.defer_across_writes = defer;
        s.actions.push_back(std::move(f));
        // Mostly well inside the debounce (the window collapses); sometimes past it (a new one).
        const int64_t gap = rng.Chance(1, 5) ? rng.Range(debounce + 1, 2 * debounce + 1)
                                             : rng.Range(1, std::max<int64_t>(1, debounce / 2));
        if (k + 1 < n) {
          if (t + gap > c.safety_ms) break;
          if (gap > debounce) {
            fold_windows.push_back({open, t + debounce});
            open = t + gap;
          }
          t += gap;
        }
      }
      fold_windows.push_back({open, t + debounce});
      if (rng.Chance(1, 4)) {
        const int64_t ft = t + rng.Range(0, std::max<int64_t>(1, debounce / 2));
        if (ft <= c.safety_ms) {
          ScenarioAction f;
          f.kind = ScenarioAction::Kind::kFlushFolds;
          f.t_ms = ft;
          f.client = slot.client;
          s.actions.push_back(std::move(f));
        }
      }
      continue;
    }
    bound += swarm.flush_folds_per_mille;
    if (roll < bound) {
      a.kind = ScenarioAction::Kind::kFlushFolds;
      s.actions.push_back(std::move(a));
      continue;
    }
    bound += swarm.write_local_per_mille;
    if (roll < bound) {
      a.kind = ScenarioAction::Kind::kWriteLocal;
      const int n = static_cast<int>(rng.Range(1, 3));
      for (int k = 0; k < n; ++k) {
        LocalOp op;
        const uint64_t r = rng.Below(100);
        const std::string issue =
            state.issue_ids.empty() ? std::string("i001") : rng.Pick(state.issue_ids);
        if (r < 40) {
          op.kind = LocalOp::Kind::kSetDraft;
          op.id = StrCat("d", rng.Range(1, 4));
          op.issue_id = issue;
          op.body = rng.Pick(kDraftBodies);
        } else if (r < 60) {
          op.kind = LocalOp::Kind::kClearDraft;
          op.id = StrCat("d", rng.Range(1, 4));
        } else if (r < 80) {
          op.kind = LocalOp::Kind::kSelect;
          op.id = StrCat("s", rng.Range(1, 2));
          op.issue_id = issue;
        } else if (r < 95) {
          op.kind = LocalOp::Kind::kUnselect;
          op.id = StrCat("s", rng.Range(1, 2));
        } else {
          op.kind = LocalOp::Kind::kSyncedWrite;
          op.id = StrCat("local-c", slot.client, "-", rng.Below(1000));
        }
        a.ops.push_back(std::move(op));
      }
      s.actions.push_back(std::move(a));
      continue;
    }
    bound += swarm.local_view_per_mille;
    if (roll < bound && !local_queries.empty()) {
      a.kind = ScenarioAction::Kind::kLocalView;
      a.local_query = rng.Pick(local_queries);
      a.handle = next_handle[ci]++;
      live[ci][a.handle] = std::nullopt;
      s.actions.push_back(std::move(a));
      continue;
    }
    const MutationAction m = NextMutation(rng, state, slot.client, slot.t, id_counters[ci],
                                          swarm.mix);
    (void)model.Process({StrCat("c", slot.client), ++mids[ci], m.name, m.args});
    a.kind = ScenarioAction::Kind::kMutate;
    a.name = m.name;
    a.args = m.args;
    s.actions.push_back(std::move(a));
  }
  // Bursts and navigation retains were generated ahead of their slot: restore time order
  // (stable: equal times keep generation order).
  std::stable_sort(s.actions.begin(), s.actions.end(),
                   [](const ScenarioAction& x, const ScenarioAction& y) { return x.t_ms < y.t_ms; });

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
    // Restart mid-fold: inside an open fold window (between a folded invoke and its flush).
    if (!fold_windows.empty() && fault_rng.Below(1000) < swarm.restart_in_fold_per_mille) {
      const FoldWindow& w = fault_rng.Pick(fold_windows);
      f.t_ms = std::min(c.safety_ms, fault_rng.Range(w.open_ms, std::max(w.open_ms, w.close_ms - 1)));
    }
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
  for (int i = 0; i < count("resubscribe_storm"); ++i) {
    ScenarioFault f;
    f.kind = ScenarioFault::Kind::kResubscribeStorm;
    f.client = static_cast<int>(fault_rng.Below(static_cast<uint64_t>(c.clients)));
    f.count = fault_rng.Range(1, 6);
    f.t_ms = at();
    s.faults.push_back(f);
  }
  for (int i = 0; i < count("schema_skew"); ++i) {
    ScenarioFault f;
    f.kind = ScenarioFault::Kind::kSchemaSkew;
    f.client = static_cast<int>(fault_rng.Below(static_cast<uint64_t>(c.clients)));
    f.t_ms = at();
    s.faults.push_back(f);
  }
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const ScenarioFault& a, const ScenarioFault& b) { return a.t_ms < b.t_ms; });
  return s;
}

}  // namespace rindle::sim
