// main.cc — the `rindle-sim` binary: subcommand dispatch, and the thin `shrink` and `replay`
// commands. The help texts are help.cc; `fuzz` and `run` are fuzz_command.cc / run_command.cc.
//
//   rindle-sim fuzz   --seeds A..B | --time BUDGET  [--jobs N] [--shard I/N] [--out FILE]
//                     [--max-steps K] [--resume] [--junit FILE] [--determinism-check F]
//                     [--auto-shrink] [--swarm on|off] [--quiet]             (campaign.h)
//   rindle-sim run    --seed S [--trace FILE] [--max-steps K]             (run_command.cc)
//   rindle-sim replay DIR|FILE...                                         (replay.h)
//   rindle-sim shrink --seed S | --scenario FILE [--max-runs N] [--time T] [--out FILE]
//                                                                         (shrink_command.h)
//   rindle-sim check-case FILE|DIR...                                     (check_case.h)
//   rindle-sim gen-cases --seeds A..B --out DIR [--app DIR]               (check_case.h)
//   rindle-sim merge  FILE... --out FILE [--junit FILE]                   (merge.h)
//   rindle-sim --version                                                  (version.h)
//
// Exit codes (SPEC §5): 0 ok, 1 a property failed, 2 usage or input error.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/check_case.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/help.h"
#include "cli/merge.h"
#include "cli/replay.h"
#include "cli/shrink_command.h"
#include "cli/target_merge.h"
#include "cli/version.h"

namespace rindle::sim::cli {
namespace {

int ShrinkCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seed", "scenario", "max-runs", "time", "out", "corpus", "swarm", "target",
                 "room-views"},
                {"quiet"}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, spec);
  if (!parsed.ok()) return Usage("shrink", std::string(parsed.status().message()));
  if (parsed->help) return Help(kShrinkHelp);
  if (!parsed->positional.empty()) {
    return Usage("shrink", "unexpected argument \"" + parsed->positional[0] + "\"");
  }
  ShrinkCommandOptions options;
  absl::StatusOr<std::string> target = ParseTarget(*parsed);
  if (!target.ok()) return Usage("shrink", std::string(target.status().message()));
  options.merge = *target == "merge";
  auto seed_text = parsed->get("seed");
  auto scenario_path = parsed->get("scenario");
  if (seed_text.has_value() == scenario_path.has_value()) {
    return Usage("shrink", "--seed: required (expected an unsigned integer), or --scenario FILE "
                           "(one of the two)");
  }
  if (seed_text) {
    absl::StatusOr<uint64_t> seed = ParseUint64("seed", *seed_text);
    if (!seed.ok()) return Usage("shrink", std::string(seed.status().message()));
    options.seed = *seed;
  } else {
    options.scenario_path = *scenario_path;
  }
  if (auto swarm = parsed->get("swarm")) {
    absl::StatusOr<bool> on = ParseOnOff("swarm", *swarm);
    if (!on.ok()) return Usage("shrink", std::string(on.status().message()));
    options.swarm = *on;
  }
  if (auto views = parsed->get("room-views")) {
    absl::StatusOr<bool> on = ParseOnOff("room-views", *views);
    if (!on.ok()) return Usage("shrink", std::string(on.status().message()));
    options.room_views = *on;
  }
  if (auto n = parsed->get("max-runs")) {
    absl::StatusOr<int64_t> v = ParseIntInRange("max-runs", *n, 1, 100000000);
    if (!v.ok()) return Usage("shrink", std::string(v.status().message()));
    options.max_runs = *v;
  }
  if (auto t = parsed->get("time")) {
    absl::StatusOr<int64_t> ms = ParseDurationMs("time", *t);
    if (!ms.ok()) return Usage("shrink", std::string(ms.status().message()));
    options.time_budget_ms = *ms;
  }
  if (auto out = parsed->get("out")) {
    if (auto err = CheckWritable("out", *out)) return Usage("shrink", *err);
    options.out_path = *out;
  }
  if (auto dir = parsed->get("corpus")) {
    if (dir->empty()) return Usage("shrink", "--corpus: expected a directory, got \"\"");
    options.corpus_dir = *dir;
  }
  options.quiet = parsed->has("quiet");
  return RunShrinkCommand(options);
}

int ReplayCommand(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSpec{});
  if (!parsed.ok()) return Usage("replay", std::string(parsed.status().message()));
  if (parsed->help) return Help(kReplayHelp);
  if (parsed->positional.empty()) {
    return Usage("replay", "expected one or more scenario files or directories (e.g. corpus/)");
  }
  return RunReplay(parsed->positional);
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kMainHelp, stderr);
    return 2;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "-h" || command == "--help" || command == "help") {
    if (command == "help" && !args.empty()) {
      if (args[0] == "fuzz") return Help(kFuzzHelp);
      if (args[0] == "run") return Help(kRunHelp);
      if (args[0] == "replay") return Help(kReplayHelp);
      if (args[0] == "shrink") return Help(kShrinkHelp);
      if (args[0] == "check-case") return Help(kCheckCaseHelp);
      if (args[0] == "gen-cases") return Help(kGenCasesHelp);
      if (args[0] == "merge") return Help(kMergeHelp);
      return Usage("", "unknown command \"" + args[0] + "\" (expected fuzz, run, shrink, replay, merge, check-case or gen-cases)");
    }
    return Help(kMainHelp);
  }
  if (command == "--version" || command == "version") {
    std::printf("%s\n", VersionLine().c_str());
    return 0;
  }
  if (command == "fuzz") return FuzzCommand(args);
  if (command == "run") return RunCommand(args);
  if (command == "replay") return ReplayCommand(args);
  if (command == "shrink") return ShrinkCommand(args);
  if (command == "check-case") return CheckCaseCommand(args);
  if (command == "gen-cases") return GenCasesCommand(args);
  if (command == "merge") return MergeCommand(args);
  return Usage("", "unknown command \"" + command + "\" (expected fuzz, run, shrink, replay, merge, check-case or gen-cases)");
}

}  // namespace
}  // namespace rindle::sim::cli

int main(int argc, char** argv) { return rindle::sim::cli::Main(argc, argv); }
