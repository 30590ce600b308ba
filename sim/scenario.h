// scenario.h — the corpus scenario file (format "rindle-scenario/1") and how to replay it.
// Stateless functions over a plain value type.
//
// A scenario is one JSON object per file (SPEC §6; corpus/README.md documents it for people):
//   {
//     "format":    "rindle-scenario/1",          required, exactly this string
//     "seed":      1234,                          required, unsigned 64-bit integer
//     "max_steps": 50000,                         optional, positive integer (RunOptions default)
//     "expect":    "pass" | "fail",               required
//     "property":  "no-lost-writes",              required (non-empty) when expect = "fail":
//                                                 the property the run must break
//     "note":      "one line: why this case exists"   optional string
//   }
// Unknown fields are rejected (they are usually typos). This first format replays a scenario
// through its seed (RunSeed regenerates the workload and faults); the shrinker's explicit
// workload/fault schedule extends it later.
//
// An "expect": "fail" scenario documents a known bug: replaying it passes only while the run
// still fails with that property, so a fix is noticed (flip it to "pass") and a different
// failure is not mistaken for the known one.
//
// Errors: LoadScenario returns InvalidArgument / NotFound naming the file, the field and what
// was expected, e.g.
//   corpus/x.json: field "seed": expected a non-negative integer, got "12"
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sim/runner.h"

namespace rindle::sim {

inline constexpr char kScenarioFormat[] = "rindle-scenario/1";

struct Scenario {
  enum class Expect { kPass, kFail };

  std::string path;  // where it was loaded from ("" when built in memory)
  uint64_t seed = 0;
  std::optional<int64_t> max_steps;
  Expect expect = Expect::kPass;
  std::string property;  // required when expect == kFail
  std::string note;
};

// Reads and validates a scenario file.
absl::StatusOr<Scenario> LoadScenario(const std::string& path);

// Validates a parsed document; `origin` names it in errors (usually the path).
absl::StatusOr<Scenario> ScenarioFromJson(const nlohmann::json& doc, const std::string& origin);

// The canonical JSON form (what LoadScenario accepts).
nlohmann::json ScenarioToJson(const Scenario& scenario);

// The RunOptions a scenario replays with.
RunOptions ScenarioRunOptions(const Scenario& scenario);

// Replays the scenario: RunSeed(ScenarioRunOptions(scenario)).
RunResult RunScenario(const Scenario& scenario);

// Whether `result` meets the scenario's expectation.
struct ScenarioVerdict {
  bool pass = false;
  std::string explanation;  // one line: why it passed / failed
};
ScenarioVerdict JudgeScenario(const Scenario& scenario, const RunResult& result);

}  // namespace rindle::sim
