// run_command.cc — `rindle-sim run`: one seed (generated) or one scenario file, run once; prints
// the optional step list, the result line with its trace digest, the counters and the files it
// wrote. Exit 0 ok, 1 a property failed (a crash of the simulated code included: the run executes
// in a forked child, see RunCrashProof), 2 usage or input error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "base/check.h"
#include "base/json_file.h"
#include "base/str_util.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/help.h"
#include "cli/result_io.h"
#include "cli/target_merge.h"
#include "cli/worker.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_generator.h"

namespace rindle::sim::cli {
namespace {

// Generates the scenario of `seed`, or prints why not (exit 2).
std::optional<int> Generate(uint64_t seed, const RunOptions& options, Scenario& scenario) {
  absl::StatusOr<Scenario> generated = GenerateScenario(seed, {options.swarm, options.room_views});
  if (!generated.ok()) {
    std::fprintf(stderr, "rindle-sim run: %s\n", std::string(generated.status().message()).c_str());
    return 2;
  }
  scenario = *std::move(generated);
  return std::nullopt;
}

// --scenario FILE: loaded; a seed-only /1 file is generated from its seed (keeping max_steps).
std::optional<int> Load(const std::string& path, const RunOptions& options, Scenario& scenario) {
  absl::StatusOr<Scenario> loaded = LoadScenario(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "rindle-sim run: --scenario: %s\n",
                 std::string(loaded.status().message()).c_str());
    return 2;
  }
  scenario = *std::move(loaded);
  if (scenario.generated) return std::nullopt;
  const std::optional<int64_t> max_steps = scenario.max_steps;
  if (auto code = Generate(scenario.seed, options, scenario)) return code;
  scenario.max_steps = max_steps;
  return std::nullopt;
}

// --seed | --scenario, --swarm and --room-views: the scenario to run. Returns the exit code on an error.
std::optional<int> ReadScenario(const ParsedArgs& p, RunOptions& options, Scenario& scenario) {
  auto seed_text = p.get("seed");
  auto scenario_path = p.get("scenario");
  if (seed_text.has_value() == scenario_path.has_value()) {
    return Usage("run", "--seed: required (expected an unsigned integer), or --scenario FILE "
                        "(one of the two)");
  }
  if (auto swarm = p.get("swarm")) {
    absl::StatusOr<bool> on = ParseOnOff("swarm", *swarm);
    if (!on.ok()) return Usage("run", std::string(on.status().message()));
    options.swarm = *on;
  }
  if (auto views = p.get("room-views")) {
    absl::StatusOr<bool> on = ParseOnOff("room-views", *views);
    if (!on.ok()) return Usage("run", std::string(on.status().message()));
    options.room_views = *on;
  }
  if (seed_text) {
    absl::StatusOr<uint64_t> seed = ParseUint64("seed", *seed_text);
    if (!seed.ok()) return Usage("run", std::string(seed.status().message()));
    options.seed = *seed;
    return Generate(*seed, options, scenario);
  }
  if (auto code = Load(*scenario_path, options, scenario)) return code;
  options.seed = scenario.seed;
  return std::nullopt;
}

// An output file the run writes: first to `temp` beside `path`, renamed into place after the run.
struct PendingOutput {
  std::string temp;
  std::string path;
};

// No output path is the --scenario input or another output. The message, or nullopt.
std::optional<std::string> CheckOutputPaths(const ParsedArgs& p) {
  std::vector<std::pair<std::string, std::string>> seen;  // (flag, path)
  if (auto in = p.get("scenario")) seen.emplace_back("scenario", *in);
  for (const char* flag : {"emit-scenario", "trace", "report", "timeline"}) {
    auto out = p.get(flag);
    if (!out) continue;
    if (auto err = CheckWritable(flag, *out)) return err;
    for (const auto& [other_flag, other] : seen) {
      if (auto err = CheckNotInput(flag, *out, other_flag, other)) return err;
    }
    seen.emplace_back(flag, *out);
  }
  return std::nullopt;
}

// `path` for --flag becomes a temporary beside it (created now), committed after the run.
std::optional<int> Pend(const std::string& flag, const std::string& path, std::string& option,
                        std::vector<PendingOutput>& pending) {
  absl::StatusOr<std::string> temp = CreateTempFileFor(path);
  if (!temp.ok()) return Usage("run", "--" + flag + ": " + std::string(temp.status().message()));
  pending.push_back({*temp, path});
  option = *temp;
  return std::nullopt;
}

// --max-steps, --trace, --report (or its old name --timeline), --note, --emit-scenario (written
// now). Exit code on error.
std::optional<int> ReadOutputs(const ParsedArgs& p, RunOptions& options, Scenario& scenario,
                               std::vector<PendingOutput>& pending) {
  if (auto err = CheckOutputPaths(p)) return Usage("run", *err);
  if (p.has("report") && p.has("timeline")) {
    return Usage("run", "--timeline is the old name of --report: give one of the two");
  }
  if (auto k = p.get("max-steps")) {
    absl::StatusOr<int64_t> n =
        ParseIntInRange("max-steps", *k, 1, std::numeric_limits<int64_t>::max());
    if (!n.ok()) return Usage("run", std::string(n.status().message()));
    options.max_steps = *n;
    scenario.max_steps = *n;  // carried by --emit-scenario, so the saved file reproduces the run
  }
  if (auto note = p.get("note")) scenario.note = *note;
  if (auto emit = p.get("emit-scenario")) {
    if (absl::Status s = WriteScenarioFile(scenario, *emit); !s.ok()) {
      std::fprintf(stderr, "rindle-sim run: --emit-scenario: %s\n",
                   std::string(s.message()).c_str());
      return 2;
    }
  }
  if (auto trace = p.get("trace")) {
    if (auto code = Pend("trace", *trace, options.trace_path, pending)) return code;
  }
  for (const char* flag : {"report", "timeline"}) {
    auto report = p.get(flag);
    if (!report) continue;
    if (auto code = Pend(flag, *report, options.timeline_path, pending)) return code;
  }
  return std::nullopt;
}

// Renames every pending output into place (or removes its temporary). Exit code on error.
std::optional<int> CommitOutputs(const std::vector<PendingOutput>& pending, RunOptions& options) {
  std::optional<int> code;
  for (const PendingOutput& out : pending) {
    if (absl::Status s = CommitTempFile(out.temp, out.path); !s.ok() && !code) {
      std::fprintf(stderr, "rindle-sim run: %s\n", std::string(s.message()).c_str());
      code = 2;
    }
    if (options.trace_path == out.temp) options.trace_path = out.path;
    if (options.timeline_path == out.temp) options.timeline_path = out.path;
  }
  return code;
}

// The run; an exception escaping it is the run's crash, not the binary's.
RunResult RunGuarded(const Scenario& scenario, const RunOptions& options) {
  try {
    return RunScenario(scenario, options);
  } catch (const std::exception& e) {
    RunResult r;
    r.seed = options.seed;
    r.ok = false;
    r.property = "crash";
    r.message = std::string("uncaught exception: ") + e.what();
    return r;
  }
}

// The job of the run's child process: the run, or (test-only knobs, worker.h TestFault) a run
// cut after N steps followed by a deliberate fault.
RunResult ChildRun(const Scenario& scenario, const RunOptions& options) {
  const TestFault fault = TestFaultFor(options.seed);
  if (fault.kind == TestFault::kNone) return RunGuarded(scenario, options);
  Scenario cut = scenario;
  cut.max_steps = fault.at_step;
  EnactTestFault(fault, RunGuarded(cut, options));
}

// The run, in a forked child (worker.h RunIsolated), so that a crash of the simulated code — a
// failed CHECK aborts, a signal kills — is this run's `crash` failure (exit 1) rather than the
// binary's (exit 134). The child's stderr is captured (and passed on to ours): its last line,
// the CHECK message, is the failure message. Cannot fork: runs in-process.
RunResult RunCrashProof(const Scenario& scenario, const RunOptions& options) {
  return RunIsolated(options, [&scenario](const RunOptions& o) { return ChildRun(scenario, o); });
}

void PrintResult(const RunResult& r, const RunOptions& options, const ParsedArgs& p) {
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
    std::printf("report: %s\n", options.timeline_path.c_str());
  }
  if (auto emit = p.get("emit-scenario")) std::printf("scenario: %s\n", emit->c_str());
}

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  FlagSpec spec{{"seed", "scenario", "emit-scenario", "note", "swarm", "trace", "report",
                 "timeline", "max-steps", "target", "room-views"},
                {"steps"}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, spec);
  if (!parsed.ok()) return Usage("run", std::string(parsed.status().message()));
  if (parsed->help) return Help(kRunHelp);
  if (!parsed->positional.empty()) {
    return Usage("run", "unexpected argument \"" + parsed->positional[0] + "\"");
  }
  absl::StatusOr<std::string> target = ParseTarget(*parsed);
  if (!target.ok()) return Usage("run", std::string(target.status().message()));
  if (*target == "merge") return RunMergeTarget(*parsed);
  RunOptions options;
  options.room_views = true;  // the CLI's default mix drives the room view plane (--room-views off)
  Scenario scenario;
  if (auto code = ReadScenario(*parsed, options, scenario)) return *code;
  std::vector<PendingOutput> pending;
  if (auto code = ReadOutputs(*parsed, options, scenario, pending)) {
    for (const PendingOutput& out : pending) DiscardTempFile(out.temp, out.path);
    return *code;
  }
  if (parsed->has("steps")) std::fputs(ScenarioSteps(scenario).c_str(), stdout);
  // The child writes --trace/--report into their temporaries; they are renamed into place here.
  const RunResult r = RunCrashProof(scenario, options);
  if (auto code = CommitOutputs(pending, options)) return *code;
  PrintResult(r, options, *parsed);
  return r.ok ? 0 : 1;
}

}  // namespace rindle::sim::cli
