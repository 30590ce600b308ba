// scenario_test.cc — scenario files: rindle-scenario/2 round trips (generate → write → load is
// the same scenario), validation errors name the file, the field and what was expected, /1
// seed-only files still load, and judging a run against a scenario's expectation; plus the
// generate/execute split: replaying a written scenario gives the seed's own digest.
#include "sim/scenario/scenario.h"

#include "sim/run/runner.h"
#include "sim/scenario/scenario_generator.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

// Named after the running test too: ctest -j runs the tests of this file in parallel
// processes that share TempDir().
std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = testing::TempDir() + "/" +
                           testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
                           name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

void ExpectError(const std::string& content, const std::string& needle) {
  const std::string path = WriteTemp("scenario_test_case.json", content);
  absl::StatusOr<Scenario> s = LoadScenario(path);
  ASSERT_FALSE(s.ok()) << content;
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find(needle), std::string::npos) << s.status();
}

TEST(ScenarioTest, LoadsAPassingScenario) {
  const std::string path = WriteTemp(
      "ok.json",
      R"({"format":"rindle-scenario/1","seed":42,"max_steps":1000,"expect":"pass","note":"n"})");
  absl::StatusOr<Scenario> s = LoadScenario(path);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->seed, 42u);
  EXPECT_EQ(s->max_steps, 1000);
  EXPECT_EQ(s->expect, Scenario::Expect::kPass);
  EXPECT_EQ(s->note, "n");
  EXPECT_FALSE(s->generated);  // seed-only: generated from the seed when run
}

TEST(ScenarioTest, RoundTripsThroughJson) {
  Scenario s;
  s.seed = 18446744073709551615ULL;
  s.expect = Scenario::Expect::kFail;
  s.property = "no-lost-writes";
  s.note = "known bug";
  absl::StatusOr<Scenario> back = ScenarioFromJson(ScenarioToJson(s), "mem");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->seed, s.seed);
  EXPECT_EQ(back->expect, Scenario::Expect::kFail);
  EXPECT_EQ(back->property, "no-lost-writes");
  EXPECT_FALSE(back->max_steps.has_value());
}

TEST(ScenarioTest, ErrorsNameTheFileAndTheField) {
  ExpectError(R"({"format":"rindle-scenario/1","seed":)", "not valid JSON");
  ExpectError("[1,2]", "expected a JSON object");
  ExpectError(R"({"seed":1,"expect":"pass"})", "field \"format\"");
  ExpectError(R"({"format":"rindle-scenario/3","seed":1,"expect":"pass"})", "field \"format\"");
  ExpectError(R"({"format":"rindle-scenario/2","seed":1,"expect":"pass"})",
              "field \"config\": expected an object (missing)");
  ExpectError(R"({"format":"rindle-scenario/1","expect":"pass"})", "field \"seed\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":"12","expect":"pass"})",
              "field \"seed\": expected a non-negative integer");
  ExpectError(R"({"format":"rindle-scenario/1","seed":-3,"expect":"pass"})", "field \"seed\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1.5,"expect":"pass"})", "field \"seed\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1})", "field \"expect\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"maybe"})",
              "field \"expect\": expected \"pass\" or \"fail\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"fail"})",
              "field \"property\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"pass","max_steps":0})",
              "field \"max_steps\": expected a positive integer");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"pass","note":7})",
              "field \"note\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expct":"pass"})",
              "unknown field \"expct\"");
}

// A valid /2 document to corrupt one field at a time.
nlohmann::json ValidV2() {
  return nlohmann::json::parse(R"({
    "format": "rindle-scenario/2", "seed": 5, "expect": "pass",
    "config": {"clients": 2, "safety_ms": 1000, "buffer_cap": 24, "connect_ms": [0, 3],
               "network": {"latency_ms": [1, 9], "push_loss_per_mille": 0,
                           "push_dup_per_mille": 10, "ack_loss_per_mille": 0}},
    "seed_rows": {"user": [["u01", "Alice"]]},
    "actions": [
      {"kind": "retain", "t": 1, "client": 0, "handle": 1,
       "query": {"name": "users", "args": null}},
      {"kind": "mutate", "t": 5, "client": 1, "name": "setStatus",
       "args": {"id": "i001", "status": "done", "updatedAt": 5}},
      {"kind": "release", "t": 9, "client": 0, "handle": 1}],
    "faults": [{"kind": "partition", "t": 60, "client": 1, "duration_ms": 100},
               {"kind": "authority_restart", "t": 70}]
  })");
}

