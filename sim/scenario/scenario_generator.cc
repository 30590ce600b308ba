// scenario_generator.cc — see scenario_generator.h. GenerateScenario runs named steps, each
// over its own forked stream, in this order: config, swarm, seed rows, slots (per-client
// times), per-client action streams (ActionStreams), fault schedule. Every range is a knob in
// scenario_knobs.h; the order of the draws is the seeds' scenarios (digests pin it).
#include "sim/scenario/scenario_generator.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/str_util.h"
#include "oracles/authority_model.h"
#include "oracles/plain_store.h"
#include "base/rng.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/scenario/scenario_knobs.h"
#include "sim/scenario/room_sessions.h"
#include "sim/scenario/swarm.h"
#include "sim/workload/catalog.h"
#include "sim/workload/mutators.h"
#include "sim/workload/queries.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

const GeneratorKnobs& K = kGeneratorKnobs;

// The ids of the newest issues (createdAt desc, id asc), at most kPageTop: the top of the
// createdAt-ordered pages (WorkloadState::page_top_issue_ids).
std::vector<std::string> PageTopIssues(const PlainStore& store) {
  constexpr size_t kPageTop = 4;
  auto it = store.tables().find("issue");
  if (it == store.tables().end()) return {};
  const int created = store.schema().at("issue").ColumnIndex("createdAt");
  if (created < 0) return {};
  std::vector<std::pair<int64_t, std::string>> by_age;  // (-createdAt, id)
  for (const auto& [pk, row] : it->second) {
    const Value& c = row[static_cast<size_t>(created)];
    if (!row[0].is_string() || c.kind() != Value::Kind::kInt) continue;
    by_age.emplace_back(-c.as_int(), row[0].as_string());
  }
  std::sort(by_age.begin(), by_age.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < by_age.size() && i < kPageTop; ++i) out.push_back(by_age[i].second);
  return out;
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
  s.page_top_issue_ids = PageTopIssues(store);
  return s;
}

// Step "config": the drawn config, with the network faults the swarm turned off zeroed.
void ApplyConfig(const ConfigDraw& knobs, const SwarmDraw& swarm, ScenarioConfig& c) {
  c.clients = knobs.clients;
  c.buffer_cap = knobs.buffer_cap;
  c.network = knobs.network;
  if (!swarm.push_loss) c.network.push_loss_per_mille = 0;
  if (!swarm.push_dup) c.network.push_dup_per_mille = 0;
  if (!swarm.ack_loss) c.network.ack_loss_per_mille = 0;
  c.transport_retry = swarm.transport_retry;
}

// An action slot: a time a client does something (what, the action stream decides).
struct Slot {
  int64_t t;
  int client;
  int seq;       // per client, in draw order
  bool initial;  // one of the initial retains
};

