// scenario_generator.h — generates the Scenario a seed runs (scenario.h): the config knobs, the
// swarm draw (swarm.h), the seed rows, every client's timed actions with concrete arguments,
// and the fault schedule. Stateless; a pure function of (seed, options).
//
// Streams (each an Rng forked from Rng(seed) by purpose, ARCHITECTURE.md §2): "config" (client
// count, action gaps, gate buffer cap, network rates), "swarm", "seed-data", "faults", and per
// client "workload/client/<i>/times" (connect time, action slot times) and
// "workload/client/<i>/actions" (what each slot does).
// State-dependent choices (which issue to edit, which view to release) are drawn at generation
// time against a simple model: the authority model oracle (oracles/authority_model.h) replaying
// every generated mutation in time order over the seed rows — the ids it holds are what every
// client "knows" — and, per client, the handles of the views it has retained and not released.
// The executor never consults the generator, so a scenario file replays without it.
// Time: every action slot lies in [0, safety_ms]; faults in [50, safety_ms] (virtual ms).
// Slot kinds by the swarm draw's per-mille shares: retain (sometimes the same query a client
// already holds: the refcount path), release (sometimes followed 1..30ms later by a retain:
// navigation churn), a burst of 2..6 mutate_folded on one (fold-legal mutator, issue) a few ms
// apart inside the debounce (sometimes past it, opening a new window; sometimes max_wait_ms /
// defer_across_writes; sometimes closed by a flush_folds), flush_folds, write_local (1..3 intents
// on drafts d1..d4 / selection s1..s2, rarely an illegal synced_write), local_view, else a
// mutate. Bursts and navigation retains lie ahead of their slot; the list is stably re-sorted by
// time. authority_restart faults land inside an open fold window (first folded invoke .. last +
// debounce) with probability restart_in_fold_per_mille; resubscribe_storm {client, count 1..6}.
// Every range above is a knob of scenario_knobs.h; the fault kinds, their fields and their
// draw order come from the kinds table (scenario_kinds.h).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"

#include "sim/scenario/scenario.h"

namespace rindle::sim {

struct GenerateOptions {
  bool swarm = true;  // false: the default mix (`--swarm off`)
  bool room_views = false;  // config.room_views of the generated scenario (`--room-views on`)
};

// Errors: the app schema (fixtures/) cannot be loaded — the model needs it.
absl::StatusOr<Scenario> GenerateScenario(uint64_t seed, const GenerateOptions& options = {});

}  // namespace rindle::sim