void ExpectV2Error(const std::function<void(nlohmann::json&)>& corrupt, const std::string& needle) {
  nlohmann::json doc = ValidV2();
  corrupt(doc);
  ExpectError(doc.dump(), needle);
}

TEST(ScenarioTest, LoadsAVersion2Scenario) {
  const std::string path = WriteTemp("v2.json", ValidV2().dump());
  absl::StatusOr<Scenario> s = LoadScenario(path);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->generated);
  EXPECT_EQ(s->config.clients, 2);
  EXPECT_EQ(s->config.network.latency_ms_max, 9);
  ASSERT_EQ(s->actions.size(), 3u);
  EXPECT_EQ(s->actions[1].kind, ScenarioAction::Kind::kMutate);
  EXPECT_EQ(s->actions[1].args["status"], "done");
  ASSERT_EQ(s->faults.size(), 2u);
  EXPECT_EQ(s->faults[0].duration_ms, 100);
  EXPECT_EQ(s->faults[1].kind, ScenarioFault::Kind::kAuthorityRestart);
  EXPECT_NE(ScenarioSteps(*s).find("c1 mutate setStatus"), std::string::npos) << ScenarioSteps(*s);
}

TEST(ScenarioTest, Version2ErrorsNameTheFieldAndWhatWasExpected) {
  using json = nlohmann::json;
  ExpectV2Error([](json& d) { d["config"]["clients"] = 0; },
                "field \"config.clients\": expected an integer in [1, 8], got 0");
  ExpectV2Error([](json& d) { d["config"]["connect_ms"] = json::array({0}); },
                "field \"config.connect_ms\": expected an array of 2 virtual-ms times");
  ExpectV2Error([](json& d) { d["config"]["network"]["latency_ms"] = json::array({9, 1}); },
                "field \"config.network.latency_ms[1]\": expected an integer in [9,");
  ExpectV2Error([](json& d) { d["config"]["network"]["push_dup_per_mille"] = 1001; },
                "field \"config.network.push_dup_per_mille\": expected an integer in [0, 1000]");
  ExpectV2Error([](json& d) { d["actions"][1]["client"] = 2; },
                "field \"actions[1].client\": expected an integer in [0, 1], got 2");
  ExpectV2Error([](json& d) { d["actions"][1]["kind"] = "jump"; },
                "field \"actions[1].kind\": expected \"retain\", \"release\", \"mutate\", "
                "\"mutate_folded\", \"flush_folds\", \"write_local\", \"local_view\", "
                "\"room_connect\" or \"room_disconnect\"");
  ExpectV2Error([](json& d) { d["actions"][1]["args"] = "x"; },
                "field \"actions[1].args\": expected a JSON object");
  ExpectV2Error([](json& d) { d["actions"][1].erase("name"); },
                "field \"actions[1].name\": expected a non-empty string (missing)");
  ExpectV2Error([](json& d) { d["actions"][2]["t"] = 2; },
                "field \"actions[2].t\": expected a time in [5, 1000]");
  ExpectV2Error([](json& d) { d["actions"][0]["colour"] = 1; },
                "unknown field \"actions[0].colour\"");
  ExpectV2Error([](json& d) { d["faults"][0]["kind"] = "flood"; },
                "field \"faults[0].kind\": expected \"link_break\"");
  ExpectV2Error([](json& d) { d["faults"][0].erase("duration_ms"); },
                "field \"faults[0].duration_ms\"");
  ExpectV2Error([](json& d) { d["faults"][1]["t"] = 5000; },
                "field \"faults[1].t\": expected a time in [0, 1000]");
  ExpectV2Error([](json& d) { d["seed_rows"]["user"] = json::array({json::array()}); },
                "field \"seed_rows.user[0]\": expected a non-empty array of cells");
}

