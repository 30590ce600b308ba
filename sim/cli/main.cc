// main.cc — the `rindle-sim` binary: subcommand dispatch, help texts, and `run`.
//
//   rindle-sim fuzz   --seeds A..B | --time BUDGET  [--jobs N] [--shard I/N] [--out FILE]
//                     [--max-steps K] [--quiet]                         (campaign.h)
//   rindle-sim run    --seed S [--trace FILE] [--max-steps K]             (below)
//   rindle-sim replay DIR|FILE...                                         (replay.h)
//
// Exit codes (SPEC §5): 0 ok, 1 a property failed, 2 usage or input error.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "sim/cli/campaign.h"
#include "sim/cli/flags.h"
#include "sim/cli/replay.h"
#include "sim/cli/result_io.h"
#include "sim/runner.h"

namespace rindle::sim::cli {
namespace {

constexpr char kMainHelp[] = R"(rindle-sim — deterministic simulation and property testing for the Rindle sync
engine.

Usage:
  rindle-sim fuzz   --seeds A..B [--jobs N] [--out FILE] ...   run a fuzz campaign
  rindle-sim run    --seed S [--trace FILE]                     run one seed
  rindle-sim replay DIR|FILE...                                 replay corpus scenarios
  rindle-sim <command> --help                                   help for one command

Every seed is a whole simulated deployment (authority, clients, faulty network) in virtual
time; the same seed always gives the same run and the same trace digest.

Exit codes: 0 ok, 1 a property failed, 2 usage or input error.
)";

constexpr char kFuzzHelp[] = R"(rindle-sim fuzz — run a campaign of seeds.

Usage:
  rindle-sim fuzz --seeds A..B [options]
  rindle-sim fuzz --time BUDGET [--seeds A..B] [options]

Options:
  --seeds A..B     inclusive seed range (unsigned integers, A <= B), or one seed N
  --time BUDGET    wall-clock budget (90, 90s, 15m, 2h): no new seed starts after it;
                   without --seeds the campaign counts up from seed 1
  --jobs N         worker processes running seeds in parallel (default 1)
  --shard I/N      run only the seeds with seed % N == I (0 <= I < N), to split one
                   campaign over N machines
  --out FILE       results file, one JSON line per seed appended the moment it finishes
                   (default rindle-sim-results.jsonl):
                   {seed, ok, property, step, message, digest, steps, virtual_ms}
  --max-steps K    per-seed event budget (a run not quiescent by then fails `liveness`)
  --quiet          no live progress line on stderr

Failing seeds are printed as they are found:
  seed=<n> property=<name> step=<k> <message>
A crashed run (e.g. a failed CHECK) fails its seed with property `crash`; the campaign goes on.
At the end: seeds run/passed/failed, elapsed time, seeds/s, and the summed action and fault
counters. Exit 0 if every seed passed, 1 if any failed, 2 on usage errors.
)";

constexpr char kRunHelp[] = R"(rindle-sim run — run one seed; print its result and trace digest.

Usage:
  rindle-sim run --seed S [--trace FILE] [--max-steps K]

Options:
  --seed S         the seed (unsigned integer)
  --trace FILE     write the full trace, one JSON object per line
  --max-steps K    event budget (a run not quiescent by then fails `liveness`)

Prints `seed=S ok digest=... steps=... virtual_ms=...`, or on failure
`seed=S property=<name> step=<k> <message>` followed by the digest line, then the counters.
Exit 0 if the run passed, 1 if a property failed, 2 on usage errors.
)";

constexpr char kReplayHelp[] = R"(rindle-sim replay — replay saved scenarios (corpus/*.json).

Usage:
  rindle-sim replay DIR|FILE...

A directory replays every *.json file in it (sorted, not recursive). One line per file:
  PASS <file>: ...     the run met the scenario's expectation
  FAIL <file>: ...     it did not (a scenario with "expect": "fail" documents a known bug
                       and passes only while the run still fails that property)
  ERROR <file>: ...    the file could not be read or is not a valid scenario
A bad file does not stop the others. Format: corpus/README.md.
Exit 0 if every file passed, 1 if any failed, 2 if any file is unreadable or invalid.
)";

int Usage(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "rindle-sim%s%s: %s\nTry 'rindle-sim%s%s --help'.\n",
               command.empty() ? "" : " ", command.c_str(), message.c_str(),
               command.empty() ? "" : " ", command.c_str());
  return 2;
}

int Help(const char* text) {
  std::fputs(text, stdout);
  return 0;
}

int FuzzCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seeds", "time", "jobs", "shard", "out", "max-steps"}, {"quiet"}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, spec);
  if (!parsed.ok()) return Usage("fuzz", std::string(parsed.status().message()));
  if (parsed->help) return Help(kFuzzHelp);
  if (!parsed->positional.empty()) {
    return Usage("fuzz", "unexpected argument \"" + parsed->positional[0] + "\"");
  }
  CampaignOptions options;
  if (auto time = parsed->get("time")) {
    absl::StatusOr<int64_t> ms = ParseDurationMs("time", *time);
    if (!ms.ok()) return Usage("fuzz", std::string(ms.status().message()));
    options.time_budget_ms = *ms;
    options.seeds = {1, std::numeric_limits<uint64_t>::max()};
  }
  if (auto seeds = parsed->get("seeds")) {
    absl::StatusOr<SeedRange> range = ParseSeedRange("seeds", *seeds);
    if (!range.ok()) return Usage("fuzz", std::string(range.status().message()));
    options.seeds = *range;
  } else if (!options.time_budget_ms) {
    return Usage("fuzz", "--seeds: required (expected A..B, e.g. --seeds 1..200), or --time");
  }
  if (auto jobs = parsed->get("jobs")) {
    absl::StatusOr<int64_t> n = ParseIntInRange("jobs", *jobs, 1, 1024);
    if (!n.ok()) return Usage("fuzz", std::string(n.status().message()));
    options.jobs = static_cast<int>(*n);
  }
  if (auto shard = parsed->get("shard")) {
    absl::StatusOr<Shard> s = ParseShard("shard", *shard);
    if (!s.ok()) return Usage("fuzz", std::string(s.status().message()));
    options.shard = *s;
  }
  if (auto out = parsed->get("out")) {
    if (out->empty()) return Usage("fuzz", "--out: expected a file path, got \"\"");
    options.out_path = *out;
  }
  if (auto k = parsed->get("max-steps")) {
    absl::StatusOr<int64_t> n =
        ParseIntInRange("max-steps", *k, 1, std::numeric_limits<int64_t>::max());
    if (!n.ok()) return Usage("fuzz", std::string(n.status().message()));
    options.max_steps = *n;
  }
  options.quiet = parsed->has("quiet");
  return RunCampaign(options);
}

int RunCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seed", "trace", "max-steps"}, {}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, spec);
  if (!parsed.ok()) return Usage("run", std::string(parsed.status().message()));
  if (parsed->help) return Help(kRunHelp);
  if (!parsed->positional.empty()) {
    return Usage("run", "unexpected argument \"" + parsed->positional[0] + "\"");
  }
  RunOptions options;
  auto seed_text = parsed->get("seed");
  if (!seed_text) return Usage("run", "--seed: required (expected an unsigned integer)");
  absl::StatusOr<uint64_t> seed = ParseUint64("seed", *seed_text);
  if (!seed.ok()) return Usage("run", std::string(seed.status().message()));
  options.seed = *seed;
  if (auto k = parsed->get("max-steps")) {
    absl::StatusOr<int64_t> n =
        ParseIntInRange("max-steps", *k, 1, std::numeric_limits<int64_t>::max());
    if (!n.ok()) return Usage("run", std::string(n.status().message()));
    options.max_steps = *n;
  }
  if (auto trace = parsed->get("trace")) {
    if (trace->empty()) return Usage("run", "--trace: expected a file path, got \"\"");
    // Fail early and clearly if the trace file cannot be written.
    std::FILE* f = std::fopen(trace->c_str(), "w");
    if (f == nullptr) {
      return Usage("run", "--trace \"" + *trace + "\": cannot open for writing: " +
                              std::strerror(errno));
    }
    std::fclose(f);
    options.trace_path = *trace;
  }

  RunResult r;
  try {
    r = RunSeed(options);
  } catch (const std::exception& e) {
    r = RunResult();
    r.seed = options.seed;
    r.ok = false;
    r.property = "crash";
    r.message = std::string("uncaught exception: ") + e.what();
  }
  if (r.ok) {
    std::printf("seed=%llu ok digest=%s steps=%lld virtual_ms=%lld\n",
                static_cast<unsigned long long>(r.seed), r.digest.c_str(),
                static_cast<long long>(r.steps), static_cast<long long>(r.virtual_ms));
  } else {
    std::printf("%s\n", FailureLine(r).c_str());
    std::printf("seed=%llu FAILED digest=%s steps=%lld virtual_ms=%lld\n",
                static_cast<unsigned long long>(r.seed), r.digest.c_str(),
                static_cast<long long>(r.steps), static_cast<long long>(r.virtual_ms));
  }
  if (!r.counters.empty()) {
    std::printf("counters:\n");
    for (const auto& [name, count] : r.counters) {
      std::printf("  %-40s %12lld\n", name.c_str(), static_cast<long long>(count));
    }
  }
  if (!options.trace_path.empty()) std::printf("trace: %s\n", options.trace_path.c_str());
  return r.ok ? 0 : 1;
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
      return Usage("", "unknown command \"" + args[0] + "\" (expected fuzz, run or replay)");
    }
    return Help(kMainHelp);
  }
  if (command == "fuzz") return FuzzCommand(args);
  if (command == "run") return RunCommand(args);
  if (command == "replay") return ReplayCommand(args);
  return Usage("", "unknown command \"" + command + "\" (expected fuzz, run or replay)");
}

}  // namespace
}  // namespace rindle::sim::cli

int main(int argc, char** argv) { return rindle::sim::cli::Main(argc, argv); }
