// main.cc — the `rindle-sim` binary: subcommand dispatch, help texts, and `run`.
//
//   rindle-sim fuzz   --seeds A..B | --time BUDGET  [--jobs N] [--shard I/N] [--out FILE]
//                     [--max-steps K] [--resume] [--junit FILE] [--determinism-check F]
//                     [--auto-shrink] [--swarm on|off] [--quiet]             (campaign.h)
//   rindle-sim run    --seed S [--trace FILE] [--max-steps K]             (below)
//   rindle-sim replay DIR|FILE...                                         (replay.h)
//   rindle-sim shrink --seed S | --scenario FILE [--max-runs N] [--time T] [--out FILE]
//                                                                         (shrink_command.h)
//   rindle-sim check-case FILE|DIR...                                     (check_case.h)
//   rindle-sim gen-cases --seeds A..B --out DIR [--app DIR]               (check_case.h)
//
// Exit codes (SPEC §5): 0 ok, 1 a property failed, 2 usage or input error.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/campaign.h"
#include "sim/cli/check_case.h"
#include "sim/cli/flags.h"
#include "sim/cli/replay.h"
#include "sim/cli/shrink_command.h"
#include "sim/cli/result_io.h"
#include "sim/runner.h"
#include "sim/scenario.h"
#include "sim/scenario_generator.h"

namespace rindle::sim::cli {
namespace {

constexpr char kMainHelp[] = R"(rindle-sim — deterministic simulation and property testing for the Rindle sync
engine.

Usage:
  rindle-sim fuzz   --seeds A..B [--jobs N] [--out FILE] ...   run a fuzz campaign
  rindle-sim run    --seed S | --scenario FILE                  run one seed or scenario
  rindle-sim replay DIR|FILE...                                 replay corpus scenarios
  rindle-sim shrink --seed S | --scenario FILE                  shrink a failing scenario
  rindle-sim check-case FILE|DIR...                             run recorded engine cases
  rindle-sim gen-cases --seeds A..B --out DIR                   write seeded engine cases
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
  --swarm on|off   swarm testing: each seed draws which action and fault kinds are on and
                   their rates (default on); off runs the default mix
  --resume         continue a killed campaign: seeds already in the results file are not
                   run again (and their results are kept); a torn last line is cut off
                   (that seed runs again); other unreadable lines refuse the resume
  --junit FILE     also write a JUnit XML summary (one testcase per seed)
  --determinism-check F
                   the fraction of seeds run twice in separate workers, comparing trace
                   digests (default 0.05; 0 turns it off); a mismatch fails the seed with
                   property `nondeterminism`, both digests and the first differing line
  --auto-shrink    after the seeds, shrink every failure into <corpus>/pending/
  --corpus DIR     where --auto-shrink writes (default corpus, files go to DIR/pending/)
  --shrink-time T  --auto-shrink budget per failure (default 60s)
  --quiet          no live progress line on stderr

Failing seeds are printed as they are found:
  seed=<n> property=<name> step=<k> <message>
A crashed run (e.g. a failed CHECK) fails its seed with property `crash`; the campaign goes on.
At the end: seeds run/passed/failed, elapsed time, seeds/s, and the summed action and fault
counters. Exit 0 if every seed passed, 1 if any failed, 2 on usage errors.
)";

constexpr char kRunHelp[] = R"(rindle-sim run — run one seed or one scenario; print its result and digest.

Usage:
  rindle-sim run --seed S [options]
  rindle-sim run --scenario FILE [options]

Options:
  --seed S               generate the scenario of seed S (unsigned integer) and run it
  --scenario FILE        run a saved scenario (corpus/README.md) without the generator;
                         a scenario emitted by --seed S gives the same digest as --seed S
  --emit-scenario FILE   write the scenario that runs (rindle-scenario/2 JSON)
  --note TEXT            with --emit-scenario: the scenario's one-line note
  --swarm on|off         with --seed: swarm testing (each seed draws which action and
                         fault kinds are on, and their rates; default on) or the default mix
  --trace FILE           write the full trace, one JSON object per line
  --timeline FILE.html   write a self-contained HTML timeline (one lane per client and the
                         authority, messages as arrows, faults shaded, the failure marked)
  --steps                print the scenario's steps (one line per action and fault)
  --max-steps K          event budget (a run not quiescent by then fails `liveness`)

Prints `seed=S ok digest=... steps=... virtual_ms=...`, or on failure
`seed=S property=<name> step=<k> <message>` followed by the digest line, then the counters.
Exit 0 if the run passed, 1 if a property failed, 2 on usage or input errors.
)";