// Inputs the run could not use are input errors at load (exit 2 in the CLI), not a property
// failure of the run: rows that do not fit the app schema, unknown mutators, unbuildable queries.
TEST(ScenarioTest, SeedRowsMutatorsAndQueriesAreCheckedAgainstTheApp) {
  using json = nlohmann::json;
  ExpectV2Error([](json& d) { d["seed_rows"]["user"][0] = json::array({"u01"}); },
                "field \"seed_rows.user[0]\": expected a row of table \"user\"");
  ExpectV2Error([](json& d) { d["seed_rows"]["user"][0][1] = nullptr; },
                "field \"seed_rows.user[0]\"");
  ExpectV2Error([](json& d) { d["seed_rows"]["user"].push_back(json::array({"u01", "Bob"})); },
                "field \"seed_rows.user[1]\": expected a row whose primary key is not already");
  ExpectV2Error([](json& d) { d["seed_rows"]["users"] = json::array(); },
                "field \"seed_rows.users\": expected a table of the app schema");
  ExpectV2Error([](json& d) { d["actions"][1]["name"] = "dropTables"; },
                "field \"actions[1].name\": expected a workload mutator");
  ExpectV2Error([](json& d) { d["actions"][0]["query"]["name"] = "noSuchQuery"; },
                "field \"actions[0].query\": expected a named query of the app");
  ExpectV2Error(
      [](json& d) { d["actions"][0]["query"] = {{"name", "issuesPage"}, {"args", {{"limit", -5}}}}; },
      "field \"actions[0].query\": expected a named query of the app");
}

TEST(ScenarioTest, GeneratedScenarioRoundTripsThroughTheFile) {
  for (uint64_t seed : {1, 2, 77}) {
    absl::StatusOr<Scenario> g = GenerateScenario(seed);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_FALSE(g->actions.empty());
    const std::string path = WriteTemp("generated.json", "");
    ASSERT_TRUE(WriteScenarioFile(*g, path).ok());
    absl::StatusOr<Scenario> back = LoadScenario(path);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(ScenarioToJson(*back), ScenarioToJson(*g)) << "seed " << seed;
  }
}

// config.room_views is part of the scenario (not the environment): written only when on, read
// back, absent = off, a non-boolean a field error; the generator sets it from its options and
// draws nothing else differently.
TEST(ScenarioTest, RoomViewsIsAScenarioPropertyThatRoundTrips) {
  using json = nlohmann::json;
  absl::StatusOr<Scenario> off = GenerateScenario(7);
  absl::StatusOr<Scenario> on = GenerateScenario(7, {.swarm = true, .room_views = true});
  ASSERT_TRUE(off.ok() && on.ok());
  EXPECT_FALSE(off->config.room_views);
  EXPECT_TRUE(on->config.room_views);
  EXPECT_FALSE(ScenarioToJson(*off)["config"].contains("room_views"));
  EXPECT_EQ(ScenarioToJson(*on)["config"]["room_views"], true);
  json stripped = ScenarioToJson(*on);
  stripped["config"].erase("room_views");
  EXPECT_EQ(stripped, ScenarioToJson(*off));  // the flag changes no draw
  const std::string path = WriteTemp("room-views.json", "");
  ASSERT_TRUE(WriteScenarioFile(*on, path).ok());
  absl::StatusOr<Scenario> back = LoadScenario(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->config.room_views);
  EXPECT_EQ(ScenarioToJson(*back), ScenarioToJson(*on));
  ExpectV2Error([](json& d) { d["config"]["room_views"] = "yes"; },
                "field \"config.room_views\": expected true or false");
  ExpectV2Error([](json& d) { d["config"]["room_view"] = true; },
                "unknown field \"config.room_view\"");
}

