// fold_local_test.cc — simulator coverage of folded mutations, local-only tables, navigation
// churn and the resubscribe storm: the new scenario actions/faults round-trip through the
// rindle-scenario/2 format and name the offending field on errors; SimFoldClock orders and
// cancels timers in virtual time; small simulations where folds collapse (fewer envelopes than
// folded invokes), a local write survives an authority restart + rebase, and a storm fires.
#include <algorithm>
#include <functional>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "sim/world/event_queue.h"
#include "base/rng.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/world/sim_fold_clock.h"
#include "sim/workload/generator.h"
#include "sim/workload/queries.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

// ---------------------------------------------------------------- SimFoldClock

TEST(SimFoldClockTest, FiresInVirtualTimeOrderAndClearMakesANoOp) {
  EventQueue q;
  int fired_hook = 0;
  SimFoldClock clock(&q, [&] { ++fired_hook; });
  std::vector<std::string> log;
  const auto a = clock.SetTimeout([&] { log.push_back("a@" + std::to_string(clock.Now())); }, 30);
  const auto b = clock.SetTimeout([&] { log.push_back("b@" + std::to_string(clock.Now())); }, 10);
  const auto c = clock.SetTimeout([&] { log.push_back("c@" + std::to_string(clock.Now())); }, 10);
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(clock.armed(), 3u);
  clock.ClearTimeout(b);
  clock.ClearTimeout(b);     // twice: no-op
  clock.ClearTimeout(9999);  // unknown: no-op
  EXPECT_EQ(clock.armed(), 2u);
  while (q.RunNext()) {}
  EXPECT_EQ(log, (std::vector<std::string>{"c@10", "a@30"}));
  EXPECT_EQ(fired_hook, 2);
  EXPECT_EQ(clock.fired(), 2);
  EXPECT_EQ(clock.cleared(), 1);
  clock.ClearTimeout(a);  // already fired: no-op
  EXPECT_EQ(clock.cleared(), 1);
  EXPECT_EQ(clock.armed(), 0u);
}

TEST(SimFoldClockTest, CallbackMayRearmAndNegativeDelayIsNow) {
  EventQueue q;
  SimFoldClock clock(&q);
  std::vector<int64_t> at;
  std::function<void()> tick = [&] {
    at.push_back(clock.Now());
    if (at.size() < 3) clock.SetTimeout(tick, 5);
  };
  q.Schedule(7, [&] { clock.SetTimeout(tick, -4); });
  while (q.RunNext()) {}
  EXPECT_EQ(at, (std::vector<int64_t>{7, 12, 17}));
}

TEST(SimFoldClockTest, ClearBeforeTheDebounceThenRearmFiresOnlyTheLastOne) {
  // The debounce pattern the backend uses: every invoke clears and re-arms.
  EventQueue q;
  SimFoldClock clock(&q);
  int flushes = 0;
  FoldClock::TimerId id = 0;
  for (int64_t t : {0, 10, 20, 30}) {
    q.ScheduleAt(t, [&] {
      if (id != 0) clock.ClearTimeout(id);
      id = clock.SetTimeout([&] { ++flushes; }, 50);
    });
  }
  int64_t flushed_at = -1;
  while (q.RunNext()) {
    if (flushes == 1 && flushed_at < 0) flushed_at = q.now_ms();
  }
  EXPECT_EQ(flushes, 1);
  EXPECT_EQ(flushed_at, 80);
}

// ---------------------------------------------------------------- client schema, local queries

