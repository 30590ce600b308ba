// scenario.h — the scenario value a simulated run executes, and its file format
// "rindle-scenario/2" (SPEC §6). Plain value types plus stateless codec functions.
//
// A run is GENERATED from a seed into a Scenario (scenario_generator.h) and then EXECUTED from
// it (simulation.h); `rindle-sim run --scenario FILE` executes a saved one without the generator
// and gives the same trace digest as the seed it came from. A scenario holds:
//   config      clients, the safety phase length, the gate buffer cap, the network's rates,
//               each client's connect time — everything the executor needs besides the lists
//   seed_rows   the authority's initial rows (table → positional rows, app schema order)
//   actions     timed client actions, in execution order (time ascending):
//                 retain  {t, client, query: {name, args}, handle}  a new live view; `handle`
//                         names it for a later release (unique per client)
//                 release {t, client, handle}   releases the view a retain with that handle
//                         opened; a no-op when there is none (e.g. the retain was shrunk away)
//                 mutate  {t, client, name, args}   invokes a named mutator with concrete args;
//                         targets that no longer exist make the mutator no-op or fail
//                         deterministically (workload_mutators.h), so every action stays
//                         executable after the shrinker removes others
//   faults      timed faults (only during the safety phase, t < safety_ms):
//                 link_break {t, client} · partition {t, client, duration_ms} ·
//                 authority_restart {t} · progress_starvation {t, duration_ms}
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
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "optimistic/source.h"
#include "sim/network.h"
#include "sim/workload_generator.h"

namespace rindle::sim {

inline constexpr char kScenarioFormat[] = "rindle-scenario/2";
inline constexpr char kScenarioFormatV1[] = "rindle-scenario/1";

struct ScenarioConfig {
  int clients = 3;                   // 1..8
  int64_t safety_ms = 4000;          // virtual ms of workload + faults; then the network heals
  size_t buffer_cap = 1024;          // client gate buffer cap (frames); small caps force overflow
  NetworkConfig network;
  std::vector<int64_t> connect_ms;   // per client: when it first connects (virtual ms)
};

struct ScenarioAction {
  enum class Kind { kRetain, kRelease, kMutate };
  int64_t t_ms = 0;
  int client = 0;
  Kind kind = Kind::kMutate;
  RemoteQuery query;    // kRetain
  int64_t handle = 0;   // kRetain, kRelease
  std::string name;     // kMutate: mutator name
  nlohmann::json args;  // kMutate: its args (a JSON object)
};

struct ScenarioFault {
  enum class Kind { kLinkBreak, kPartition, kAuthorityRestart, kProgressStarvation };
  int64_t t_ms = 0;
  Kind kind = Kind::kLinkBreak;
  int client = 0;           // kLinkBreak, kPartition
  int64_t duration_ms = 0;  // kPartition, kProgressStarvation
};

struct Scenario {
  enum class Expect { kPass, kFail };

  std::string path;  // where it was loaded from ("" when built in memory)
  uint64_t seed = 0;
  std::optional<int64_t> max_steps;
  Expect expect = Expect::kPass;
  std::string property;  // required when expect == kFail
  std::string message;   // the failure message when it was saved (informational)
  std::string note;

  bool generated = false;  // false: a /1 file, config/rows/actions/faults not filled in yet
  ScenarioConfig config;
  SeedRows seed_rows;
  std::vector<ScenarioAction> actions;
  std::vector<ScenarioFault> faults;
  nlohmann::json swarm = nlohmann::json::object();
};

std::string_view ActionKindName(ScenarioAction::Kind kind);
std::string_view FaultKindName(ScenarioFault::Kind kind);
std::optional<ScenarioFault::Kind> FaultKindFromName(std::string_view name);
// Fault kinds that target one client.
bool FaultTargetsClient(ScenarioFault::Kind kind);
// Fault kinds that have a duration.
bool FaultHasDuration(ScenarioFault::Kind kind);

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

// Writes ScenarioToJson(scenario) pretty-printed (one action or fault per line) to `path`.
absl::Status WriteScenarioFile(const Scenario& scenario, const std::string& path);

// One line per action and fault, in time order, for people:
//   "   120ms  c1 mutate addComment {"body":"+1",...}"
std::string ScenarioSteps(const Scenario& scenario);

}  // namespace rindle::sim