constexpr char kShrinkHelp[] = R"(rindle-sim shrink — shrink a failing seed or scenario to a small one that
still fails the same property.

Usage:
  rindle-sim shrink --seed S [options]
  rindle-sim shrink --scenario FILE [options]

Options:
  --seed S          generate seed S's scenario (with --swarm on|off, default on) and shrink it
  --scenario FILE   shrink a saved scenario (rindle-scenario/2, or a /1 seed-only file)
  --max-runs N      at most N simulation runs (default 2000)
  --time BUDGET     wall-clock budget (60, 60s, 5m; default 60s)
  --out FILE        where to write the result (default corpus/seed-<S>-<property>.json)
  --corpus DIR      the directory the default output goes to (default corpus)
  --quiet           no progress line on stderr

Passes: ddmin over faults and actions, fault kinds off one at a time, fewer clients, ddmin
over seed rows, then simplifications (no loss/duplication, minimum latency, shorter fault
windows and delays, shorter strings, smaller integers), repeated until nothing changes or
the budget is spent. Every candidate runs in its own process. Prints the minimal scenario
as a list of steps and writes it with "expect": "fail", the property and its message.
Exit 0 shrunk and written, 1 the scenario does not fail, 2 usage or input error.
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

// Fails early and clearly if `path` (for --flag) cannot be written.
std::optional<std::string> CheckWritable(const std::string& flag, const std::string& path) {
  if (path.empty()) return "--" + flag + ": expected a file path, got \"\"";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return "--" + flag + " \"" + path + "\": cannot open for writing: " + std::strerror(errno);
  }
  std::fclose(f);
  return std::nullopt;
}

absl::StatusOr<bool> ParseOnOff(const std::string& flag, const std::string& text) {
  if (text == "on") return true;
  if (text == "off") return false;
  return absl::InvalidArgumentError("--" + flag + ": expected on or off, got \"" + text + "\"");
}

int FuzzCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seeds", "time", "jobs", "shard", "out", "max-steps", "junit",
                 "determinism-check", "swarm", "corpus", "shrink-time"},
                {"quiet", "resume", "auto-shrink"}};
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
  options.resume = parsed->has("resume");
  options.auto_shrink = parsed->has("auto-shrink");
  if (auto junit = parsed->get("junit")) {
    if (auto err = CheckWritable("junit", *junit)) return Usage("fuzz", *err);
    std::error_code ec;
    if (*junit == options.out_path ||
        std::filesystem::equivalent(*junit, options.out_path, ec)) {
      return Usage("fuzz", "--junit: must differ from the results file (--out), which it would "
                           "overwrite");
    }
    options.junit_path = *junit;
  }
  if (auto fraction = parsed->get("determinism-check")) {
    absl::StatusOr<uint32_t> ppm = ParseFractionPerMillion("determinism-check", *fraction);
    if (!ppm.ok()) return Usage("fuzz", std::string(ppm.status().message()));
    options.determinism_per_million = *ppm;
  }
  if (auto swarm = parsed->get("swarm")) {
    absl::StatusOr<bool> on = ParseOnOff("swarm", *swarm);
    if (!on.ok()) return Usage("fuzz", std::string(on.status().message()));
    options.swarm = *on;
  }
  if (auto dir = parsed->get("corpus")) {
    if (dir->empty()) return Usage("fuzz", "--corpus: expected a directory, got \"\"");
    options.corpus_dir = *dir;
  }
  if (auto t = parsed->get("shrink-time")) {
    absl::StatusOr<int64_t> ms = ParseDurationMs("shrink-time", *t);
    if (!ms.ok()) return Usage("fuzz", std::string(ms.status().message()));
    options.shrink_time_ms = *ms;
  }
  return RunCampaign(options);
}

int RunCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seed", "scenario", "emit-scenario", "note", "swarm", "trace", "timeline",
                 "max-steps"},
                {"steps"}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, spec);
  if (!parsed.ok()) return Usage("run", std::string(parsed.status().message()));
  if (parsed->help) return Help(kRunHelp);
  if (!parsed->positional.empty()) {
    return Usage("run", "unexpected argument \"" + parsed->positional[0] + "\"");
  }
  RunOptions options;
  auto seed_text = parsed->get("seed");
  auto scenario_path = parsed->get("scenario");
  if (seed_text.has_value() == scenario_path.has_value()) {
    return Usage("run", "--seed: required (expected an unsigned integer), or --scenario FILE "
                        "(one of the two)");
  }
  if (auto swarm = parsed->get("swarm")) {
    absl::StatusOr<bool> on = ParseOnOff("swarm", *swarm);
    if (!on.ok()) return Usage("run", std::string(on.status().message()));
    options.swarm = *on;
  }
  Scenario scenario;
  if (seed_text) {
    absl::StatusOr<uint64_t> seed = ParseUint64("seed", *seed_text);
    if (!seed.ok()) return Usage("run", std::string(seed.status().message()));
    options.seed = *seed;
    absl::StatusOr<Scenario> generated = GenerateScenario(*seed, {options.swarm});
    if (!generated.ok()) {
      std::fprintf(stderr, "rindle-sim run: %s\n", std::string(generated.status().message()).c_str());
      return 2;
    }
    scenario = *std::move(generated);
  } else {
    absl::StatusOr<Scenario> loaded = LoadScenario(*scenario_path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "rindle-sim run: --scenario: %s\n",
                   std::string(loaded.status().message()).c_str());
      return 2;
    }
    scenario = *std::move(loaded);
    if (!scenario.generated) {  // a seed-only /1 file
      absl::StatusOr<Scenario> generated = GenerateScenario(scenario.seed, {options.swarm});
      if (!generated.ok()) {
        std::fprintf(stderr, "rindle-sim run: %s\n",
                     std::string(generated.status().message()).c_str());
        return 2;
      }
      generated->max_steps = scenario.max_steps;
      scenario = *std::move(generated);
    }
    options.seed = scenario.seed;
  }
  if (auto k = parsed->get("max-steps")) {
    absl::StatusOr<int64_t> n =
        ParseIntInRange("max-steps", *k, 1, std::numeric_limits<int64_t>::max());
    if (!n.ok()) return Usage("run", std::string(n.status().message()));
    options.max_steps = *n;
    scenario.max_steps.reset();
  }
  if (auto trace = parsed->get("trace")) {
    if (auto err = CheckWritable("trace", *trace)) return Usage("run", *err);
    options.trace_path = *trace;
  }
  if (auto timeline = parsed->get("timeline")) {
    if (auto err = CheckWritable("timeline", *timeline)) return Usage("run", *err);
    options.timeline_path = *timeline;
  }
  if (auto note = parsed->get("note")) scenario.note = *note;
  if (auto emit = parsed->get("emit-scenario")) {
    if (auto err = CheckWritable("emit-scenario", *emit)) return Usage("run", *err);
    if (absl::Status s = WriteScenarioFile(scenario, *emit); !s.ok()) {
      std::fprintf(stderr, "rindle-sim run: --emit-scenario: %s\n",
                   std::string(s.message()).c_str());
      return 2;
    }
  }
  if (parsed->has("steps")) std::fputs(ScenarioSteps(scenario).c_str(), stdout);

  RunResult r;
  try {
    r = RunScenario(scenario, options);
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
  if (!options.timeline_path.empty()) {
    std::printf("timeline: %s\n", options.timeline_path.c_str());
  }
  if (auto emit = parsed->get("emit-scenario")) std::printf("scenario: %s\n", emit->c_str());
  return r.ok ? 0 : 1;
}

int ShrinkCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seed", "scenario", "max-runs", "time", "out", "corpus", "swarm"}, {"quiet"}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, spec);
  if (!parsed.ok()) return Usage("shrink", std::string(parsed.status().message()));
  if (parsed->help) return Help(kShrinkHelp);
  if (!parsed->positional.empty()) {
    return Usage("shrink", "unexpected argument \"" + parsed->positional[0] + "\"");
  }
  ShrinkCommandOptions options;
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
      return Usage("", "unknown command \"" + args[0] + "\" (expected fuzz, run, shrink, replay, check-case or gen-cases)");
    }
    return Help(kMainHelp);
  }
  if (command == "fuzz") return FuzzCommand(args);
  if (command == "run") return RunCommand(args);
  if (command == "replay") return ReplayCommand(args);
  if (command == "shrink") return ShrinkCommand(args);
  if (command == "check-case") return CheckCaseCommand(args);
  if (command == "gen-cases") return GenCasesCommand(args);
  return Usage("", "unknown command \"" + command + "\" (expected fuzz, run, shrink, replay, check-case or gen-cases)");
}

}  // namespace
}  // namespace rindle::sim::cli

int main(int argc, char** argv) { return rindle::sim::cli::Main(argc, argv); }
