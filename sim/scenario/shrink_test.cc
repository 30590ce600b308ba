// shrink_test.cc — the shrinker (sim/scenario/shrink.h): with a synthetic `run` it finds exactly the
// actions and faults a failure needs, never trades the failing property for another, honours
// its run budget, and refuses a passing scenario; with the real simulator, its result replays
// to the same property failure.
#include "sim/scenario/shrink.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/workload/mutators.h"

namespace rindle::sim {
namespace {

bool HasMutation(const Scenario& s, const std::string& name) {
  for (const auto& a : s.actions) {
    if (a.kind == ScenarioAction::Kind::kMutate && a.name == name) return true;
  }
  return false;
}

bool HasFault(const Scenario& s, ScenarioFault::Kind kind) {
  for (const auto& f : s.faults) {
    if (f.kind == kind) return true;
  }
  return false;
}

RunResult Fails(const std::string& property) {
  RunResult r;
  r.ok = false;
  r.property = property;
  r.message = "synthetic";
  return r;
}

// A generated scenario with at least one deleteIssue, one setStatus and a restart.
Scenario Subject() {
  for (uint64_t seed = 1; seed < 500; ++seed) {
    absl::StatusOr<Scenario> g = GenerateScenario(seed, {.swarm = false});
    if (!g.ok()) continue;
    if (HasMutation(*g, "deleteIssue") && HasMutation(*g, "setStatus") &&
        HasFault(*g, ScenarioFault::Kind::kAuthorityRestart) && g->actions.size() > 30) {
      return *g;
    }
  }
  ADD_FAILURE() << "no subject seed";
  return {};
}

TEST(ShrinkTest, FindsExactlyWhatTheFailureNeeds) {
  const Scenario subject = Subject();
  auto run = [](const Scenario& s) {
    if (HasMutation(s, "deleteIssue") && HasFault(s, ScenarioFault::Kind::kAuthorityRestart)) {
      return Fails("view==fresh");
    }
    return RunResult();
  };
  absl::StatusOr<ShrinkResult> r = Shrink(subject, run, ShrinkOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->scenario.actions.size(), 1u) << ScenarioSteps(r->scenario);
  EXPECT_EQ(r->scenario.faults.size(), 1u) << ScenarioSteps(r->scenario);
  EXPECT_EQ(r->scenario.config.clients, 1);
  EXPECT_EQ(r->scenario.expect, Scenario::Expect::kFail);
  EXPECT_EQ(r->scenario.property, "view==fresh");
  EXPECT_EQ(r->scenario.seed, subject.seed);
  EXPECT_FALSE(r->budget_spent);
  EXPECT_EQ(r->original_actions, subject.actions.size());
  EXPECT_TRUE(ValidateScenario(r->scenario, "shrunk").ok());
}

TEST(ShrinkTest, KeepsTheSameProperty) {
  const Scenario subject = Subject();
  // Both mutations together fail view==fresh; deleteIssue alone fails a DIFFERENT property,
  // which must not be accepted as progress.
  auto run = [](const Scenario& s) {
    const bool del = HasMutation(s, "deleteIssue");
    const bool status = HasMutation(s, "setStatus");
    if (del && status) return Fails("view==fresh");
    if (del) return Fails("no-lost-writes");
    return RunResult();
  };
  absl::StatusOr<ShrinkResult> r = Shrink(subject, run, ShrinkOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->scenario.property, "view==fresh");
  EXPECT_TRUE(HasMutation(r->scenario, "deleteIssue"));
  EXPECT_TRUE(HasMutation(r->scenario, "setStatus"));
  EXPECT_EQ(r->scenario.actions.size(), 2u) << ScenarioSteps(r->scenario);
  EXPECT_TRUE(r->scenario.faults.empty());
}

// config.room_views is turned off only when the failure survives it (like transport_retry).
TEST(ShrinkTest, TurnsRoomViewsOffOnlyWhenTheFailureKeeps) {
  Scenario subject = Subject();
  subject.config.room_views = true;
  auto always = [](const Scenario& s) {
    return HasMutation(s, "deleteIssue") ? Fails("view==fresh") : RunResult();
  };
  absl::StatusOr<ShrinkResult> off = Shrink(subject, always, ShrinkOptions{});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->scenario.config.room_views);
  auto needs_views = [](const Scenario& s) {
    return HasMutation(s, "deleteIssue") && s.config.room_views ? Fails("view==fresh")
                                                                : RunResult();
  };
  absl::StatusOr<ShrinkResult> kept = Shrink(subject, needs_views, ShrinkOptions{});
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_TRUE(kept->scenario.config.room_views);
}

TEST(ShrinkTest, HonoursTheRunBudget) {
  const Scenario subject = Subject();
  int calls = 0;
  auto run = [&calls](const Scenario& s) {
    ++calls;
    return HasMutation(s, "deleteIssue") ? Fails("view==fresh") : RunResult();
  };
  ShrinkOptions options;
  options.max_runs = 5;
  absl::StatusOr<ShrinkResult> r = Shrink(subject, run, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(calls, 5);
  EXPECT_EQ(r->runs, calls);
  EXPECT_TRUE(r->budget_spent);

  calls = 0;
  options.max_runs = 100000;
  options.out_of_time = [&calls] { return calls >= 3; };
  r = Shrink(subject, run, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(calls, 3);
}

TEST(ShrinkTest, IsDeterministic) {
  const Scenario subject = Subject();
  auto run = [](const Scenario& s) {
    return HasMutation(s, "setStatus") && s.faults.size() >= 1 ? Fails("view==fresh")
                                                                : RunResult();
  };
  absl::StatusOr<ShrinkResult> a = Shrink(subject, run, ShrinkOptions{});
  absl::StatusOr<ShrinkResult> b = Shrink(subject, run, ShrinkOptions{});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(ScenarioToJson(a->scenario), ScenarioToJson(b->scenario));
  EXPECT_EQ(a->runs, b->runs);
}

// Shortening strings keeps whole UTF-8 code points: a shrunk scenario is always valid JSON text.
TEST(ShrinkTest, ShorterStringsStayValidUtf8) {
  auto non_ascii_arg = [](const Scenario& s) {
    for (const auto& a : s.actions) {
      if (a.kind != ScenarioAction::Kind::kMutate) continue;
      for (const auto& [key, v] : a.args.items()) {
        if (v.is_string() && !v.get<std::string>().empty() &&
            static_cast<unsigned char>(v.get<std::string>()[0]) >= 0x80) {
          return true;
        }
      }
    }
    return false;
  };
  for (uint64_t seed = 1; seed < 200; ++seed) {
    absl::StatusOr<Scenario> g = GenerateScenario(seed, {.swarm = false});
    ASSERT_TRUE(g.ok());
    if (!non_ascii_arg(*g)) continue;
    absl::StatusOr<ShrinkResult> r = Shrink(
        *g, [&](const Scenario& s) { return non_ascii_arg(s) ? Fails("x") : RunResult(); },
        ShrinkOptions{});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->scenario.actions.size(), 1u);
    // The strict serializer throws on invalid UTF-8.
    EXPECT_NO_THROW((void)ScenarioToJson(r->scenario).dump()) << "seed " << seed;
    return;
  }
  ADD_FAILURE() << "no seed with a non-ASCII string arg";
}

// Every candidate the shrinker proposes carries only values the generator could have made: an
// enum arg stays one of its mutator's declared values (never "l" for "low"), an int stays an
// int, a bool a bool (issue 15 "enums stay enums"). The synthetic run keeps every candidate
// that keeps all the actions, so each simplification is proposed and accepted in turn.
TEST(ShrinkTest, CandidatesKeepArgsInTheirDeclaredDomain) {
  int enums_seen = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    absl::StatusOr<Scenario> g = GenerateScenario(seed, {.swarm = seed % 2 == 0});
    ASSERT_TRUE(g.ok());
    const size_t n = g->actions.size();
    auto check = [&](const Scenario& s) {
      for (const auto& a : s.actions) {
        if (a.kind != ScenarioAction::Kind::kMutate &&
            a.kind != ScenarioAction::Kind::kMutateFolded) {
          continue;
        }
        for (const auto& [key, v] : a.args.items()) {
          const MutatorArg* arg = FindMutatorArg(a.name, key);
          if (arg == nullptr || v.is_null()) continue;
          if (arg->type == ArgType::kEnum) {
            ++enums_seen;
            ASSERT_TRUE(v.is_string()) << "seed " << seed << " " << a.name << "." << key;
            EXPECT_NE(std::find(arg->values.begin(), arg->values.end(), v.get<std::string>()),
                      arg->values.end())
                << "seed " << seed << " " << a.name << "." << key << " = " << v;
          }
          if (arg->type == ArgType::kInt) {
            EXPECT_TRUE(v.is_number_integer()) << a.name << "." << key;
          }
          if (arg->type == ArgType::kBool) {
            EXPECT_TRUE(v.is_boolean()) << a.name << "." << key;
          }
        }
      }
    };
    ShrinkOptions options;
    options.max_runs = 400;
    absl::StatusOr<ShrinkResult> r = Shrink(
        *g,
        [&](const Scenario& s) {
          check(s);
          return s.actions.size() == n ? Fails("x") : RunResult();
        },
        options);
    ASSERT_TRUE(r.ok()) << r.status();
    check(r->scenario);
  }
  EXPECT_GT(enums_seen, 0);
}

TEST(ShrinkTest, RefusesAPassingScenario) {
  const Scenario subject = Subject();
  absl::StatusOr<ShrinkResult> r =
      Shrink(subject, [](const Scenario&) { return RunResult(); }, ShrinkOptions{});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
}

// End to end with the real simulator: a step budget small enough that busy scenarios fail
// `liveness`; the shrunk scenario is small and replays to the same property.
TEST(ShrinkTest, RealRunShrinksAndReplaysToTheSameFailure) {
  absl::StatusOr<Scenario> g = GenerateScenario(3, {.swarm = false});
  ASSERT_TRUE(g.ok());
  Scenario subject = *g;
  subject.max_steps = 150;
  const RunResult original = RunScenario(subject);
  ASSERT_FALSE(original.ok);
  ASSERT_EQ(original.property, "liveness");
  ShrinkOptions options;
  options.max_runs = 400;
  absl::StatusOr<ShrinkResult> r =
      Shrink(subject, [](const Scenario& s) { return RunScenario(s); }, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(r->scenario.actions.size(), subject.actions.size());
  const RunResult replay = RunScenario(r->scenario);
  EXPECT_FALSE(replay.ok);
  EXPECT_EQ(replay.property, "liveness");
  EXPECT_TRUE(JudgeScenario(r->scenario, replay).pass) << JudgeScenario(r->scenario, replay).explanation;
}

}  // namespace
}  // namespace rindle::sim
