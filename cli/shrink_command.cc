// shrink_command.cc — see shrink_command.h.
#include "cli/shrink_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/str_format.h"
#include "base/str_util.h"
#include "cli/flags.h"
#include "cli/target_merge.h"
#include "cli/worker.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/scenario/shrink.h"

namespace rindle::sim::cli {

std::string PropertySlug(const std::string& property) {
  std::string out;
  for (char c : property) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "failure" : out;
}

namespace {

using Clock = std::chrono::steady_clock;

// The scenario to shrink: generated from --seed, or loaded (a /1 file generated from its seed).
// Prints why not and returns nullopt on an error (exit 2).
std::optional<Scenario> OriginalScenario(const ShrinkCommandOptions& options) {
  const uint64_t seed = options.seed ? *options.seed : 0;
  std::optional<int64_t> max_steps;
  if (!options.seed) {
    absl::StatusOr<Scenario> loaded = LoadScenario(options.scenario_path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "rindle-sim shrink: --scenario: %s\n",
                   std::string(loaded.status().message()).c_str());
      return std::nullopt;
    }
    if (loaded->generated) return *std::move(loaded);
    max_steps = loaded->max_steps;
    absl::StatusOr<Scenario> g = GenerateScenario(loaded->seed, {options.swarm, options.room_views});
    if (!g.ok()) {
      std::fprintf(stderr, "rindle-sim shrink: %s\n", std::string(g.status().message()).c_str());
      return std::nullopt;
    }
    g->max_steps = max_steps;
    return *std::move(g);
  }
  absl::StatusOr<Scenario> g = GenerateScenario(seed, {options.swarm, options.room_views});
  if (!g.ok()) {
    std::fprintf(stderr, "rindle-sim shrink: %s\n", std::string(g.status().message()).c_str());
    return std::nullopt;
  }
  return *std::move(g);
}

// One candidate run, in a child process (a crash fails the candidate, not the shrinker).
RunResult RunCandidate(const Scenario& candidate) {
  RunOptions o;
  o.seed = candidate.seed;
  RunResult r =
      RunIsolated(o, [&candidate](const RunOptions& ro) { return RunScenario(candidate, ro); });
  // A crash's message tells how to rerun the seed; for a scenario that advice is wrong.
  if (!r.ok && r.property == "crash") r.message = r.message.substr(0, r.message.find(" (see its"));
  return r;
}

// The budget and the progress line on stderr (a live line on a terminal, else every 5 s).
ShrinkOptions MakeShrinkOptions(const ShrinkCommandOptions& options, Clock::time_point start) {
  auto elapsed_s = [start] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  ShrinkOptions so;
  so.max_runs = options.max_runs;
  const int64_t budget_ms = options.time_budget_ms;
  so.out_of_time = [elapsed_s, budget_ms] {
    return elapsed_s() * 1000.0 >= static_cast<double>(budget_ms);
  };
  so.progress = [elapsed_s, tty, quiet = options.quiet,
                 last_print = Clock::now() - std::chrono::hours(1)](
                    const ShrinkProgress& p) mutable {
    if (quiet) return;
    const auto now = Clock::now();
    if (now - last_print < (tty ? std::chrono::milliseconds(200) : std::chrono::seconds(5))) return;
    last_print = now;
    const std::string line = absl::StrFormat(
        "[shrink] runs=%d actions=%d faults=%d clients=%d seed_rows=%d pass=%s %.1fs", p.runs,
        p.actions, p.faults, p.clients, p.seed_rows, p.pass, elapsed_s());
    std::fprintf(stderr, tty ? "\r\033[K%s" : "%s\n", line.c_str());
    std::fflush(stderr);
  };
  return so;
}

void PrintShrunk(const Scenario& original, const ShrinkResult& result, const std::string& out,
                 double elapsed_s) {
  const Scenario& shrunk = result.scenario;
  std::printf("seed=%llu property=%s: %zu actions / %zu faults -> %zu actions / %zu faults, "
              "%zu clients, in %lld runs, %.1fs%s\n",
              static_cast<unsigned long long>(original.seed), shrunk.property.c_str(),
              result.original_actions, result.original_faults, shrunk.actions.size(),
              shrunk.faults.size(), static_cast<size_t>(shrunk.config.clients),
              static_cast<long long>(result.runs), elapsed_s,
              result.budget_spent ? " (budget spent before a fixpoint)" : "");
  std::printf("failure: %s\n", shrunk.message.c_str());
  std::printf("steps:\n%s", ScenarioSteps(shrunk).c_str());
  std::printf("written: %s (replay: rindle-sim run --scenario %s)\n", out.c_str(), out.c_str());
}

}  // namespace

int RunShrinkCommand(const ShrinkCommandOptions& options, std::string* written) {
  if (options.merge) return ShrinkMergeTarget(options, written);
  const auto start = Clock::now();
  if (!options.out_path.empty() && !options.seed) {
    if (auto err = CheckNotInput("out", options.out_path, "scenario", options.scenario_path)) {
      std::fprintf(stderr, "rindle-sim shrink: %s\n", err->c_str());
      return 2;
    }
  }
  std::optional<Scenario> original = OriginalScenario(options);
  if (!original) return 2;
  if (options.max_steps > 0) original->max_steps = options.max_steps;
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  absl::StatusOr<ShrinkResult> result =
      Shrink(*original, RunCandidate, MakeShrinkOptions(options, start));
  if (!options.quiet && tty) std::fprintf(stderr, "\r\033[K");
  if (!result.ok()) {
    std::fprintf(stderr, "rindle-sim %s\n", std::string(result.status().message()).c_str());
    return 1;
  }
  const Scenario& shrunk = result->scenario;
  std::string out = options.out_path;
  if (out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.corpus_dir, ec);
    out = StrCat(options.corpus_dir, "/seed-", original->seed, "-", PropertySlug(shrunk.property),
                 ".json");
  }
  if (absl::Status s = WriteScenarioFile(shrunk, out); !s.ok()) {
    std::fprintf(stderr, "rindle-sim shrink: --out: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  if (written != nullptr) *written = out;
  if (options.print_steps) {
    PrintShrunk(*original, *result, out,
                std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace rindle::sim::cli
