// scenario_kinds_test.cc — the kinds table (scenario_kinds.h) is the one list of kinds: every
// row's example round-trips through the JSON loader and writer, every required field it names
// is required by the loader and every field it names is accepted, the loader's error for an
// unknown kind lists every kind (schema_skew included), the step printer and the swarm draw
// know every kind.
#include "sim/scenario/scenario_kinds.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "base/str_util.h"
#include "base/rng.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/swarm.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

// A valid /2 document with no actions and no faults, to put one element into.
json EmptyV2() {
  return json::parse(R"({
    "format": "rindle-scenario/2", "seed": 5, "expect": "pass",
    "config": {"clients": 2, "safety_ms": 1000, "buffer_cap": 24, "connect_ms": [0, 3],
               "network": {"latency_ms": [1, 9], "push_loss_per_mille": 0,
                           "push_dup_per_mille": 0, "ack_loss_per_mille": 0}},
    "seed_rows": {"user": [["u01", "Alice"]]},
    "actions": [], "faults": []
  })");
}

json ActionDoc(const ActionKindSpec& spec) {
  json a = json::parse(spec.example);
  a["kind"] = spec.name;
  a["t"] = 10;
  a["client"] = 1;
  json doc = EmptyV2();
  doc["actions"].push_back(a);
  return doc;
}

json FaultDoc(const FaultKindSpec& spec) {
  json f = json::parse(spec.example);
  f["kind"] = spec.name;
  f["t"] = 60;
  json doc = EmptyV2();
  doc["faults"].push_back(f);
  return doc;
}

TEST(ScenarioKindsTest, RowsAreInEnumOrderAndNamedUniquely) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < ActionKindTable().size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(ActionKindTable()[i].kind), i);
    EXPECT_TRUE(names.insert(ActionKindTable()[i].name).second);
    EXPECT_FALSE(ActionKindTable()[i].doc.empty());
  }
  std::set<int> ranks;
  for (size_t i = 0; i < FaultKindTable().size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(FaultKindTable()[i].kind), i);
    EXPECT_TRUE(names.insert(FaultKindTable()[i].name).second);
    EXPECT_TRUE(ranks.insert(FaultKindTable()[i].swarm.rank).second);
    EXPECT_FALSE(FaultKindTable()[i].doc.empty());
  }
  EXPECT_EQ(FaultKindsInDrawOrder().size(), FaultKindTable().size());
}

TEST(ScenarioKindsTest, EveryActionKindRoundTripsThroughJson) {
  for (const ActionKindSpec& spec : ActionKindTable()) {
    const json doc = ActionDoc(spec);
    absl::StatusOr<Scenario> s = ScenarioFromJson(doc, "mem");
    ASSERT_TRUE(s.ok()) << spec.name << ": " << s.status();
    ASSERT_EQ(s->actions.size(), 1u);
    EXPECT_EQ(s->actions[0].kind, spec.kind);
    EXPECT_EQ(ActionToJson(s->actions[0]), doc["actions"][0]) << spec.name;
    absl::StatusOr<Scenario> back = ScenarioFromJson(ScenarioToJson(*s), "mem");
    ASSERT_TRUE(back.ok()) << spec.name << ": " << back.status();
    EXPECT_EQ(ScenarioToJson(*back), ScenarioToJson(*s)) << spec.name;
    EXPECT_NE(ScenarioSteps(*s).find(StrCat("c1 ", spec.name)), std::string::npos)
        << ScenarioSteps(*s);
  }
}

TEST(ScenarioKindsTest, EveryFaultKindRoundTripsThroughJson) {
  for (const FaultKindSpec& spec : FaultKindTable()) {
    const json doc = FaultDoc(spec);
    absl::StatusOr<Scenario> s = ScenarioFromJson(doc, "mem");
    ASSERT_TRUE(s.ok()) << spec.name << ": " << s.status();
    ASSERT_EQ(s->faults.size(), 1u);
    EXPECT_EQ(s->faults[0].kind, spec.kind);
    EXPECT_EQ(FaultToJson(s->faults[0]), doc["faults"][0]) << spec.name;
    absl::StatusOr<Scenario> back = ScenarioFromJson(ScenarioToJson(*s), "mem");
    ASSERT_TRUE(back.ok()) << spec.name << ": " << back.status();
    EXPECT_EQ(ScenarioToJson(*back), ScenarioToJson(*s)) << spec.name;
    EXPECT_NE(ScenarioSteps(*s).find(StrCat("FAULT ", spec.name)), std::string::npos)
        << ScenarioSteps(*s);
  }
}

TEST(ScenarioKindsTest, TheLoaderRequiresEveryRequiredFieldTheTableNames) {
  for (const ActionKindSpec& spec : ActionKindTable()) {
    for (const KindField& field : spec.fields) {
      json doc = ActionDoc(spec);
      doc["actions"][0].erase(std::string(field.name));
      absl::StatusOr<Scenario> s = ScenarioFromJson(doc, "mem");
      EXPECT_EQ(s.ok(), !field.required) << spec.name << "." << field.name;
      if (!s.ok()) {
        EXPECT_NE(s.status().message().find(StrCat("actions[0].", field.name)), std::string::npos)
            << s.status();
      }
    }
  }
  for (const FaultKindSpec& spec : FaultKindTable()) {
    for (const KindField& field : spec.fields) {
      json doc = FaultDoc(spec);
      doc["faults"][0].erase(std::string(field.name));
      absl::StatusOr<Scenario> s = ScenarioFromJson(doc, "mem");
      EXPECT_EQ(s.ok(), !field.required) << spec.name << "." << field.name;
    }
  }
}

TEST(ScenarioKindsTest, UnknownKindErrorsListEveryKind) {
  json doc = ActionDoc(ActionKindTable()[0]);
  doc["actions"][0]["kind"] = "jump";
  absl::StatusOr<Scenario> s = ScenarioFromJson(doc, "mem");
  ASSERT_FALSE(s.ok());
  for (const ActionKindSpec& spec : ActionKindTable()) {
    EXPECT_NE(s.status().message().find(StrCat("\"", spec.name, "\"")), std::string::npos)
        << spec.name << ": " << s.status();
  }
  doc = FaultDoc(FaultKindTable()[0]);
  doc["faults"][0]["kind"] = "flood";
  s = ScenarioFromJson(doc, "mem");
  ASSERT_FALSE(s.ok());
  for (const FaultKindSpec& spec : FaultKindTable()) {
    EXPECT_NE(s.status().message().find(StrCat("\"", spec.name, "\"")), std::string::npos)
        << spec.name << ": " << s.status();
  }
  EXPECT_NE(s.status().message().find("\"schema_skew\""), std::string::npos) << s.status();
}

TEST(ScenarioKindsTest, TheSwarmDrawCountsEveryFaultKind) {
  for (bool swarm : {false, true}) {
    Rng rng(7);
    const SwarmDraw d = DrawSwarm(rng, swarm);
    for (const FaultKindSpec& spec : FaultKindTable()) {
      EXPECT_EQ(d.fault_counts.count(std::string(spec.name)), 1u) << spec.name;
    }
    EXPECT_EQ(d.fault_counts.size(), FaultKindTable().size());
  }
}

}  // namespace
}  // namespace rindle::sim
