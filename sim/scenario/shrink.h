// shrink.h — the shrinker: reduces a failing scenario (scenario.h) to a small one that still
// fails THE SAME property. Stateless entry point; deterministic for a deterministic `run`.
//
// Order of passes, repeated until a whole round changes nothing or the budget is spent:
//   1. ddmin (Zeller & Hildebrandt 2002, complements of n chunks) over the fault list, then
//      over the action list
//   2. fault kinds disabled one at a time (every fault of that kind removed)
//   3. fewer clients: client k removed (its actions and faults dropped, higher clients
//      renumbered), highest first
//   4. ddmin over the seed rows
//   5. simplifications, one candidate each: network loss/duplication rates to 0, latency to
//      its minimum, connect times to 0, fault windows halved, action times halved (order kept),
//      safety_ms cut to the last action or fault, per action: string args shortened to their
//      first character (whole UTF-8; id-like keys kept: id, issueId, ownerId, authorId),
//      integer args to 0
// A candidate is kept when run(candidate) fails with the target property (the message may
// differ). Every candidate is a valid scenario (ValidateScenario), so every action stays
// executable (a release whose retain is gone is a no-op; a mutate whose target is gone no-ops
// or fails deterministically).
//
// Budget: at most options.max_runs runs of `run`, and stop as soon as options.out_of_time()
// returns true (the CLI owns the wall clock; nothing here reads it). Progress is reported
// through options.progress after every run.
// Errors: FailedPrecondition when the original scenario does not fail (nothing to shrink), or
// fails only with property "setup".
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace rindle::sim {

struct ShrinkProgress {
  int64_t runs = 0;
  size_t actions = 0;
  size_t faults = 0;
  size_t seed_rows = 0;
  int clients = 0;
  std::string pass;  // the pass now running
};

struct ShrinkOptions {
  int64_t max_runs = 2000;
  std::function<bool()> out_of_time;                      // may be empty: no time budget
  std::function<void(const ShrinkProgress&)> progress;    // may be empty
};

struct ShrinkResult {
  Scenario scenario;          // the smallest failing scenario: expect "fail", property, message
  RunResult failure;          // its run
  size_t original_actions = 0;
  size_t original_faults = 0;
  int64_t runs = 0;
  bool budget_spent = false;  // stopped by max_runs or out_of_time before a fixpoint
};

// `original` must be generated (GenerateScenario or a /2 file). `run` executes a scenario
// (e.g. RunScenario, or an isolated variant that survives crashes).
absl::StatusOr<ShrinkResult> Shrink(const Scenario& original,
                                    const std::function<RunResult(const Scenario&)>& run,
                                    const ShrinkOptions& options);

}  // namespace rindle::sim
