// scenario.h — the scenario value a simulated run executes, and its file format
// "rindle-scenario/2" (SPEC §6). Plain value types plus stateless codec functions.
//
// A run is GENERATED from a seed into a Scenario (scenario_generator.h) and then EXECUTED from
// it (simulation.h); `rindle-sim run --scenario FILE` executes a saved one without the generator
// and gives the same trace digest as the seed it came from. A scenario holds:
//   config      clients, the safety phase length, the gate buffer cap, the network's rates,
//               each client's connect time — everything the executor needs besides the lists
//   seed_rows   the authority's initial rows (table → positional rows, app schema order)
//   actions     timed client actions, in execution order (time ascending); every kind and its
//               fields are a row of the kinds table (scenario_kinds.cc), described here too:
//                 retain  {t, client, query: {name, args}, handle}  a new live view; `handle`
//                         names it for a later release (unique per client)
//                 release {t, client, handle}   releases the view a retain with that handle
//                         opened; a no-op when there is none (e.g. the retain was shrunk away)
//                 mutate  {t, client, name, args}   invokes a named mutator with concrete args;
//                         targets that no longer exist make the mutator no-op or fail
//                         deterministically (workload_mutators.h), so every action stays
//                         executable after the shrinker removes others
//                 mutate_folded {t, client, name, args, key, debounce_ms, max_wait_ms?,
//                         defer_across_writes?}   InvokeFolded(name, args, FoldOptions{key, ...}):
//                         a slider-like edit; invokes of one (name, key) inside a window collapse
//                         into one last-value-wins envelope (the mutator must be fold-legal: no
//                         public reads — editTitle, setStatus, setPriority, setOwner, editComment)
//                 flush_folds {t, client}   FlushFolds(): every open fold window flushes now
//                 write_local {t, client, ops: [op...]}   one WriteLocal batch on the client's
//                         local-only UI tables (workload_schema.h). The ops are INTENTS the
//                         executor resolves against the client's current local rows, so they stay
//                         executable whatever ran before:
//                           {"op": "set_draft", "id", "issueId", "body"}   add, or edit if present
//                           {"op": "clear_draft", "id"}                    remove if present
//                           {"op": "select", "id", "issueId"}              add, or edit if present
//                           {"op": "unselect", "id"}                       remove if present
//                           {"op": "synced_write", "id"}  a deliberately illegal add on the synced
//                                `issue` table: the whole batch must be rejected, nothing applied
//                 local_view {t, client, query, handle}   a local-only view (no remote) over the
//                         local tables; `query` one of LocalQueryNames() (workload_queries.h);
//                         `handle` shares the retain handles' namespace (release closes it)
//   faults      timed faults (only during the safety phase, t < safety_ms):
//                 link_break {t, client} · partition {t, client, duration_ms} ·
//                 authority_restart {t} · progress_starvation {t, duration_ms} ·
//                 resubscribe_storm {t, client, count}: the client releases every remote view
//                   and at once re-retains the same queries (fresh qids), `count` times,
//                   kStormGapMs apart — Unregister/Register churn upstream while the old
//                   epochs' frames are still in flight (a client-side storm; the link stays up) ·
//                 schema_skew {t, client}: the authority's next data hello to the client lists
//                   its columns in a skewed order (rows positional against it) — a deploy skew
//                   the client must refuse (CRIT#4) and re-subscribe past ·
//                 authority_rollback {t, count}: the authority restarts from an older backup —
//                   its store and ledgers lack the last `count` processed envelopes (lmid and cv
//                   go back); a client that had a forgotten mid confirmed refuses
//                   (optimistic/ledger.h), one that had not re-sends it (properties/
//                   ledger_rollback.h). The frame faults are in scenario_kinds.cc
//   swarm       the swarm draw that generated the lists (informational: replay does not use it)
// The network's per-message randomness (latency jitter, loss, duplication) and the clients'
// reconnect delays are drawn at run time from the Rng of `seed` — they depend on how many
// messages a run sends, so they cannot be listed — which is why a scenario keeps its seed.
// Times are virtual milliseconds from the start of the run.
//
// File form (one JSON object; unknown fields are rejected, they are usually typos):
//   {"format": "rindle-scenario/2", "seed": 17, "expect": "pass"|"fail",
//    "property": "view==fresh" (required when expect = fail), "message": "...", "note": "...",
//    "max_steps": 50000, "config": {...}, "seed_rows": {...}, "actions": [...],
//    "faults": [...], "swarm": {...}}
// "rindle-scenario/1" files (seed only) are still read: they replay by generating from the seed
// (`generated` is false until then).
//
// Errors: LoadScenario / ScenarioFromJson return InvalidArgument (NotFound for a missing file)
// naming the file, the field (a JSON path such as actions[3].client) and what was expected, e.g.
//   corpus/x.json: field "actions[3].client": expected an integer in [0, 2], got 7
//
// Files: the value types are scenario_types.h, every kind's name and fields scenario_kinds.h
// (the one table the loader, writer, validator, step printer and swarm read); the functions
// below live in scenario.cc (document read), scenario_json_read.cc (elements),
// scenario_json_write.cc, scenario_validate.cc and scenario_steps.cc.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sim/scenario/scenario_kinds.h"
#include "sim/scenario/scenario_types.h"

namespace rindle::sim {

// Reads and validates a scenario file.
absl::StatusOr<Scenario> LoadScenario(const std::string& path);

// Validates a parsed document; `origin` names it in errors (usually the path).
absl::StatusOr<Scenario> ScenarioFromJson(const nlohmann::json& doc, const std::string& origin);

// Checks the cross-field rules (client indexes below config.clients, one connect time per
// client, times ascending and inside the safety phase, handles unique per client, a mutate's
// args an object); ScenarioFromJson applies it. `origin` names the scenario in errors.
absl::Status ValidateScenario(const Scenario& scenario, const std::string& origin);

// The canonical JSON form (what LoadScenario accepts). A non-generated scenario is written in
// the /1 form.
nlohmann::json ScenarioToJson(const Scenario& scenario);
// The element forms inside it (one write_local intent, one action, one fault).
nlohmann::json LocalOpToJson(const LocalOp& op);
nlohmann::json ActionToJson(const ScenarioAction& action);
nlohmann::json FaultToJson(const ScenarioFault& fault);

// Writes ScenarioToJson(scenario) pretty-printed (one action or fault per line) to `path`.
absl::Status WriteScenarioFile(const Scenario& scenario, const std::string& path);

// One line per action and fault, in time order, for people:
//   "   120ms  c1 mutate addComment {"body":"+1",...}"
std::string ScenarioSteps(const Scenario& scenario);

}  // namespace rindle::sim
