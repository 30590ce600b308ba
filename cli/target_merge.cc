// target_merge.cc — `run`, `shrink` and `replay` of the merge target (target_merge.h).
#include "cli/target_merge.h"

#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>

#include "base/json_file.h"
#include "base/str_util.h"
#include "cli/help.h"
#include "cli/result_io.h"
#include "cli/worker.h"
#include "sim/merge/merge_generator.h"
#include "sim/merge/merge_runner.h"
#include "sim/merge/merge_scenario.h"
#include "sim/merge/merge_shrink.h"

namespace rindle::sim::cli {
namespace {

RunResult RunMergeIsolated(const MergeScenario& scenario, const RunOptions& base) {
  RunOptions o = base;
  o.seed = scenario.seed;
  return RunIsolated(o, [&scenario](const RunOptions& ro) {
    return RunMergeScenario(scenario, ro);
  });
}

void PrintMergeResult(const RunResult& r) {
  if (!r.ok) std::printf("%s\n", FailureLine(r).c_str());
  std::printf("seed=%llu target=merge %s digest=%s steps=%lld\n",
              static_cast<unsigned long long>(r.seed), r.ok ? "ok" : "FAILED", r.digest.c_str(),
              static_cast<long long>(r.steps));
  if (r.counters.empty()) return;
  std::printf("counters:\n");
  for (const auto& [name, count] : r.counters) {
    std::printf("  %-40s %12lld\n", name.c_str(), static_cast<long long>(count));
  }
}

// --seed | --scenario into `scenario`; a usage/input error's exit code otherwise.
std::optional<int> ReadMergeScenario(const ParsedArgs& p, const char* command,
                                     MergeScenario& scenario) {
  auto seed_text = p.get("seed");
  auto path = p.get("scenario");
  if (seed_text.has_value() == path.has_value()) {
    return Usage(command, "--seed: required (expected an unsigned integer), or --scenario FILE "
                          "(one of the two)");
  }
  if (seed_text) {
    absl::StatusOr<uint64_t> seed = ParseUint64("seed", *seed_text);
    if (!seed.ok()) return Usage(command, std::string(seed.status().message()));
    scenario = GenerateMergeScenario(*seed);
    return std::nullopt;
  }
  absl::StatusOr<MergeScenario> loaded = ReadMergeScenarioFile(*path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "rindle-sim %s: --scenario: %s\n", command,
                 std::string(loaded.status().message()).c_str());
    return 2;
  }
  scenario = *std::move(loaded);
  return std::nullopt;
}

absl::Status WriteMergeScenario(const MergeScenario& s, const std::string& path) {
  return WriteFileAtomically(path, MergeScenarioToJson(s).dump(1) + "\n");
}

}  // namespace

absl::StatusOr<std::string> ParseTarget(const ParsedArgs& p) {
  auto t = p.get("target");
  if (!t) return std::string("client");
  if (*t == "client" || *t == "merge") return *t;
  return absl::InvalidArgumentError("--target: expected client or merge, got \"" + *t + "\"");
}

int RunMergeTarget(const ParsedArgs& p) {
  for (const char* flag : {"trace", "report", "timeline", "swarm", "note", "room-views"}) {
    if (p.get(flag)) return Usage("run", StrCat("--", flag, ": not supported with --target merge"));
  }
  MergeScenario scenario;
  if (auto code = ReadMergeScenario(p, "run", scenario)) return *code;
  RunOptions options;
  if (auto k = p.get("max-steps")) {
    absl::StatusOr<int64_t> n =
        ParseIntInRange("max-steps", *k, 1, std::numeric_limits<int64_t>::max());
    if (!n.ok()) return Usage("run", std::string(n.status().message()));
    options.max_steps = *n;
  } else {
    options.max_steps = 0;  // every action
  }
  if (auto emit = p.get("emit-scenario")) {
    if (auto err = CheckWritable("emit-scenario", *emit)) return Usage("run", *err);
    if (absl::Status s = WriteMergeScenario(scenario, *emit); !s.ok()) {
      std::fprintf(stderr, "rindle-sim run: --emit-scenario: %s\n", std::string(s.message()).c_str());
      return 2;
    }
  }
  const RunResult r = RunMergeIsolated(scenario, options);
  PrintMergeResult(r);
  if (auto emit = p.get("emit-scenario")) std::printf("scenario: %s\n", emit->c_str());
  return r.ok ? 0 : 1;
}

int ShrinkMergeTarget(const ShrinkCommandOptions& options, std::string* written) {
  MergeScenario original;
  if (options.seed) {
    original = GenerateMergeScenario(*options.seed);
  } else {
    absl::StatusOr<MergeScenario> loaded = ReadMergeScenarioFile(options.scenario_path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "rindle-sim shrink: --scenario: %s\n",
                   std::string(loaded.status().message()).c_str());
      return 2;
    }
    original = *std::move(loaded);
  }
  ShrinkOptions so;
  so.max_runs = options.max_runs;
  const auto start = std::chrono::steady_clock::now();
  const int64_t budget_ms = options.time_budget_ms;
  so.out_of_time = [start, budget_ms] {
    return std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(budget_ms);
  };
  RunOptions base;
  base.max_steps = 0;
  absl::StatusOr<MergeShrinkResult> result = ShrinkMerge(
      original, [&base](const MergeScenario& c) { return RunMergeIsolated(c, base); }, so);
  if (!result.ok()) {
    std::fprintf(stderr, "rindle-sim shrink: %s\n", std::string(result.status().message()).c_str());
    return 1;
  }
  std::string out = options.out_path;
  if (out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.corpus_dir, ec);
    out = StrCat(options.corpus_dir, "/merge-seed-", original.seed, "-",
                 PropertySlug(result->scenario.property), ".json");
  }
  if (absl::Status s = WriteMergeScenario(result->scenario, out); !s.ok()) {
    std::fprintf(stderr, "rindle-sim shrink: --out: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  if (written != nullptr) *written = out;
  std::printf("seed=%llu target=merge property=%s: %zu actions -> %zu actions in %lld runs%s\n",
              static_cast<unsigned long long>(original.seed), result->scenario.property.c_str(),
              result->original_actions, result->scenario.actions.size(),
              static_cast<long long>(result->runs),
              result->budget_spent ? " (budget spent before a fixpoint)" : "");
  std::printf("failure: %s\n", result->failure.message.c_str());
  std::printf("written: %s (replay: rindle-sim replay %s)\n", out.c_str(), out.c_str());
  return 0;
}

bool IsMergeScenarioFile(const std::string& path) {
  absl::StatusOr<nlohmann::json> j = ReadJsonFile(path);
  return j.ok() && IsMergeScenarioJson(*j);
}

absl::StatusOr<ScenarioVerdict> ReplayMergeFile(const std::string& path) {
  absl::StatusOr<MergeScenario> s = ReadMergeScenarioFile(path);
  if (!s.ok()) return s.status();
  RunOptions base;
  base.max_steps = 0;
  return JudgeMergeScenario(*s, RunMergeIsolated(*s, base));
}

}  // namespace rindle::sim::cli
