// shrink_command.h — `rindle-sim shrink --seed S | --scenario FILE`: shrinks a failing scenario
// (sim/scenario/shrink.h) with every candidate run in a forked worker (worker.h, so a crashing candidate
// is a `crash` failure, not a dead shrinker), prints a progress line on stderr, the minimal
// scenario's steps on stdout, and writes it (rindle-scenario/2, expect "fail", the property, its
// failure message, the original seed) to --out or <corpus-dir>/seed-<S>-<property>.json.
// Stateless entry point. Wall clock: only here (the --time budget, the progress line).
//
// Exit codes: 0 shrunk and written; 1 the scenario does not fail (nothing to shrink);
// 2 usage or input error (bad flag, unreadable scenario, unwritable output).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rindle::sim::cli {

struct ShrinkCommandOptions {
  std::optional<uint64_t> seed;
  std::string scenario_path;      // when no seed
  bool swarm = true;              // with seed: generation mode
  bool room_views = true;         // with seed: generated config.room_views (`--room-views`, default on)
  int64_t max_runs = 2000;
  int64_t time_budget_ms = 60000;
  std::string out_path;           // "" = <corpus_dir>/seed-<S>-<property>.json
  std::string corpus_dir = "corpus";
  bool quiet = false;             // no progress line
  bool print_steps = true;
  int64_t max_steps = 0;          // > 0: the per-run event budget (as the campaign used)
  bool merge = false;             // --target merge (target_merge.h)
};

// Returns the exit code. `written` (if not null) receives the path written.
int RunShrinkCommand(const ShrinkCommandOptions& options, std::string* written = nullptr);

// A file-name-safe slug of a property name ("view==fresh" → "view-fresh").
std::string PropertySlug(const std::string& property);

}  // namespace rindle::sim::cli
