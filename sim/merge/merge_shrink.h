// merge_shrink.h — the shrinker and the verdict of the `--target merge` campaign: reduces a
// failing merge scenario to a small one that still fails THE SAME property, the approach of
// sim/scenario/shrink.h (ddmin, Zeller & Hildebrandt 2002, complements of n chunks; a candidate
// is kept when run(candidate) fails with the target property, the message may differ).
// Stateless entry points; deterministic for a deterministic `run`.
//
// Passes, repeated until a whole round changes nothing or the budget is spent:
//   1. ddmin over the action list;
//   2. per server batch: ddmin over its deltas, then over the actions inside the cycle;
//   3. per write txn: ddmin over its ops.
// Every candidate is a valid scenario: an action whose preconditions a removal broke fails in
// the engine and in the model alike (no property), and a hold-back that would now change what
// is visible is skipped by the runner (merge_runner.h).
// Budget: options.max_runs runs, options.out_of_time(); progress after every run.
// Errors: FailedPrecondition when the original does not fail, or fails only with "merge-setup".
#pragma once

#include <functional>

#include "absl/status/statusor.h"
#include "sim/merge/merge_scenario.h"
#include "sim/run/runner.h"
#include "sim/scenario/shrink.h"

namespace rindle::sim {

struct MergeShrinkResult {
  MergeScenario scenario;  // expect fail, the property and its message as the note
  RunResult failure;
  size_t original_actions = 0;
  int64_t runs = 0;
  bool budget_spent = false;
};

absl::StatusOr<MergeShrinkResult> ShrinkMerge(
    const MergeScenario& original, const std::function<RunResult(const MergeScenario&)>& run,
    const ShrinkOptions& options);

// Whether `result` meets the scenario's expectation (as JudgeScenario for the client target).
ScenarioVerdict JudgeMergeScenario(const MergeScenario& scenario, const RunResult& result);

}  // namespace rindle::sim