TEST(ScenarioTest, GenerationIsAPureFunctionOfTheSeed) {
  absl::StatusOr<Scenario> a = GenerateScenario(9);
  absl::StatusOr<Scenario> b = GenerateScenario(9);
  absl::StatusOr<Scenario> c = GenerateScenario(10);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(ScenarioToJson(*a), ScenarioToJson(*b));
  EXPECT_NE(ScenarioToJson(*a), ScenarioToJson(*c));
  absl::StatusOr<Scenario> off = GenerateScenario(9, {.swarm = false});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->swarm["swarm"], false);
  EXPECT_EQ(a->swarm["swarm"], true);
}

// The generate/execute split (SPEC §6): a written scenario replays without the generator and
// gives the seed's own digest.
TEST(ScenarioTest, ReplayingTheEmittedScenarioGivesTheSeedsDigest) {
  for (uint64_t seed : {1, 3, 12, 40}) {
    RunOptions options;
    options.seed = seed;
    const RunResult from_seed = RunSeed(options);
    absl::StatusOr<Scenario> g = GenerateScenario(seed);
    ASSERT_TRUE(g.ok());
    const std::string path = WriteTemp("replay.json", "");
    ASSERT_TRUE(WriteScenarioFile(*g, path).ok());
    absl::StatusOr<Scenario> loaded = LoadScenario(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const RunResult from_file = RunScenario(*loaded);
    EXPECT_EQ(from_file.digest, from_seed.digest) << "seed " << seed;
    EXPECT_EQ(from_file.ok, from_seed.ok) << "seed " << seed;
    EXPECT_EQ(from_file.steps, from_seed.steps) << "seed " << seed;
  }
}

// An action whose target is gone (the shrinker removed its creator) still executes: releases of
// unknown handles no-op, mutations of missing rows no-op or fail without consuming a mid.
TEST(ScenarioTest, ActionsStayExecutableWhenOthersAreRemoved) {
  absl::StatusOr<Scenario> g = GenerateScenario(5);
  ASSERT_TRUE(g.ok());
  Scenario s = *g;
  // Drop every retain after the first per client and every createIssue: releases and edits now
  // point at nothing.
  std::erase_if(s.actions, [](const ScenarioAction& a) {
    return (a.kind == ScenarioAction::Kind::kRetain && a.handle > 1) ||
           (a.kind == ScenarioAction::Kind::kMutate && a.name == "createIssue");
  });
  s.seed_rows["issue"].clear();
  const RunResult r = RunScenario(s);
  EXPECT_TRUE(r.ok) << r.property << ": " << r.message;
  EXPECT_GT(r.counters.count("action.client_rejected") ? r.counters.at("action.client_rejected") : 0, 0);
  const bool has_release = std::any_of(s.actions.begin(), s.actions.end(), [](const auto& a) {
    return a.kind == ScenarioAction::Kind::kRelease && a.handle > 1;
  });
  if (has_release) {
    EXPECT_GT(r.counters.count("action.release_noop"), 0u);
  }
}

TEST(ScenarioTest, MissingFileIsNotFound) {
  absl::StatusOr<Scenario> s = LoadScenario("/nonexistent/scenario.json");
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
}

TEST(ScenarioTest, JudgesExpectations) {
  Scenario pass;
  Scenario known_bug;
  known_bug.expect = Scenario::Expect::kFail;
  known_bug.property = "view==fresh";
  RunResult ok;
  RunResult broke;
  broke.ok = false;
  broke.property = "view==fresh";
  RunResult other;
  other.ok = false;
  other.property = "no-lost-writes";

  EXPECT_TRUE(JudgeScenario(pass, ok).pass);
  EXPECT_FALSE(JudgeScenario(pass, broke).pass);
  EXPECT_TRUE(JudgeScenario(known_bug, broke).pass);
  EXPECT_FALSE(JudgeScenario(known_bug, ok).pass);
  EXPECT_FALSE(JudgeScenario(known_bug, other).pass);
  EXPECT_NE(JudgeScenario(known_bug, other).explanation.find("different property"),
            std::string::npos);
}

}  // namespace
}  // namespace rindle::sim