TEST(FoldLocalSchemaTest, LocalTablesAreClientOnly) {
  absl::StatusOr<Schema> app = LoadAppSchema();
  absl::StatusOr<Schema> client = LoadClientSchema();
  ASSERT_TRUE(app.ok() && client.ok());
  for (const std::string& t : LocalTableNames()) {
    EXPECT_FALSE(app->contains(t)) << t;  // the authority never knows them
    ASSERT_TRUE(client->contains(t)) << t;
  }
  EXPECT_EQ(client->size(), app->size() + LocalTableNames().size());
  for (const auto& [name, spec] : *app) EXPECT_EQ(client->at(name), spec) << name;
  EXPECT_EQ(client->at("drafts").ColumnIndex("body"), kDraftBody);
  EXPECT_EQ(client->at("selection").ColumnIndex("issueId"), kSelectionIssueId);
  for (const std::string& q : LocalQueryNames()) {
    absl::StatusOr<Ast> ast = BuildLocalQuery(q);
    ASSERT_TRUE(ast.ok()) << q << ": " << ast.status();
    EXPECT_TRUE(LocalTableNames().contains(ast->table)) << q;
  }
  absl::StatusOr<Ast> bad = BuildLocalQuery("issuesPage");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("known: drafts, liveDrafts, selection"), std::string::npos);
}

// ---------------------------------------------------------------- scenario format

// A run seed whose authority ships full rows (daemon.h SimProjectionPolicy: mode 0 of the
// "projection" fork), so these tests exercise folds and local tables, not column projection.
uint64_t FullRowsSeed() {
  for (uint64_t seed = 1;; ++seed) {
    Rng r = Rng(seed).Fork("projection");
    if (r.Range(0, 2) == 0) return seed;
  }
}

void SortActions(Scenario& s) {
  std::stable_sort(s.actions.begin(), s.actions.end(),
                   [](const ScenarioAction& a, const ScenarioAction& b) { return a.t_ms < b.t_ms; });
}

RunResult RunSorted(Scenario s) {
  SortActions(s);
  return RunScenario(s, {});
}

Scenario BaseScenario() {
  absl::StatusOr<Scenario> g = GenerateScenario(FullRowsSeed());
  EXPECT_TRUE(g.ok());
  Scenario s = *g;
  s.config.clients = 1;
  s.config.connect_ms = {0};
  s.config.safety_ms = 2000;
  s.config.buffer_cap = 1024;
  s.config.network.push_loss_per_mille = 0;
  s.config.network.push_dup_per_mille = 0;
  s.config.network.ack_loss_per_mille = 0;
  s.actions.clear();
  s.faults.clear();
  return s;
}

ScenarioAction Retain(int64_t t, int64_t handle, RemoteQuery q) {
  ScenarioAction a;
  a.kind = ScenarioAction::Kind::kRetain;
  a.t_ms = t;
  a.query = std::move(q);
  a.handle = handle;
  return a;
}

ScenarioAction Folded(int64_t t, const std::string& issue, const std::string& priority,
                      int64_t debounce) {
  ScenarioAction a;
  a.kind = ScenarioAction::Kind::kMutateFolded;
  a.t_ms = t;
  a.name = "setPriority";
  a.args = {{"id", issue}, {"priority", priority}, {"updatedAt", t}};
  a.fold_key = {{"id", issue}};
  a.debounce_ms = debounce;
  return a;
}

ScenarioAction WriteLocalAction(int64_t t, std::vector<LocalOp> ops) {
  ScenarioAction a;
  a.kind = ScenarioAction::Kind::kWriteLocal;
  a.t_ms = t;
  a.ops = std::move(ops);
  return a;
}

ScenarioAction LocalViewAction(int64_t t, int64_t handle, const std::string& q) {
  ScenarioAction a;
  a.kind = ScenarioAction::Kind::kLocalView;
  a.t_ms = t;
  a.handle = handle;
  a.local_query = q;
  return a;
}

