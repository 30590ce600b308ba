// merge_generator.h — draws a `--target merge` scenario (merge_scenario.h) from a seed. Stateless
// entry point; every draw comes from Rng(seed) forks, so a seed always gives the same scenario.
//
// Shape of a generated scenario:
//   1. the daemon's first server batch: the app seed data (workload/generator.h SeedData);
//   2. 3–5 live app queries drawn from the catalog (workload/catalog.h), built for user u01;
//   3. 1–3 rooms ("room:doc:1".."3") attached to issue / comment / tag with a scope drawn from
//      all / none / colEq / predicate (a row-local and/or of simple leaves);
//   4. 30–80 steps drawn by weight: optimistic write txns (1–3 ops, one per pk), per-source
//      server batches (random deltas on that source's baseline — room copies of daemon rows
//      among them — plus confirmations of pending txns; the txns not confirmed re-invoked
//      inside the cycle, sometimes a drop too), hold-backs of the visible row and tombstones of
//      an invisible pk (only ones the model says change nothing visible), drops (mostly of a
//      parked pk), freezes, room add/remove, probes, late queries, and error probes — calls the
//      seed says must fail (unknown table, local table, duplicate room, bad room key,
//      correlated-subquery scope, source not attached, wrong width, daemon scope, unknown
//      source, failing delta or write precondition, a room delta on a table it is not attached
//      to, removing the daemon), each labelled with its kind in the action's "error".
// The generator drives its own MergeModel so every non-error action is valid when drawn.
// Source: issue 14 "A campaign for the merge".
#pragma once

#include <cstdint>

#include "sim/merge/merge_scenario.h"

namespace rindle::sim {

MergeScenario GenerateMergeScenario(uint64_t seed);

}  // namespace rindle::sim