// Step "slots": per client, a connect time (into c.connect_ms), the initial retains, then a
// slot every drawn gap up to safety_ms; sorted by (t, client, seq). Forks each client's action
// stream into `action_rngs`.
std::vector<Slot> DrawSlots(const Rng& root, const ConfigDraw& knobs, ScenarioConfig& c,
                            std::vector<Rng>& action_rngs) {
  std::vector<Slot> slots;
  for (int i = 0; i < c.clients; ++i) {
    Rng times = root.Fork(StrCat("workload/client/", i, "/times"));
    action_rngs.push_back(root.Fork(StrCat("workload/client/", i, "/actions")));
    c.connect_ms.push_back(times.Range(0, K.connect_ms_max));
    int seq = 0;
    for (int k = 0; k < K.initial_retain_count; ++k) {
      slots.push_back({times.Range(0, K.initial_retain_ms_max), i, seq++, true});
    }
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
  return slots;
}

// An open fold window: from a burst's first folded invoke to its last + debounce.
struct FoldWindow {
  int64_t open_ms;
  int64_t close_ms;
};

// Step "action streams": turns each slot into actions, drawing from its client's stream against
// the generation-time model (the authority model replaying every generated mutation, and per
// client the live and the scheduled view handles).
class ActionStreams {
 public:
  ActionStreams(const Schema& schema, const Scenario& s, const SwarmDraw& swarm,
                std::vector<Rng> rngs, Rng query_rng)
      : swarm_(swarm),
        safety_ms_(s.config.safety_ms),
        rngs_(std::move(rngs)),
        model_(InitialStore(schema, s.seed_rows), ServerMutators()),
        mids_(Clients(s), 0),
        id_counters_(Clients(s), 0),
        next_handle_(Clients(s), 1),
        live_(Clients(s)),
        deferred_(Clients(s)),
        query_rng_(std::move(query_rng)),
        tour_left_(Catalog().size()),
        local_queries_(LocalQueryNames()),
        fold_mutators_(FoldMutators(swarm)) {
    RINDLE_CHECK_EQ(rngs_.size(), Clients(s));
  }

  // Appends the slot's actions (some may lie ahead of the slot's time) to `out`.
  void Generate(const Slot& slot, std::vector<ScenarioAction>& out);
  const std::vector<FoldWindow>& fold_windows() const { return fold_windows_; }

 private:
  static size_t Clients(const Scenario& s) { return static_cast<size_t>(s.config.clients); }
  static PlainStore InitialStore(const Schema& schema, const SeedRows& rows);
  static std::vector<std::string> FoldMutators(const SwarmDraw& swarm);

  RemoteQuery DealQuery();
  void Visit(const Slot& slot, ScenarioAction a, std::vector<ScenarioAction>& out);
  void Retain(const Slot& slot, ScenarioAction a, std::vector<ScenarioAction>& out);
  void Release(const Slot& slot, ScenarioAction a, std::vector<ScenarioAction>& out);
  void FoldBurst(const Slot& slot, const WorkloadState& state, std::vector<ScenarioAction>& out);
  nlohmann::json FoldArgs(Rng& rng, const std::string& name, const std::string& issue, int64_t t);
  void WriteLocal(const Slot& slot, const WorkloadState& state, ScenarioAction a,
                  std::vector<ScenarioAction>& out);
  LocalOp DrawLocalOp(Rng& rng, const WorkloadState& state, int client);
  void LocalView(ScenarioAction a, std::vector<ScenarioAction>& out);
  void Mutate(const Slot& slot, const WorkloadState& state, ScenarioAction a,
              std::vector<ScenarioAction>& out);

  const SwarmDraw& swarm_;
  const int64_t safety_ms_;
  std::vector<Rng> rngs_;  // per client: "workload/client/<i>/actions"
  AuthorityModel model_;
  std::vector<int64_t> mids_;
  std::vector<int64_t> id_counters_;
  std::vector<int64_t> next_handle_;
  // Per client: live handles → the remote query (nullopt: a local view), and retains scheduled
  // for later (navigation) that become live once their time is reached.
  std::vector<std::map<int64_t, std::optional<RemoteQuery>>> live_;
  std::vector<std::multimap<int64_t, std::pair<int64_t, RemoteQuery>>> deferred_;
  // The query catalog as a deck of shapes (catalog.h), dealt in a per-seed shuffled order and
  // reshuffled when empty, so a seed's first |catalog| retains cover every shape; each dealt shape
  // gets args drawn once per seed (instances_), so a shape dealt again shares its subscription.
  // tour_left_: visits still owed to the first pass (see Visit).
  Rng query_rng_;
  std::map<std::string, RemoteQuery> instances_;
  std::set<std::string> seen_issues_;  // every issue id the model ever held (deleted ids reused)
  std::vector<std::string> deck_;
  size_t tour_left_;
  const std::vector<std::string> local_queries_;
  // Fold-legal mutators (blind keyed writes, workload_mutators.h) the mix leaves on.
  const std::vector<std::string> fold_mutators_;
  std::vector<FoldWindow> fold_windows_;
};

PlainStore ActionStreams::InitialStore(const Schema& schema, const SeedRows& rows) {
  PlainStore initial(schema);
  for (const auto& [table, list] : rows) {
    for (const auto& r : list) (void)initial.Add(table, r);
  }
  return initial;
}

std::vector<std::string> ActionStreams::FoldMutators(const SwarmDraw& swarm) {
  std::vector<std::string> out;
  for (const char* name : {"editTitle", "setPriority", "setStatus"}) {
    auto it = swarm.mix.weights.find(name);
    if (it != swarm.mix.weights.end() && it->second > 0) out.push_back(name);
  }
  if (out.empty()) out.push_back("setPriority");
  return out;
}

// The slot kind by the swarm's cumulative per-mille shares of one roll.
void ActionStreams::Generate(const Slot& slot, std::vector<ScenarioAction>& out) {
  const size_t ci = static_cast<size_t>(slot.client);
  Rng& rng = rngs_[ci];
  for (auto it = deferred_[ci].begin(); it != deferred_[ci].end() && it->first <= slot.t;) {
    live_[ci][it->second.first] = it->second.second;
    it = deferred_[ci].erase(it);
  }
  ScenarioAction a;
  a.t_ms = slot.t;
  a.client = slot.client;
  if (!slot.initial && tour_left_ > 0 && rng.Chance(K.catalog_visit_odds.num,
                                                     K.catalog_visit_odds.den)) {
    return Visit(slot, std::move(a), out);
  }
  const uint64_t roll = slot.initial ? 0 : rng.Below(1000);
  uint64_t bound = swarm_.retain_per_mille;
  if (slot.initial || roll < bound) return Retain(slot, std::move(a), out);
  bound += swarm_.release_per_mille;
  if (!slot.initial && roll < bound && live_[ci].size() > 1) {
    return Release(slot, std::move(a), out);
  }
  WorkloadState state = StateOf(model_.store());
  std::set<std::string> live(state.issue_ids.begin(), state.issue_ids.end());
  seen_issues_.insert(state.issue_ids.begin(), state.issue_ids.end());
  for (const std::string& id : seen_issues_) {
    if (!live.contains(id)) state.deleted_issue_ids.push_back(id);
  }
  bound += swarm_.fold_per_mille;
  if (roll < bound && !state.issue_ids.empty()) return FoldBurst(slot, state, out);
  bound += swarm_.flush_folds_per_mille;
  if (roll < bound) {
    a.kind = ScenarioAction::Kind::kFlushFolds;
    out.push_back(std::move(a));
    return;
  }
  bound += swarm_.write_local_per_mille;
  if (roll < bound) return WriteLocal(slot, state, std::move(a), out);
  bound += swarm_.local_view_per_mille;
  if (roll < bound && !local_queries_.empty()) return LocalView(std::move(a), out);
  Mutate(slot, state, std::move(a), out);
}

RemoteQuery ActionStreams::DealQuery() {
  if (deck_.empty()) {
    for (const CatalogEntry& e : Catalog()) deck_.push_back(e.key);
    for (size_t i = deck_.size(); i > 1; --i) {  // Fisher-Yates, dealt from the back
      std::swap(deck_[i - 1], deck_[static_cast<size_t>(query_rng_.Below(i))]);
    }
  }
  const std::string key = deck_.back();
  deck_.pop_back();
  auto it = instances_.find(key);
  if (it == instances_.end()) it = instances_.emplace(key, DrawCatalogQuery(query_rng_, key)).first;
  return it->second;
}

// A catalog visit: a view of the next dealt shape, opened and closed again shortly after (a
// screen the user glances at), outside live_ so no other release or refcount retain picks it.
// One pass over the catalog per seed, whatever the swarm's retain rate, so every shape runs.
void ActionStreams::Visit(const Slot& slot, ScenarioAction a, std::vector<ScenarioAction>& out) {
  const size_t ci = static_cast<size_t>(slot.client);
  --tour_left_;
  a.kind = ScenarioAction::Kind::kRetain;
  a.query = DealQuery();
  a.handle = next_handle_[ci]++;
  const int64_t handle = a.handle;
  out.push_back(std::move(a));
  const int64_t t = slot.t + rngs_[ci].Range(K.catalog_visit_ms_min, K.catalog_visit_ms_max);
  if (t > safety_ms_ || swarm_.release_per_mille == 0) return;  // the swarm turned releases off
  ScenarioAction r;
  r.kind = ScenarioAction::Kind::kRelease;
  r.t_ms = t;
  r.client = slot.client;
  r.handle = handle;
  out.push_back(std::move(r));
}

void ActionStreams::Retain(const Slot& slot, ScenarioAction a, std::vector<ScenarioAction>& out) {
  const size_t ci = static_cast<size_t>(slot.client);
  Rng& rng = rngs_[ci];
  a.kind = ScenarioAction::Kind::kRetain;
  std::vector<RemoteQuery> remote_live;
  for (const auto& [h, q] : live_[ci]) {
    if (q) remote_live.push_back(*q);
  }
  if (!slot.initial && !remote_live.empty() && rng.Below(1000) < swarm_.same_query_per_mille) {
    a.query = rng.Pick(remote_live);  // the same query twice on one client: refcount
  } else {
    a.query = DealQuery();
  }
  a.handle = next_handle_[ci]++;
  live_[ci][a.handle] = a.query;
  out.push_back(std::move(a));
}

void ActionStreams::Release(const Slot& slot, ScenarioAction a,
                            std::vector<ScenarioAction>& out) {
  const size_t ci = static_cast<size_t>(slot.client);
  Rng& rng = rngs_[ci];
  std::vector<int64_t> handles;
  for (const auto& [h, q] : live_[ci]) handles.push_back(h);
  a.kind = ScenarioAction::Kind::kRelease;
  a.handle = rng.Pick(handles);
  live_[ci].erase(a.handle);
  out.push_back(a);
  // Navigation: the view is left for another one shortly after.
  if (rng.Below(1000) >= swarm_.navigate_per_mille) return;
  const int64_t t = slot.t + rng.Range(K.navigate_delay_ms_min, K.navigate_delay_ms_max);
  if (t > safety_ms_) return;
  ScenarioAction r;
  r.kind = ScenarioAction::Kind::kRetain;
  r.t_ms = t;
  r.client = slot.client;
  r.query = DealQuery();
  r.handle = next_handle_[ci]++;
  deferred_[ci].emplace(t, std::make_pair(r.handle, r.query));
  out.push_back(std::move(r));
}

const std::vector<std::string>& FoldStatuses() {
  static const std::vector<std::string> kStatuses = {"backlog", "todo", "in-progress", "review",
                                                     "done"};
  return kStatuses;
}

const std::vector<std::string>& DraftBodies() {
  static const std::vector<std::string> kBodies = {"wip", "lgtm?", "see above", "needs repro",
                                                   "", "draft — ünïcode"};
  return kBodies;
}

nlohmann::json ActionStreams::FoldArgs(Rng& rng, const std::string& name,
                                       const std::string& issue, int64_t t) {
  nlohmann::json args = {{"id", issue}, {"updatedAt", t}};
  if (name == "editTitle") {
    args["title"] = rng.Chance(swarm_.mix.blank_num, swarm_.mix.blank_den)
                        ? std::string("  ")
                        : StrCat("slider title ", rng.Below(K.slider_title_max_count));
  } else if (name == "setStatus") {
    args["status"] = rng.Pick(FoldStatuses());
  } else {
    args["priority"] = rng.Pick(PriorityLadder());
  }
  return args;
}

// A burst of folded invokes of one (mutator, key): a slider dragged for a moment; sometimes
// closed by a flush_folds. Records the fold windows it opens (for restart-in-fold faults).
void ActionStreams::FoldBurst(const Slot& slot, const WorkloadState& state,
                              std::vector<ScenarioAction>& out) {
  Rng& rng = rngs_[static_cast<size_t>(slot.client)];
  const std::string name = rng.Pick(fold_mutators_);
  const std::string issue = rng.Pick(state.issue_ids);
  const int64_t debounce = rng.Range(K.fold_debounce_ms_min, K.fold_debounce_ms_max);
  std::optional<int64_t> max_wait;
  if (rng.Chance(K.fold_max_wait_odds.num, K.fold_max_wait_odds.den)) {
    max_wait = rng.Range(debounce, K.fold_max_wait_debounces * debounce);
  }
  const bool defer = rng.Chance(K.fold_defer_odds.num, K.fold_defer_odds.den);
  const int n = static_cast<int>(rng.Range(K.fold_burst_min_count, K.fold_burst_max_count));
  int64_t t = slot.t;
  int64_t open = t;
  for (int k = 0; k < n && t <= safety_ms_; ++k) {
    ScenarioAction f;
    f.kind = ScenarioAction::Kind::kMutateFolded;
    f.t_ms = t;
    f.client = slot.client;
    f.name = name;
    f.args = FoldArgs(rng, name, issue, t);
    f.fold_key = {{"id", issue}};
    f.debounce_ms = debounce;
    f.max_wait_ms = max_wait;
    f.defer_across_writes = defer;
    out.push_back(std::move(f));
    // Mostly well inside the debounce (the window collapses); sometimes past it (a new one).
    const int64_t gap =
        rng.Chance(K.fold_gap_past_debounce_odds.num, K.fold_gap_past_debounce_odds.den)
            ? rng.Range(debounce + 1, 2 * debounce + 1)
            : rng.Range(1, std::max<int64_t>(1, debounce / 2));
    if (k + 1 < n) {
      if (t + gap > safety_ms_) break;
      if (gap > debounce) {
        fold_windows_.push_back({open, t + debounce});
        open = t + gap;
      }
      t += gap;
    }
  }
  fold_windows_.push_back({open, t + debounce});
  if (!rng.Chance(K.fold_flush_after_odds.num, K.fold_flush_after_odds.den)) return;
  const int64_t ft = t + rng.Range(0, std::max<int64_t>(1, debounce / 2));
  if (ft > safety_ms_) return;
  ScenarioAction f;
  f.kind = ScenarioAction::Kind::kFlushFolds;
  f.t_ms = ft;
  f.client = slot.client;
  out.push_back(std::move(f));
}

// One write_local intent on drafts d1..dN / selection s1..sN, rarely an illegal synced write.
LocalOp ActionStreams::DrawLocalOp(Rng& rng, const WorkloadState& state, int client) {
  LocalOp op;
  const uint64_t r = rng.Below(100);
  const std::string issue =
      state.issue_ids.empty() ? std::string("i001") : rng.Pick(state.issue_ids);
  if (r < K.set_draft_below) {
    op.kind = LocalOp::Kind::kSetDraft;
    op.id = StrCat("d", rng.Range(1, K.draft_ids_count));
    op.issue_id = issue;
    op.body = rng.Pick(DraftBodies());
  } else if (r < K.clear_draft_below) {
    op.kind = LocalOp::Kind::kClearDraft;
    op.id = StrCat("d", rng.Range(1, K.draft_ids_count));
  } else if (r < K.select_below) {
    op.kind = LocalOp::Kind::kSelect;
    op.id = StrCat("s", rng.Range(1, K.selection_ids_count));
    op.issue_id = issue;
  } else if (r < K.unselect_below) {
    op.kind = LocalOp::Kind::kUnselect;
    op.id = StrCat("s", rng.Range(1, K.selection_ids_count));
  } else {
    op.kind = LocalOp::Kind::kSyncedWrite;
    op.id = StrCat("local-c", client, "-", rng.Below(K.synced_write_id_max_count));
  }
  return op;
}

void ActionStreams::WriteLocal(const Slot& slot, const WorkloadState& state, ScenarioAction a,
                               std::vector<ScenarioAction>& out) {
  Rng& rng = rngs_[static_cast<size_t>(slot.client)];
  a.kind = ScenarioAction::Kind::kWriteLocal;
  const int n = static_cast<int>(rng.Range(K.write_local_min_count, K.write_local_max_count));
  for (int k = 0; k < n; ++k) a.ops.push_back(DrawLocalOp(rng, state, slot.client));
  out.push_back(std::move(a));
}

void ActionStreams::LocalView(ScenarioAction a, std::vector<ScenarioAction>& out) {
  const size_t ci = static_cast<size_t>(a.client);
  a.kind = ScenarioAction::Kind::kLocalView;
  a.local_query = rngs_[ci].Pick(local_queries_);
  a.handle = next_handle_[ci]++;
  live_[ci][a.handle] = std::nullopt;
  out.push_back(std::move(a));
}

// A mutate, also replayed on the model so later draws see its effect.
void ActionStreams::Mutate(const Slot& slot, const WorkloadState& state, ScenarioAction a,
                           std::vector<ScenarioAction>& out) {
  const size_t ci = static_cast<size_t>(slot.client);
  const MutationAction m =
      NextMutation(rngs_[ci], state, slot.client, slot.t, id_counters_[ci], swarm_.mix);
  (void)model_.Process({StrCat("c", slot.client), ++mids_[ci], m.name, m.args});
  a.kind = ScenarioAction::Kind::kMutate;
  a.name = m.name;
  a.args = m.args;
  out.push_back(std::move(a));
}

// The longest window of a fault kind with a duration (the swarm's draw for it).
int64_t FaultDurationMsMax(const SwarmDraw& swarm, ScenarioFault::Kind kind) {
  switch (kind) {
    case ScenarioFault::Kind::kPartition: return swarm.partition_ms_max;
    case ScenarioFault::Kind::kProgressStarvation: return swarm.starvation_ms_max;
    default: break;
  }
  RINDLE_CHECK_MSG(false, StrCat("fault kind ", FaultKindName(kind), " has a duration_ms field "
                                 "but no swarm maximum (FaultDurationMsMax)"));
  return 0;
}

// Faults before a connect: each fault, with the swarm's early_fault_per_mille, moves to a time
// in [0, connect + slack] of its client (a fault with no client: of the last client to connect)
// — a fault around a client's first connect is a case real apps meet (a flaky network at app
// start). Its own stream ("faults/early"), so the main fault draws are unchanged.
void PlaceEarlyFaults(const Rng& root, const ScenarioConfig& c, const SwarmDraw& swarm,
                      std::vector<ScenarioFault>& faults) {
  if (swarm.early_fault_per_mille == 0) return;
  Rng early = root.Fork("faults/early");
  const int64_t last_connect = *std::max_element(c.connect_ms.begin(), c.connect_ms.end());
  for (ScenarioFault& f : faults) {
    if (early.Below(1000) >= swarm.early_fault_per_mille) continue;
    const int64_t connect =
        FaultTargetsClient(f.kind) ? c.connect_ms[static_cast<size_t>(f.client)] : last_connect;
    f.t_ms = std::min(c.safety_ms, early.Range(0, connect + K.early_fault_slack_ms));
  }
}

// A snapshot_overtake arms its client's stall (frame_faults.h) a lead of
// [overtake_lead_ms_min, max] before one of that client's retains, so the retain's hello comes
// while the stall holds other queries' batches — at a uniform time it rarely does. Its own
// stream ("faults/overtake"): the main fault draws are unchanged. A client without a retain keeps
// its time.
void PlaceOvertakes(const Rng& root, const ScenarioConfig& c,
                    const std::vector<ScenarioAction>& actions,
                    std::vector<ScenarioFault>& faults) {
  Rng rng = root.Fork("faults/overtake");
  for (ScenarioFault& f : faults) {
    if (f.kind != ScenarioFault::Kind::kSnapshotOvertake) continue;
    std::vector<int64_t> retains;
    for (const ScenarioAction& a : actions) {
      if (a.kind == ScenarioAction::Kind::kRetain && a.client == f.client &&
          a.t_ms <= c.safety_ms) {
        retains.push_back(a.t_ms);
      }
    }
    if (retains.empty()) continue;
    const int64_t t = rng.Pick(retains);
    f.t_ms = std::max<int64_t>(K.fault_earliest_ms,
                               t - rng.Range(K.overtake_lead_ms_min, K.overtake_lead_ms_max));
  }
}

// An authority_rollback lands in the second half of the safety phase: the client refuses an
// authority that forgot confirmations it saw (seed 002 foldConfirm; client.
// ledger_regression_refused) and is out of every check from then on, so a rollback at a uniform
// time would cost a refused client half its run on average: with rollbacks in 3 of 4 swarm
// seeds, refused clients skipped 12.1% of the actions of seeds 1..200 at a uniform time, 5.6%
// here (4.4% with rollbacks in 1 of 4). Its own stream ("faults/rollback"), so the main fault
// draws are unchanged.
void PlaceRollbacks(const Rng& root, const ScenarioConfig& c, std::vector<ScenarioFault>& faults) {
  Rng rng = root.Fork("faults/rollback");
  for (ScenarioFault& f : faults) {
    if (f.kind != ScenarioFault::Kind::kAuthorityRollback) continue;
    f.t_ms = rng.Range(std::max(K.fault_earliest_ms, c.safety_ms / 2), c.safety_ms);
  }
}

bool FaultKindOn(const SwarmDraw& swarm, ScenarioFault::Kind kind) {
  auto it = swarm.fault_counts.find(std::string(FaultKindName(kind)));
  return it != swarm.fault_counts.end() && it->second > 0;
}

// A link break inside a progress_starvation window: the gate holds the batches the withheld
// progress would release, and the dead connection's buffered frames must go (seed 002 §8.4:
// client.connection_frames_dropped; at a uniform time a break met a non-empty buffer in under
// half the seeds). With starved_break_odds per window, a break of a drawn client at [1/3, 1) of
// it — a link_break when the swarm has that kind on, else a partition of at most
// fault_duration_ms_min when it has partition on (a disabled kind stays unused). Its own stream
// ("faults/starved-break"): every other draw of a seed is unchanged.
void PlaceStarvedBreaks(const Rng& root, const ScenarioConfig& c, const SwarmDraw& swarm,
                        std::vector<ScenarioFault>& faults) {
  const bool breaks_on = FaultKindOn(swarm, ScenarioFault::Kind::kLinkBreak);
  if (!breaks_on && !FaultKindOn(swarm, ScenarioFault::Kind::kPartition)) return;
  Rng rng = root.Fork("faults/starved-break");
  std::vector<ScenarioFault> breaks;
  for (const ScenarioFault& f : faults) {
    if (f.kind != ScenarioFault::Kind::kProgressStarvation) continue;
    if (!rng.Chance(K.starved_break_odds.num, K.starved_break_odds.den)) continue;
    ScenarioFault b;
    b.kind = breaks_on ? ScenarioFault::Kind::kLinkBreak : ScenarioFault::Kind::kPartition;
    b.client = static_cast<int>(rng.Below(static_cast<uint64_t>(c.clients)));
    if (!breaks_on) b.duration_ms = rng.Range(1, K.fault_duration_ms_min);
    b.t_ms = std::min(c.safety_ms, f.t_ms + rng.Range(f.duration_ms / 3,
                                                      std::max<int64_t>(f.duration_ms / 3,
                                                                        f.duration_ms - 1)));
    breaks.push_back(b);
  }
  faults.insert(faults.end(), breaks.begin(), breaks.end());
}

// A link loss before a client's first connect (issue 11: a 1 ms partition before the connect left
// an acked mutation pending forever): the reconnect the loss schedules meets the live session of
// the first connect (client.reconnect_superseded). With early_link_loss_odds: a partition of a
// drawn client ending before its connect when the swarm has partition on, else an authority
// restart before the last client's connect when it has authority_restart on. Its own stream
// ("faults/early-link-loss").
void PlaceEarlyLinkLoss(const Rng& root, const ScenarioConfig& c, const SwarmDraw& swarm,
                        std::vector<ScenarioFault>& faults) {
  Rng rng = root.Fork("faults/early-link-loss");
  if (!rng.Chance(K.early_link_loss_odds.num, K.early_link_loss_odds.den)) return;
  ScenarioFault f;
  if (FaultKindOn(swarm, ScenarioFault::Kind::kPartition)) {
    f.kind = ScenarioFault::Kind::kPartition;
    f.client = static_cast<int>(rng.Below(static_cast<uint64_t>(c.clients)));
    const int64_t connect = c.connect_ms[static_cast<size_t>(f.client)];
    if (connect < 2) return;  // no room for a window that ends before it
    f.t_ms = rng.Range(0, connect - 2);
    f.duration_ms = rng.Range(1, connect - f.t_ms - 1);
  } else if (FaultKindOn(swarm, ScenarioFault::Kind::kAuthorityRestart)) {
    const int64_t last_connect = *std::max_element(c.connect_ms.begin(), c.connect_ms.end());
    if (last_connect < 1) return;
    f.kind = ScenarioFault::Kind::kAuthorityRestart;
    f.t_ms = rng.Range(0, last_connect - 1);
  } else {
    return;
  }
  faults.push_back(f);
}

// Step "fault schedule": every kind in the kinds table's draw order, the swarm's count of it;
// per fault the client, duration and count its row has, then its time. An authority_restart
// may be moved inside an open fold window. Sorted stably by time.
std::vector<ScenarioFault> ScheduleFaults(const Rng& root, const ScenarioConfig& c,
                                          const SwarmDraw& swarm,
                                          const std::vector<FoldWindow>& fold_windows,
                                          const std::vector<ScenarioAction>& actions) {
  Rng fault_rng = root.Fork("faults");
  auto at = [&] { return fault_rng.Range(K.fault_earliest_ms, c.safety_ms); };
  std::vector<ScenarioFault> faults;
  for (const FaultKindSpec* spec : FaultKindsInDrawOrder()) {
    if (FaultNamesRoom(spec->kind)) continue;  // the room pass places them (AddRoomSessions)
    auto it = swarm.fault_counts.find(std::string(spec->name));
    const int count = it == swarm.fault_counts.end() ? 0 : it->second;
    for (int i = 0; i < count; ++i) {
      ScenarioFault f;
      f.kind = spec->kind;
      if (FaultTargetsClient(f.kind)) {
        f.client = static_cast<int>(fault_rng.Below(static_cast<uint64_t>(c.clients)));
      }
      if (FaultHasDuration(f.kind)) {
        f.duration_ms = fault_rng.Range(
            K.fault_duration_ms_min,
            std::max<int64_t>(K.fault_duration_ms_min, FaultDurationMsMax(swarm, f.kind)));
      }
      if (FaultHasCount(f.kind)) f.count = fault_rng.Range(1, K.storm_cycles_max_count);
      f.t_ms = at();
      // Restart mid-fold: inside an open fold window (between a folded invoke and its flush).
      if (f.kind == ScenarioFault::Kind::kAuthorityRestart && !fold_windows.empty() &&
          fault_rng.Below(1000) < swarm.restart_in_fold_per_mille) {
        const FoldWindow& w = fault_rng.Pick(fold_windows);
        f.t_ms = std::min(c.safety_ms,
                          fault_rng.Range(w.open_ms, std::max(w.open_ms, w.close_ms - 1)));
      }
      faults.push_back(f);
    }
  }
  PlaceOvertakes(root, c, actions, faults);
  PlaceRollbacks(root, c, faults);
  PlaceEarlyFaults(root, c, swarm, faults);
  PlaceStarvedBreaks(root, c, swarm, faults);
  PlaceEarlyLinkLoss(root, c, swarm, faults);
  std::stable_sort(faults.begin(), faults.end(),
                   [](const ScenarioFault& a, const ScenarioFault& b) { return a.t_ms < b.t_ms; });
  return faults;
}

// A card drag for each snapshot_overtake: another client (the only one, with one client) moves
// one seed issue through two board columns (setStatus twice, distinct statuses, the second
// "done" half the time) between the
// arming and the retain that follows it — so the stall holds a batch that writes the issue, then
// one where it leaves a status-filtered view, and the retain's snapshot carries its newer status:
// applied in arrival order instead of (cv, arrival) the view would show the older column (seed
// 002 §5.1; frame_faults.h counts it as fault.overtake_effective). Its own stream
// ("workload/card-drags"), so every other draw of a seed is unchanged. None when the swarm
// turned setStatus off (a disabled mutator stays unused).
// The board screen of a card drag (issue 11, mutant 018): the overtaken client looks at ONE
// board column — every other remote view it holds is released `kBoardLeadMs` before the arming,
// and its retains until the drag's retain are dropped — showing the drag's first status; the
// retain that follows is the column of its second. So one query (that column) ships the card's
// write and then its leaving, and only the new column's snapshot carries the newer status: no
// other view of the client re-ships the row in the release that the overtaking snapshot shares
// with those batches (with a list of every issue live, its edit batch re-ships the newer status
// and masks an arrival-order release). Counted as fault.overtake_lone_query (frame_faults.h).
struct BoardScreen {
  int client = 0;
  int64_t from_ms = 0;  // the other views released, the first column retained
  int64_t to_ms = 0;    // the drag's retain: the second column
  std::string first, second;
};
constexpr int64_t kBoardLeadMs = 250;  // two round trips at the widest latency, and a margin

// The catalog's board-column shape (fixtures/app: issuesPage with one status facet).
RemoteQuery BoardColumn(const std::string& status) {
  nlohmann::json facet = nlohmann::json::object();
  facet["axis"] = "status";
  facet["value"] = status;
  nlohmann::json args = nlohmann::json::object();
  args["limit"] = 20;
  args["filter"] = nlohmann::json::array({facet});
  return RemoteQuery{"issuesPage", std::move(args)};
}

void ApplyBoardScreen(const BoardScreen& b, std::vector<ScenarioAction>& actions) {
  std::set<int64_t> live;
  int64_t next_handle = 1;
  std::vector<ScenarioAction> kept;
  for (ScenarioAction& a : actions) {
    const bool mine = a.client == b.client;
    if (mine && (a.kind == ScenarioAction::Kind::kRetain ||
                 a.kind == ScenarioAction::Kind::kLocalView)) {
      next_handle = std::max(next_handle, a.handle + 1);
    }
    if (mine && a.kind == ScenarioAction::Kind::kRetain) {
      if (a.t_ms == b.to_ms) {
        a.query = BoardColumn(b.second);
      } else if (a.t_ms >= b.from_ms && a.t_ms < b.to_ms) {
        continue;  // the board screen opens nothing else
      } else if (a.t_ms < b.from_ms) {
        live.insert(a.handle);
      }
    }
    if (mine && a.kind == ScenarioAction::Kind::kRelease && a.t_ms < b.from_ms) {
      live.erase(a.handle);
    }
    kept.push_back(std::move(a));
  }
  for (int64_t h : live) {  // releases of these later on are no-ops (action.release_noop)
    ScenarioAction r;
    r.t_ms = b.from_ms;
    r.client = b.client;
    r.kind = ScenarioAction::Kind::kRelease;
    r.handle = h;
    kept.push_back(std::move(r));
  }
  ScenarioAction column;
  column.t_ms = b.from_ms;
  column.client = b.client;
  column.kind = ScenarioAction::Kind::kRetain;
  column.query = BoardColumn(b.first);
  column.handle = next_handle;
  kept.push_back(std::move(column));
  std::stable_sort(kept.begin(), kept.end(), [](const ScenarioAction& x, const ScenarioAction& y) {
    return x.t_ms < y.t_ms;
  });
  actions = std::move(kept);
}

void AddCardDrags(const Rng& root, Scenario& s) {
  Rng rng = root.Fork("workload/card-drags");
  // Its own stream: the drags' draws are those of a seed without board screens.
  Rng board_rng = root.Fork("workload/board-screens");
  std::vector<BoardScreen> boards;
  const bool releases = s.swarm.value("release_per_mille", 0) > 0;
  const std::vector<std::string>& statuses = FindMutatorArg("setStatus", "status")->values;
  auto issues = s.seed_rows.find("issue");
  if (issues == s.seed_rows.end() || issues->second.empty()) return;
  const nlohmann::json& weights = s.swarm["mutators"];
  if (!weights.contains("setStatus") || weights["setStatus"].get<int64_t>() == 0) return;
  std::vector<ScenarioAction> drags;
  for (const ScenarioFault& f : s.faults) {
    if (f.kind != ScenarioFault::Kind::kSnapshotOvertake) continue;
    auto retain = std::find_if(s.actions.begin(), s.actions.end(), [&](const ScenarioAction& a) {
      return a.kind == ScenarioAction::Kind::kRetain && a.client == f.client && a.t_ms >= f.t_ms;
    });
    if (retain == s.actions.end() || retain->t_ms - f.t_ms < 60) continue;
    const int64_t t1 = rng.Range(f.t_ms, retain->t_ms - 40);
    const int64_t t2 = rng.Range(t1 + 1, retain->t_ms - 20);
    const int others = s.config.clients - 1;
    const int client =
        others == 0 ? 0
                    : (f.client + 1 + static_cast<int>(rng.Below(static_cast<uint64_t>(others)))) %
                          s.config.clients;
    const RowValues& row = rng.Pick(issues->second);
    // Half the drags end in "done": many views filter done issues out (status != done, NOT IN).
    const size_t done = static_cast<size_t>(
        std::find(statuses.begin(), statuses.end(), "done") - statuses.begin());
    const size_t second = rng.Chance(1, 2) && done < statuses.size()
                              ? done
                              : static_cast<size_t>(rng.Below(statuses.size()));
    const size_t first = (second + 1 + rng.Below(statuses.size() - 1)) % statuses.size();
    const std::pair<int64_t, std::string> steps[] = {{t1, statuses[first]},
                                                     {t2, statuses[second]}};
    for (const auto& [t, status] : steps) {
      ScenarioAction a;
      a.t_ms = t;
      a.client = client;
      a.kind = ScenarioAction::Kind::kMutate;
      a.name = "setStatus";
      a.args = {{"id", row[0].as_string()}, {"status", status}, {"updatedAt", t}};
      drags.push_back(std::move(a));
    }
    // A board screen releases views: none when the swarm turned releases off.
    if (board_rng.Chance(1, 2) && releases && f.t_ms >= kBoardLeadMs &&
        (boards.empty() || boards.back().to_ms < f.t_ms - kBoardLeadMs)) {
      boards.push_back(BoardScreen{f.client, f.t_ms - kBoardLeadMs, retain->t_ms,
                                   statuses[first], statuses[second]});
    }
  }
  if (drags.empty()) return;
  for (ScenarioAction& a : drags) s.actions.push_back(std::move(a));
  std::stable_sort(s.actions.begin(), s.actions.end(),
                   [](const ScenarioAction& x, const ScenarioAction& y) { return x.t_ms < y.t_ms; });
  for (const BoardScreen& b : boards) ApplyBoardScreen(b, s.actions);
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
  const ConfigDraw knobs = DrawConfig(config_rng);
  Rng swarm_rng = root.Fork("swarm");
  const SwarmDraw swarm = DrawSwarm(swarm_rng, options.swarm);
  s.swarm = swarm.ToJson();
  ApplyConfig(knobs, swarm, s.config);
  s.config.room_views = options.room_views;

  Rng seed_rng = root.Fork("seed-data");
  s.seed_rows = SeedData(seed_rng);

  std::vector<Rng> action_rngs;
  const std::vector<Slot> slots = DrawSlots(root, knobs, s.config, action_rngs);
  ActionStreams streams(*schema, s, swarm, std::move(action_rngs), root.Fork("workload/queries"));
  for (const Slot& slot : slots) streams.Generate(slot, s.actions);
  // Bursts and navigation retains were generated ahead of their slot: restore time order
  // (stable: equal times keep generation order).
  std::stable_sort(s.actions.begin(), s.actions.end(),
                   [](const ScenarioAction& x, const ScenarioAction& y) { return x.t_ms < y.t_ms; });

  s.faults = ScheduleFaults(root, s.config, swarm, streams.fold_windows(), s.actions);
  AddCardDrags(root, s);
  AddRoomSessions(root, swarm, *schema, s);
  return s;
}

}  // namespace rindle::sim