Scenario AllNewKinds() {
  Scenario s = BaseScenario();
  s.actions.push_back(Retain(1, 1, {"issueDetail", "i001"}));
  s.actions.push_back(LocalViewAction(2, 2, "selection"));
  ScenarioAction f = Folded(10, "i001", "high", 40);
  f.max_wait_ms = 90;
  f.defer_across_writes = true;
  s.actions.push_back(f);
  s.actions.push_back(Folded(12, "i001", "low", 40));
  ScenarioAction flush;
  flush.kind = ScenarioAction::Kind::kFlushFolds;
  flush.t_ms = 20;
  s.actions.push_back(flush);
  s.actions.push_back(WriteLocalAction(
      30, {{LocalOp::Kind::kSetDraft, "d1", "i001", "wip"},
           {LocalOp::Kind::kSelect, "s1", "i001", ""},
           {LocalOp::Kind::kClearDraft, "d2", "", ""},
           {LocalOp::Kind::kUnselect, "s2", "", ""}}));
  ScenarioFault storm;
  storm.kind = ScenarioFault::Kind::kResubscribeStorm;
  storm.t_ms = 100;
  storm.client = 0;
  storm.count = 3;
  s.faults.push_back(storm);
  return s;
}

TEST(FoldLocalScenarioTest, NewKindsRoundTripThroughTheFileFormat) {
  const Scenario s = AllNewKinds();
  ASSERT_TRUE(ValidateScenario(s, "mem").ok()) << ValidateScenario(s, "mem");
  const json j = ScenarioToJson(s);
  absl::StatusOr<Scenario> back = ScenarioFromJson(j, "mem");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ScenarioToJson(*back), j);
  ASSERT_EQ(back->actions.size(), s.actions.size());
  EXPECT_EQ(back->actions[2].max_wait_ms, 90);
  EXPECT_TRUE(back->actions[2].defer_across_writes);
  EXPECT_FALSE(back->actions[3].max_wait_ms.has_value());
  EXPECT_EQ(back->actions[5].ops, s.actions[5].ops);
  EXPECT_EQ(back->faults[0].count, 3);
  // Through a file, too.
  const std::string path = testing::TempDir() + "/fold_local_roundtrip.json";
  ASSERT_TRUE(WriteScenarioFile(s, path).ok());
  absl::StatusOr<Scenario> loaded = LoadScenario(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(ScenarioToJson(*loaded)["actions"], j["actions"]);
  const std::string steps = ScenarioSteps(s);
  for (const char* needle :
       {"c0 local_view selection as #2", "c0 mutate_folded setPriority", "maxWait 90ms defer",
        "c0 flush_folds\n", "c0 write_local {\"body\":\"wip\"", "FAULT resubscribe_storm c0 x3"}) {
    EXPECT_NE(steps.find(needle), std::string::npos) << needle << "\n" << steps;
  }
}

void ExpectFieldError(const std::function<void(json&)>& corrupt, const std::string& needle) {
  json doc = ScenarioToJson(AllNewKinds());
  corrupt(doc);
  absl::StatusOr<Scenario> s = ScenarioFromJson(doc, "x.json");
  ASSERT_FALSE(s.ok()) << needle;
  EXPECT_NE(s.status().message().find("x.json"), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find(needle), std::string::npos) << s.status();
}

