// runner.cc — see runner.h.
#include "sim/run/runner.h"

#include "base/str_util.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/run/simulation.h"

namespace rindle::sim {
namespace {

RunResult SetupFailure(uint64_t seed, const absl::Status& status) {
  RunResult r;
  r.seed = seed;
  r.ok = false;
  r.property = "setup";
  r.message = std::string(status.message());
  return r;
}

}  // namespace

RunResult RunSeed(const RunOptions& options) {
  absl::StatusOr<Scenario> scenario = GenerateScenario(options.seed, {options.swarm, options.room_views});
  if (!scenario.ok()) return SetupFailure(options.seed, scenario.status());
  return RunScenario(*scenario, options);
}

RunResult RunScenario(const Scenario& scenario, const RunOptions& options) {
  if (!scenario.generated) {
    absl::StatusOr<Scenario> generated = GenerateScenario(scenario.seed, {options.swarm, options.room_views});
    if (!generated.ok()) return SetupFailure(scenario.seed, generated.status());
    RunOptions o = options;
    if (scenario.max_steps) o.max_steps = *scenario.max_steps;
    return RunScenario(*generated, o);
  }
  RunOptions o = options;
  o.seed = scenario.seed;
  if (scenario.max_steps) o.max_steps = *scenario.max_steps;
  Simulation sim(scenario, o);
  return sim.Run();
}

ScenarioVerdict JudgeExpectation(bool expect_fail, const std::string& property,
                                 const RunResult& result) {
  const std::string failure =
      result.ok ? std::string()
                : StrCat("seed=", result.seed, " property=", result.property, " step=",
                         result.step, " ", result.message);
  if (!expect_fail) {
    if (result.ok) return {true, StrCat("passed (digest ", result.digest, ")")};
    return {false, failure};
  }
  if (result.ok) {
    return {false, StrCat("expected property \"", property,
                          "\" to fail (documented known bug) but the run passed; if the bug is "
                          "fixed, change \"expect\" to \"pass\"")};
  }
  if (result.property != property) {
    return {false, StrCat("expected property \"", property,
                          "\" to fail, but a different property failed: ", failure)};
  }
  return {true, StrCat("failed as expected (known bug): property=", result.property,
                       " step=", result.step)};
}

ScenarioVerdict JudgeScenario(const Scenario& scenario, const RunResult& result) {
  return JudgeExpectation(scenario.expect == Scenario::Expect::kFail, scenario.property, result);
}

}  // namespace rindle::sim
