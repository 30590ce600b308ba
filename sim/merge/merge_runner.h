// merge_runner.h — executes a `--target merge` scenario (merge_scenario.h): one engine Db over
// the app schema (plus the local tables, registered local) driven action by action in lockstep
// with the naive merge model (oracles/merge_model.h), the live views folded from every
// delivered batch, and every merge property (properties/merge_world.h) checked after every
// action. Stateless entry points; everything a run touches lives inside the call.
//
// Per action: the engine call and the model call both run; when exactly one of them fails the
// run fails with property "merge-error" (the model is the expectation; the message names the
// call, its table, source and row and the side that refused). A hold-back the model says would
// change what is visible is skipped (counted merge.skip.non_inert: the engine delivers nothing
// at install, so such a call has no defined outcome; generated scenarios never contain one,
// shrunk ones may). A failed ServerBatchBegin that poisons the Db ends the run as a pass
// (merge.poisoned) after checking the poisoned Db refuses the next call.
// Counters (RunResult.counters): merge.<op> per accepted action, merge.error.<kind> per refused
// call whose scenario action named that error path, merge.error_missed.<kind> when it did not
// fail, merge.fence.row / merge.fence.tombstone per hold-back a rewind fenced (model diff),
// merge.reinvoke[.failed], merge.drop.noop, merge.drop.in_cycle, merge.server_batch.<daemon|room>,
// merge.batches / merge.events delivered, check.merge-<property>.checked per property run.
// Digest: XXH3-64 over every step's folded views and engine row counts (trace_hash.h).
// Source: issue 14 "A campaign for the merge".
#pragma once

#include "sim/merge/merge_scenario.h"
#include "sim/run/runner.h"

namespace rindle::sim {

// Runs `scenario`; options.max_steps caps the actions run (0 or more than the list: all).
RunResult RunMergeScenario(const MergeScenario& scenario, const RunOptions& options = {});

// GenerateMergeScenario(options.seed) then RunMergeScenario: the campaign's per-seed job.
RunResult RunMergeSeed(const RunOptions& options);

}  // namespace rindle::sim