TEST(FoldLocalScenarioTest, NewKindsNameTheOffendingField) {
  // mutate_folded (actions[2])
  ExpectFieldError([](json& d) { d["actions"][2].erase("key"); },
                   "field \"actions[2].key\": expected the fold key's identity");
  ExpectFieldError([](json& d) { d["actions"][2]["key"] = nullptr; }, "field \"actions[2].key\"");
  ExpectFieldError([](json& d) { d["actions"][2]["debounce_ms"] = -1; },
                   "field \"actions[2].debounce_ms\": expected an integer in [0,");
  ExpectFieldError([](json& d) { d["actions"][2]["max_wait_ms"] = "soon"; },
                   "field \"actions[2].max_wait_ms\": expected an integer");
  ExpectFieldError([](json& d) { d["actions"][2]["defer_across_writes"] = 1; },
                   "field \"actions[2].defer_across_writes\": expected true or false");
  ExpectFieldError([](json& d) { d["actions"][2]["name"] = "slide"; },
                   "field \"actions[2].name\": expected a workload mutator");
  ExpectFieldError([](json& d) { d["actions"][2]["args"] = json::array(); },
                   "field \"actions[2].args\": expected a JSON object");
  ExpectFieldError([](json& d) { d["actions"][2]["debounce"] = 5; },
                   "unknown field \"actions[2].debounce\"");
  // flush_folds (actions[4])
  ExpectFieldError([](json& d) { d["actions"][4]["key"] = 1; },
                   "unknown field \"actions[4].key\"");
  // write_local (actions[5])
  ExpectFieldError([](json& d) { d["actions"][5]["ops"] = json::array(); },
                   "field \"actions[5].ops\": expected a non-empty array of local ops");
  ExpectFieldError([](json& d) { d["actions"][5]["ops"][0]["op"] = "upsert"; },
                   "field \"actions[5].ops[0].op\": expected \"set_draft\"");
  ExpectFieldError([](json& d) { d["actions"][5]["ops"][0].erase("issueId"); },
                   "field \"actions[5].ops[0].issueId\": expected a non-empty string (missing)");
  ExpectFieldError([](json& d) { d["actions"][5]["ops"][2]["body"] = "x"; },
                   "unknown field \"actions[5].ops[2].body\"");
  ExpectFieldError([](json& d) { d["actions"][5]["ops"][1]["id"] = 7; },
                   "field \"actions[5].ops[1].id\": expected a non-empty string, got 7");
  // local_view (actions[1])
  ExpectFieldError([](json& d) { d["actions"][1]["query"] = "issuesPage"; },
                   "field \"actions[1].query\": expected a local query (drafts, liveDrafts, selection)");
  ExpectFieldError([](json& d) { d["actions"][1]["handle"] = 1; },
                   "field \"actions[1].handle\": expected a handle not yet used by client 0, got 1");
  // unknown action kind lists the new ones
  ExpectFieldError([](json& d) { d["actions"][4]["kind"] = "flush"; }, "\"flush_folds\"");
  // resubscribe_storm (faults[0])
  ExpectFieldError([](json& d) { d["faults"][0]["count"] = 0; },
                   "field \"faults[0].count\": expected an integer in [1, 50], got 0");
  ExpectFieldError([](json& d) { d["faults"][0].erase("count"); },
                   "field \"faults[0].count\": expected an integer in [1, 50] (missing)");
  ExpectFieldError([](json& d) { d["faults"][0]["client"] = 3; },
                   "field \"faults[0].client\": expected an integer in [0, 0], got 3");
  ExpectFieldError([](json& d) { d["faults"][0]["duration_ms"] = 3; },
                   "unknown field \"faults[0].duration_ms\"");
  ExpectFieldError([](json& d) { d["faults"][0]["kind"] = "storm"; }, "\"resubscribe_storm\"");
}

// ---------------------------------------------------------------- generator

