// target_merge.h — the CLI side of `--target merge` (issue 14): `run --target merge`,
// `shrink --target merge`, and the merge branch of `replay` (a file whose "target" is "merge").
// The campaign (`fuzz --target merge`) runs RunMergeSeed in its worker pool (campaign.cc).
// Stateless entry points; every run executes in a forked child (worker.h RunIsolated), so a
// crash of the engine is the run's `crash` failure.
//
//   rindle-sim run --target merge --seed S | --scenario FILE [--emit-scenario FILE]
//                  [--max-steps K]
//   rindle-sim shrink --target merge --seed S | --scenario FILE [--out FILE] [--corpus DIR]
//
// Exit codes: 0 ok, 1 a property failed (shrink: the scenario does not fail), 2 usage or input
// error (a bad flag, an unreadable or malformed scenario file, naming the file and the field).
#pragma once

#include <optional>
#include <string>

#include "cli/flags.h"
#include "cli/shrink_command.h"
#include "sim/run/runner.h"

namespace rindle::sim::cli {

// --target: "client" (the default) or "merge"; a usage message for anything else.
absl::StatusOr<std::string> ParseTarget(const ParsedArgs& p);

int RunMergeTarget(const ParsedArgs& p);
int ShrinkMergeTarget(const ShrinkCommandOptions& options, std::string* written);

// True when the JSON file at `path` is a merge scenario (a file that does not parse: false; the
// caller's own loader reports it).
bool IsMergeScenarioFile(const std::string& path);
// Loads and replays a merge scenario file in a forked child: the verdict, or the load error.
absl::StatusOr<ScenarioVerdict> ReplayMergeFile(const std::string& path);

}  // namespace rindle::sim::cli
