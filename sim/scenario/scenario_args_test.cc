// scenario_args_test.cc — mutator args checked against the declared table (mutators.h) when a
// scenario is loaded: a typo, a wrong type, an unknown arg or mutator is an error naming the
// action, the mutator and the arg; every generated scenario passes; the shrinker keeps an enum
// arg inside its enum.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/scenario/shrink.h"
#include "sim/workload/mutators.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

bool IsMutate(const ScenarioAction& a) {
  return a.kind == ScenarioAction::Kind::kMutate || a.kind == ScenarioAction::Kind::kMutateFolded;
}

TEST(ScenarioArgsTest, GeneratedScenariosAllValidate) {
  for (bool swarm : {true, false}) {
    for (uint64_t seed = 1; seed <= 50; ++seed) {
      absl::StatusOr<Scenario> s = GenerateScenario(seed, {.swarm = swarm});
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_TRUE(ValidateScenario(*s, "generated").ok())
          << "seed " << seed << " swarm " << swarm << ": " << ValidateScenario(*s, "generated");
      for (size_t i = 0; i < s->actions.size(); ++i) {
        if (!IsMutate(s->actions[i])) continue;
        std::optional<ArgProblem> p = CheckMutatorArgs(s->actions[i].name, s->actions[i].args);
        EXPECT_FALSE(p) << "seed " << seed << " swarm " << swarm << " action " << i << " "
                        << s->actions[i].name << " arg " << p.value_or(ArgProblem{}).arg;
      }
      // And they survive a save / load round trip.
      absl::StatusOr<Scenario> back = ScenarioFromJson(ScenarioToJson(*s), "round trip");
      EXPECT_TRUE(back.ok()) << "seed " << seed << ": " << back.status();
    }
  }
}

// The JSON of generated seed 1 with `edit` applied to its first action calling `mutator`; the
// index of that action in *index.
json EditedDoc(const std::string& mutator, size_t* index,
               const std::function<void(json& action)>& edit) {
  for (uint64_t seed = 1; seed < 200; ++seed) {
    absl::StatusOr<Scenario> s = GenerateScenario(seed, {.swarm = false});
    if (!s.ok()) continue;
    json doc = ScenarioToJson(*s);
    for (size_t i = 0; i < doc["actions"].size(); ++i) {
      json& a = doc["actions"][i];
      if (a.value("name", "") != mutator) continue;
      *index = i;
      edit(a);
      return doc;
    }
  }
  ADD_FAILURE() << "no seed calls " << mutator;
  return {};
}

std::string LoadError(const json& doc) {
  absl::StatusOr<Scenario> s = ScenarioFromJson(doc, "s.json");
  EXPECT_FALSE(s.ok()) << "accepted: " << doc.dump();
  return s.ok() ? "" : std::string(s.status().message());
}

TEST(ScenarioArgsTest, BadArgsAreRefusedAtLoadNamingActionMutatorAndArg) {
  size_t i = 0;
  // A typo in an arg name: without the check the action silently did nothing.
  json doc = EditedDoc("setPriority", &i, [](json& a) {
    a["args"]["prority"] = a["args"]["priority"];
    a["args"].erase("priority");
  });
  std::string err = LoadError(doc);
  const std::string at = "actions[" + std::to_string(i) + "].args.";
  EXPECT_NE(err.find("s.json: field \"" + at + "priority\""), std::string::npos) << err;
  EXPECT_NE(err.find("setPriority"), std::string::npos) << err;
  EXPECT_NE(err.find("missing"), std::string::npos) << err;
  // An enum value the mutator does not know.
  doc = EditedDoc("setPriority", &i, [](json& a) { a["args"]["priority"] = "l"; });
  err = LoadError(doc);
  EXPECT_NE(err.find(at + "priority\": expected one of low, medium, high, urgent"),
            std::string::npos) << err;
  EXPECT_NE(err.find("got \"l\""), std::string::npos) << err;
  // Wrong type.
  doc = EditedDoc("addComment", &i, [](json& a) { a["args"]["createdAt"] = "soon"; });
  err = LoadError(doc);
  EXPECT_NE(err.find("actions[" + std::to_string(i) + "].args.createdAt"), std::string::npos)
      << err;
  EXPECT_NE(err.find("addComment"), std::string::npos) << err;
  // Unknown arg.
  doc = EditedDoc("removeTag", &i, [](json& a) { a["args"]["cascade"] = true; });
  err = LoadError(doc);
  EXPECT_NE(err.find("actions[" + std::to_string(i) + "].args.cascade\": expected no such arg: "
                     "mutator removeTag takes id"),
            std::string::npos) << err;
}

TEST(ScenarioArgsTest, ValidateRefusesAnUnknownMutatorInMemory) {
  absl::StatusOr<Scenario> s = GenerateScenario(1, {.swarm = false});
  ASSERT_TRUE(s.ok());
  for (auto& a : s->actions) {
    if (!IsMutate(a)) continue;
    a.name = "setPriorty";
    break;
  }
  absl::Status st = ValidateScenario(*s, "mem");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(".name\": expected a workload mutator"), std::string::npos) << st;
}

// Before the shrinker used the table, a failure needing one setPriority shrank its priority to
// "l" (a shortened string), a value no mutator accepts and the generator never makes.
TEST(ScenarioArgsTest, ShrinkerKeepsEnumsInTheirEnum) {
  Scenario subject;
  for (uint64_t seed = 1; seed < 200 && subject.actions.empty(); ++seed) {
    absl::StatusOr<Scenario> g = GenerateScenario(seed, {.swarm = false});
    if (!g.ok()) continue;
    for (const auto& a : g->actions) {
      if (a.kind == ScenarioAction::Kind::kMutate && a.name == "setPriority" &&
          a.args["priority"] != "low") {
        subject = *g;
        break;
      }
    }
  }
  ASSERT_FALSE(subject.actions.empty());
  auto run = [](const Scenario& s) {
    RunResult r;
    for (const auto& a : s.actions) {
      if (a.kind == ScenarioAction::Kind::kMutate && a.name == "setPriority") {
        r.ok = false;
        r.property = "view==fresh";
        r.message = "synthetic";
      }
    }
    return r;
  };
  absl::StatusOr<ShrinkResult> r = Shrink(subject, run, ShrinkOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->scenario.actions.size(), 1u);
  const ScenarioAction& a = r->scenario.actions[0];
  EXPECT_EQ(a.args["priority"], "low") << a.args.dump();  // the simplest value of the enum
  EXPECT_FALSE(CheckMutatorArgs(a.name, a.args)) << a.args.dump();
  EXPECT_TRUE(ValidateScenario(r->scenario, "shrunk").ok());
}

}  // namespace
}  // namespace rindle::sim