TEST(FoldLocalGeneratorTest, CampaignSeedsUseEveryNewKind) {
  std::map<std::string, int> kinds;
  int restarts_in_fold = 0;
  int same_query_twice = 0;
  int navigation = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    absl::StatusOr<Scenario> s = GenerateScenario(seed);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(ValidateScenario(*s, "gen").ok()) << ValidateScenario(*s, "gen");
    std::vector<std::pair<int64_t, int64_t>> windows;  // (first, last+debounce) per burst action
    std::map<int, std::map<std::string, int>> retained;
    int64_t last_release = -1000;
    for (const auto& a : s->actions) {
      ++kinds[std::string(ActionKindName(a.kind))];
      if (a.kind == ScenarioAction::Kind::kMutateFolded) {
        windows.push_back({a.t_ms, a.t_ms + a.debounce_ms});
        EXPECT_TRUE(a.name == "editTitle" || a.name == "setStatus" || a.name == "setPriority");
      }
      if (a.kind == ScenarioAction::Kind::kRetain) {
        if (++retained[a.client][a.query.Key()] == 2) ++same_query_twice;
        if (a.t_ms - last_release <= 30) ++navigation;
      }
      if (a.kind == ScenarioAction::Kind::kRelease) last_release = a.t_ms;
    }
    for (const auto& f : s->faults) {
      ++kinds[std::string(FaultKindName(f.kind))];
      if (f.kind != ScenarioFault::Kind::kAuthorityRestart) continue;
      for (const auto& [from, to] : windows) {
        if (f.t_ms >= from && f.t_ms < to) {
          ++restarts_in_fold;
          break;
        }
      }
    }
    // Round trip of every generated scenario.
    absl::StatusOr<Scenario> back = ScenarioFromJson(ScenarioToJson(*s), "gen");
    ASSERT_TRUE(back.ok()) << back.status();
  }
  for (const char* k : {"mutate_folded", "flush_folds", "write_local", "local_view",
                        "resubscribe_storm", "retain", "release"}) {
    EXPECT_GT(kinds[k], 0) << k;
  }
  EXPECT_GT(restarts_in_fold, 0);
  EXPECT_GT(same_query_twice, 0);
  EXPECT_GT(navigation, 0);
}

// ---------------------------------------------------------------- simulations

int64_t Counter(const RunResult& r, const std::string& name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0 : it->second;
}

TEST(FoldLocalSimTest, FoldedBurstCollapsesIntoFewerEnvelopes) {
  Scenario s = BaseScenario();
  s.actions.push_back(Retain(0, 1, {"issueDetail", "i001"}));
  // Two bursts of 5 on one key, 4ms apart inside a 60ms debounce, and a third on another key.
  const char* ladder[] = {"low", "medium", "high", "urgent", "medium"};
  for (int k = 0; k < 5; ++k) s.actions.push_back(Folded(100 + 4 * k, "i001", ladder[k], 60));
  for (int k = 0; k < 5; ++k) s.actions.push_back(Folded(400 + 4 * k, "i001", ladder[4 - k], 60));
  for (int k = 0; k < 3; ++k) s.actions.push_back(Folded(405 + 4 * k, "i002", ladder[k], 60));
  SortActions(s);
  RunOptions opts;
  const RunResult r = RunScenario(s, opts);
  ASSERT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_EQ(Counter(r, "action.mutate_folded"), 13);
  // One envelope per window: 3 windows.
  EXPECT_EQ(Counter(r, "client.fold_flush"), 3);
  EXPECT_EQ(Counter(r, "client.fold_collapsed"), 10);
  const RunResult again = RunScenario(s, opts);
  EXPECT_EQ(again.digest, r.digest);
}

TEST(FoldLocalSimTest, FlushFoldsAndFlushOnEnqueue) {
  Scenario s = BaseScenario();
  s.actions.push_back(Retain(0, 1, {"issueDetail", "i001"}));
  s.actions.push_back(Folded(100, "i001", "high", 500));
  s.actions.push_back(Folded(105, "i001", "low", 500));
  ScenarioAction flush;
  flush.kind = ScenarioAction::Kind::kFlushFolds;
  flush.t_ms = 110;
  s.actions.push_back(flush);
  s.actions.push_back(Folded(200, "i001", "urgent", 500));
  ScenarioAction m;  // a normal write on the fold's table: flushes it first (§4.2)
  m.kind = ScenarioAction::Kind::kMutate;
  m.t_ms = 210;
  m.name = "setStatus";
  m.args = {{"id", "i001"}, {"status", "done"}, {"updatedAt", 210}};
  s.actions.push_back(m);
  const RunResult r = RunSorted(s);
  ASSERT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_EQ(Counter(r, "action.flush_folds"), 1);
  EXPECT_EQ(Counter(r, "client.fold_flush"), 2);
  EXPECT_EQ(Counter(r, "client.fold_flush_on_enqueue"), 1);
}

