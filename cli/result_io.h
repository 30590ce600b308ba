// result_io.h — RunResult ⇄ JSON for the CLI: the results file of a campaign (a header line,
// then one line per seed), the worker-to-parent protocol line (a result plus the counters), and
// the printed failure and reproduce lines. Stateless.
//
// Results file (SPEC §6 "results are JSON lines"; keys sorted by nlohmann):
//   {"commit":"1a2b3c4","options":{"max_steps":200000,"swarm":true},"rindle_results":1,
//    "version":"0.1.0"}                                                    ← header, line 1
//   {"digest":"…16 hex…","message":"","ok":true,"options":{…},"property":"","seed":7,"step":0,
//    "steps":1234,"virtual_ms":56789}                                      ← one per seed
// "options" holds every option that changes what a seed's run does (RunFlags); a file is only
// ever extended by a campaign under the same options.
// Worker line: the seed-line keys (without "options") plus "counters": {name: count}.
//
// Strict reading (ReadResultsText): a seed must be an exact non-negative 64-bit JSON integer
// (not 6.9, -1, "6", 1e3 or above 2^64-1); the first line must be a rindle_results header of a
// known format; every complete line must be a result; two lines for one seed must agree on
// ok/property. A last line without its newline (a campaign killed mid-write) is "torn": it is
// reported, not parsed, so the caller can cut it off and run that seed again. Errors name the
// file and the line number.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sim/run/runner.h"

namespace rindle::sim::cli {

inline constexpr int kResultsFormat = 1;

// The options that change what a seed's run does (fuzz's --max-steps and --swarm); `run`
// accepts the same flags, so a failure's reproduce command carries them.
struct RunFlags {
  int64_t max_steps = 0;  // 0: RunOptions' default (not given on the command line)
  bool swarm = true;
  std::string target = "client";  // "merge": `--target merge` (kept out of the header otherwise)
  bool room_views = true;  // `--room-views` (default on; the repro line names it only when off)
};

// {"max_steps": <effective budget>, "swarm": <bool>, "room_views": <bool>}. A header written
// before the view plane was the default has no "room_views": it ran with the plane off.
nlohmann::json RunFlagsToJson(const RunFlags& flags);

// "rindle-sim run --seed <seed> [--max-steps K] [--swarm off] [--room-views off]"; the text overload takes a
// placeholder such as "N".
std::string ReproduceCommand(uint64_t seed, const RunFlags& flags);
std::string ReproduceCommand(const std::string& seed, const RunFlags& flags);

// The header line of a results file: format, this build's version and commit, the options.
nlohmann::json ResultsHeader(const RunFlags& flags);

nlohmann::json ResultToJson(const RunResult& result, bool with_counters);

// Parses a worker line; errors name the field that is missing or mistyped.
absl::StatusOr<RunResult> ResultFromJsonLine(const std::string& line);

// A results file as read back (for --resume).
struct ResultsFile {
  bool has_header = false;            // false only for an empty (or torn-header) file
  nlohmann::json options;             // the header's "options"
  std::map<uint64_t, RunResult> by_seed;
  uintmax_t clean_size = 0;           // bytes of complete lines (a torn tail lies beyond)
  bool torn_tail = false;
};

// Reads `text` (the contents of `path`, named in errors) strictly, as described above.
absl::StatusOr<ResultsFile> ReadResultsText(const std::string& path, const std::string& text);

// Empty when a file made under `recorded` options may be extended under `current`, else the
// first option that differs with both values, e.g. "--max-steps: the file has 300, this
// campaign 200000".
std::string OptionsMismatch(const nlohmann::json& recorded, const nlohmann::json& current);

// One JSON line (no trailing newline), canonical and never throwing on bad UTF-8.
std::string DumpLine(const nlohmann::json& j);

// The failure line printed for a failed seed: "seed=<n> property=<name> step=<k> <message>".
std::string FailureLine(const RunResult& result);

}  // namespace rindle::sim::cli
