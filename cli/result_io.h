// result_io.h — RunResult ⇄ JSON for the CLI: the results-file line of a campaign and the
// worker-to-parent protocol line (the same object plus the counters). Stateless.
//
// Results-file line (one per seed, SPEC §6 "results are JSON lines"; keys sorted by nlohmann):
//   {"digest":"…16 hex…","message":"","ok":true,"property":"","seed":7,"step":0,
//    "steps":1234,"virtual_ms":56789}
// Worker line: the same keys plus "counters": {name: count}.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sim/run/runner.h"

namespace rindle::sim::cli {

nlohmann::json ResultToJson(const RunResult& result, bool with_counters);

// Parses a worker line; errors name the field that is missing or mistyped.
absl::StatusOr<RunResult> ResultFromJsonLine(const std::string& line);

// One JSON line (no trailing newline), canonical and never throwing on bad UTF-8.
std::string DumpLine(const nlohmann::json& j);

// The failure line printed for a failed seed: "seed=<n> property=<name> step=<k> <message>".
std::string FailureLine(const RunResult& result);

}  // namespace rindle::sim::cli