TEST(FoldLocalSimTest, LocalWritesSurviveAnAuthorityRestartAndRebase) {
  Scenario s = BaseScenario();
  s.actions.push_back(Retain(0, 1, {"issueDetail", "i001"}));
  s.actions.push_back(LocalViewAction(1, 2, "drafts"));
  s.actions.push_back(LocalViewAction(1, 3, "selection"));
  s.actions.push_back(LocalViewAction(1, 4, "liveDrafts"));
  s.actions.push_back(WriteLocalAction(50, {{LocalOp::Kind::kSetDraft, "d1", "i001", "wip"},
                                            {LocalOp::Kind::kSelect, "s1", "i001", ""}}));
  // Rebases: the selected issue changes under the local view (normal and folded writes).
  ScenarioAction m;
  m.kind = ScenarioAction::Kind::kMutate;
  m.t_ms = 60;
  m.name = "editTitle";
  m.args = {{"id", "i001"}, {"title", "renamed"}, {"updatedAt", 60}};
  s.actions.push_back(m);
  s.actions.push_back(Folded(70, "i001", "urgent", 100));
  s.actions.push_back(WriteLocalAction(75, {{LocalOp::Kind::kSetDraft, "d1", "i001", "edited"},
                                            {LocalOp::Kind::kSetDraft, "d2", "i404", "orphan"}}));
  // An illegal batch (a synced table) is rejected whole: d3 must not appear.
  s.actions.push_back(WriteLocalAction(76, {{LocalOp::Kind::kSetDraft, "d3", "i001", "no"},
                                            {LocalOp::Kind::kSyncedWrite, "x1", "", ""}}));
  s.actions.push_back(WriteLocalAction(77, {{LocalOp::Kind::kClearDraft, "d9", "", ""}}));  // no-op
  ScenarioFault restart;
  restart.kind = ScenarioFault::Kind::kAuthorityRestart;
  restart.t_ms = 80;  // inside the fold window
  s.faults.push_back(restart);
  s.actions.push_back(WriteLocalAction(400, {{LocalOp::Kind::kUnselect, "s1", "", ""}}));
  s.actions.push_back(WriteLocalAction(400, {{LocalOp::Kind::kSelect, "s2", "i002", ""}}));
  const RunResult r = RunSorted(s);
  ASSERT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_EQ(Counter(r, "action.write_local"), 6);
  EXPECT_EQ(Counter(r, "action.write_local_rejected"), 1);
  EXPECT_EQ(Counter(r, "action.write_local_noop"), 1);
  EXPECT_EQ(Counter(r, "action.local_view"), 3);
  EXPECT_EQ(Counter(r, "fault.authority_restart"), 1);
  EXPECT_GE(Counter(r, "client.restart_seen"), 1);
}

TEST(FoldLocalSimTest, ResubscribeStormFiresAndConverges) {
  Scenario s = BaseScenario();
  s.config.clients = 2;
  s.config.connect_ms = {0, 5};
  s.actions.push_back(Retain(0, 1, {"issueDetail", "i001"}));
  s.actions.push_back(Retain(1, 2, {"issueDetail", "i001"}));  // the same query twice
  s.actions.push_back(Retain(2, 3, {"users", nullptr}));
  ScenarioAction m;
  m.kind = ScenarioAction::Kind::kMutate;
  m.client = 1;
  m.t_ms = 100;
  m.name = "setStatus";
  m.args = {{"id", "i001"}, {"status", "done"}, {"updatedAt", 100}};
  s.actions.push_back(m);
  ScenarioAction rel;
  rel.kind = ScenarioAction::Kind::kRelease;
  rel.t_ms = 300;
  rel.handle = 2;  // one of the two retains of the same query, after the storm moved it
  s.actions.push_back(rel);
  ScenarioFault storm;
  storm.kind = ScenarioFault::Kind::kResubscribeStorm;
  storm.t_ms = 98;
  storm.client = 0;
  storm.count = 4;
  s.faults.push_back(storm);
  const RunResult r = RunSorted(s);
  ASSERT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_EQ(Counter(r, "fault.resubscribe_storm"), 1);
  EXPECT_EQ(Counter(r, "fault.resubscribe_cycle"), 4);
  EXPECT_EQ(Counter(r, "action.release"), 1);
  EXPECT_EQ(Counter(r, "action.release_noop"), 0);
}

