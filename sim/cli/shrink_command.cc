// shrink_command.cc — see shrink_command.h.
#include "sim/cli/shrink_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_format.h"
#include "engine/str_util.h"
#include "sim/cli/worker.h"
#include "sim/scenario.h"
#include "sim/scenario_generator.h"
#include "sim/shrink.h"

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

int RunShrinkCommand(const ShrinkCommandOptions& options, std::string* written) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  Scenario original;
  if (options.seed) {
    absl::StatusOr<Scenario> g = GenerateScenario(*options.seed, {options.swarm});
    if (!g.ok()) {
      std::fprintf(stderr, "rindle-sim shrink: %s\n", std::string(g.status().message()).c_str());
      return 2;
    }
    original = *std::move(g);
  } else {
    absl::StatusOr<Scenario> loaded = LoadScenario(options.scenario_path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "rindle-sim shrink: --scenario: %s\n",
                   std::string(loaded.status().message()).c_str());
      return 2;
    }
    original = *std::move(loaded);
    if (!original.generated) {
      absl::StatusOr<Scenario> g = GenerateScenario(original.seed, {options.swarm});
      if (!g.ok()) {
        std::fprintf(stderr, "rindle-sim shrink: %s\n",
                     std::string(g.status().message()).c_str());
        return 2;
      }
      g->max_steps = original.max_steps;
      original = *std::move(g);
    }
  }

  if (options.max_steps > 0) original.max_steps = options.max_steps;
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  auto last_print = Clock::now() - std::chrono::hours(1);
  ShrinkOptions so;
  so.max_runs = options.max_runs;
  so.out_of_time = [&] { return elapsed_s() * 1000.0 >= static_cast<double>(options.time_budget_ms); };
  so.progress = [&](const ShrinkProgress& p) {
    if (options.quiet) return;
    const auto now = Clock::now();
    if (now - last_print < (tty ? std::chrono::milliseconds(200) : std::chrono::seconds(5))) return;
    last_print = now;
    const std::string line = absl::StrFormat(
        "[shrink] runs=%d actions=%d faults=%d clients=%d seed_rows=%d pass=%s %.1fs", p.runs,
        p.actions, p.faults, p.clients, p.seed_rows, p.pass, elapsed_s());
    std::fprintf(stderr, tty ? "\r\033[K%s" : "%s\n", line.c_str());
    std::fflush(stderr);
  };
  auto run = [](const Scenario& candidate) {
    RunOptions o;
    o.seed = candidate.seed;
    RunResult r =
        RunIsolated(o, [&candidate](const RunOptions& ro) { return RunScenario(candidate, ro); });
    // A crash's message tells how to rerun the seed; for a scenario that advice is wrong.
    if (!r.ok && r.property == "crash") r.message = r.message.substr(0, r.message.find(" (see its"));
    return r;
  };
  absl::StatusOr<ShrinkResult> result = Shrink(original, run, so);
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
    out = StrCat(options.corpus_dir, "/seed-", original.seed, "-", PropertySlug(shrunk.property),
                 ".json");
  }
  if (absl::Status s = WriteScenarioFile(shrunk, out); !s.ok()) {
    std::fprintf(stderr, "rindle-sim shrink: --out: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  if (written != nullptr) *written = out;
  if (options.print_steps) {
    std::printf("seed=%llu property=%s: %zu actions / %zu faults -> %zu actions / %zu faults, "
                "%zu clients, in %lld runs, %.1fs%s\n",
                static_cast<unsigned long long>(original.seed), shrunk.property.c_str(),
                result->original_actions, result->original_faults, shrunk.actions.size(),
                shrunk.faults.size(), static_cast<size_t>(shrunk.config.clients),
                static_cast<long long>(result->runs), elapsed_s(),
                result->budget_spent ? " (budget spent before a fixpoint)" : "");
    std::printf("failure: %s\n", shrunk.message.c_str());
    std::printf("steps:\n%s", ScenarioSteps(shrunk).c_str());
    std::printf("written: %s (replay: rindle-sim run --scenario %s)\n", out.c_str(), out.c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace rindle::sim::cli