// CRIT#4 end to end: a skewed hello (non-pk columns reversed) is refused, the client
// re-subscribes past it, and the run converges with nothing of the refused epoch applied.
TEST(FoldLocalSimTest, SchemaSkewIsRefusedAndTheClientResubscribes) {
  Scenario s = BaseScenario();
  ScenarioFault skew;
  skew.kind = ScenarioFault::Kind::kSchemaSkew;
  skew.t_ms = 1;
  skew.client = 0;
  s.faults.push_back(skew);
  s.actions.push_back(Retain(5, 1, {"issueDetail", "i001"}));
  const RunResult r = RunSorted(s);
  ASSERT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_EQ(Counter(r, "fault.schema_skew"), 1);
  EXPECT_EQ(Counter(r, "authority.skewed_hello"), 1);
  EXPECT_EQ(Counter(r, "client.schema_rejection"), 1);
}

TEST(FoldLocalSimTest, StarvationWithATinyBufferOverflows) {
  Scenario s = BaseScenario();
  s.config.buffer_cap = 3;
  s.actions.push_back(Retain(0, 1, {"issuesPage", {{"limit", 50}}}));
  for (int k = 0; k < 12; ++k) {
    ScenarioAction m;
    m.kind = ScenarioAction::Kind::kMutate;
    m.t_ms = 200 + 10 * k;
    m.name = "setStatus";
    m.args = {{"id", "i00" + std::to_string(1 + k % 8)}, {"status", k % 2 ? "done" : "todo"},
              {"updatedAt", m.t_ms}};
    s.actions.push_back(m);
  }
  ScenarioFault starve;
  starve.kind = ScenarioFault::Kind::kProgressStarvation;
  starve.t_ms = 150;
  starve.duration_ms = 400;
  s.faults.push_back(starve);
  const RunResult r = RunSorted(s);
  ASSERT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_GE(Counter(r, "client.overflow"), 1);
}

// An authority restored from an older ledger that forgot two confirmed mids: the client refuses
// the regressing lmid (optimistic/ledger.h) and the run reports the named outcome, not a
// silent divergence (properties/ledger_rollback.h).
TEST(FoldLocalSimTest, RollbackForgettingConfirmedMidsIsRefused) {
  Scenario s = BaseScenario();
  s.actions.push_back(Retain(0, 1, {"issuesPage", {{"limit", 50}}}));
  for (int k = 0; k < 3; ++k) {
    ScenarioAction m;
    m.kind = ScenarioAction::Kind::kMutate;
    m.t_ms = 200 + 100 * k;
    m.name = "setStatus";
    m.args = {{"id", "i00" + std::to_string(1 + k)}, {"status", "done"}, {"updatedAt", m.t_ms}};
    s.actions.push_back(m);
  }
  ScenarioFault rollback;
  rollback.kind = ScenarioFault::Kind::kAuthorityRollback;
  rollback.t_ms = 1200;
  rollback.count = 2;
  s.faults.push_back(rollback);
  const RunResult r = RunSorted(s);
  ASSERT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_EQ(Counter(r, "fault.authority_rollback"), 1);
  EXPECT_EQ(Counter(r, "fault.authority_rollback_forgot"), 2);
  EXPECT_EQ(Counter(r, "client.ledger_regression_refused"), 1);
  EXPECT_EQ(Counter(r, "health.refused_authority_rollback"), 1);
}

}  // namespace
}  // namespace rindle::sim
