// scenario_kinds.h — THE table of scenario action kinds and fault kinds: each kind's file name,
// its kind-specific fields (name, type, required or optional), a one-line doc and an example,
// and for a fault kind the swarm's draw of how many a run gets. Everything that lists or
// dispatches on kinds by name reads it: the JSON loader (known fields, "expected ..." messages),
// the writer, the step printer (`--steps`), the validator, the swarm draw (swarm.cc), the
// generator's fault schedule and the shrinker. A new kind is one row here plus its enum value
// (scenario_types.h) and its execution; -Wswitch points at every switch that must learn it.
//
// Stateless: constant tables built once, rows in enum declaration order (which is also the
// order AllActionKinds / AllFaultKinds return and error messages list). Fields every action has
// (kind, t, client) and every fault has (kind, t) are not repeated in the rows. Lookups by name
// return nullptr for an unknown name; lookups by enum value CHECK that the row exists.
// Source: SPEC §6 (scenario file format), swarm testing (swarm.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario_types.h"

namespace rindle::sim {

// What a field holds (its JSON shape and the rule the loader checks).
enum class FieldType {
  kClient,          // integer client index in [0, config.clients)
  kNewHandle,       // integer >= 1 naming a view the action opens; unique per client
  kHandleRef,       // integer >= 1 naming a view an earlier action opened (may be gone)
  kNamedQuery,      // {"name": query name, "args": JSON}: a named query of the app
  kLocalQueryName,  // string: one of LocalQueryNames() (workload_queries.h)
  kMutatorName,     // string: a workload mutator (WorkloadMutatorNames())
  kMutatorArgs,     // JSON object: the mutator's args
  kFoldKey,         // non-null JSON value: the fold key's identity
  kDurationMs,      // integer virtual ms (>= 0 for a debounce / wait, >= 1 for a fault window)
  kBool,            // true or false
  kLocalOps,        // non-empty array of write_local intents (scenario.h)
  kCount,           // integer in [1, kMaxStormCount]
  kRoomDoc,         // string "issue:<id>": a room's doc (sim/authority/room.h)
};
std::string_view FieldTypeName(FieldType type);

struct KindField {
  std::string_view name;  // the JSON key
  FieldType type;
  bool required;
};

struct ActionKindSpec {
  ScenarioAction::Kind kind;
  std::string_view name;  // the JSON "kind"
  std::vector<KindField> fields;  // kind-specific, in file order
  std::string_view doc;
  std::string_view example;  // a valid action of this kind (JSON; the round-trip test reads it)
};

// How the swarm draw (swarm.cc) picks a fault kind's count per run, and where the kind's draws
// sit in the draw order. Moving a kind's rank or `late` changes every seed's scenario.
struct FaultSwarmDraw {
  int rank;                // draw order in DrawSwarm and in the generator's fault schedule
  bool late;               // drawn after the swarm's newer knobs (kinds added later draw last)
  int64_t off_count_max;   // --swarm off: count uniform in [0, off_count_max]
  uint32_t on_num;         // swarm: the kind is on with probability on_num / on_den ...
  uint32_t on_den;
  int64_t on_count_max;    // ... and then its count is uniform in [1, on_count_max]
};

struct FaultKindSpec {
  ScenarioFault::Kind kind;
  std::string_view name;
  std::vector<KindField> fields;  // kind-specific, in file order
  std::string_view doc;
  std::string_view example;  // a valid fault of this kind (JSON)
  FaultSwarmDraw swarm;
};

// The tables, in enum declaration order.
const std::vector<ActionKindSpec>& ActionKindTable();
const std::vector<FaultKindSpec>& FaultKindTable();
// The fault rows sorted by swarm.rank (the draw order).
std::vector<const FaultKindSpec*> FaultKindsInDrawOrder();

const ActionKindSpec& ActionKindInfo(ScenarioAction::Kind kind);
const FaultKindSpec& FaultKindInfo(ScenarioFault::Kind kind);
const ActionKindSpec* FindActionKind(std::string_view name);  // nullptr when unknown
const FaultKindSpec* FindFaultKind(std::string_view name);    // nullptr when unknown

// The kind names quoted for an "expected ..." message: "a", "b" or "c".
std::string ActionKindNameList();
std::string FaultKindNameList();

// The JSON keys a kind's object may hold: the common ones first, then the row's fields.
std::vector<std::string> ActionKnownFields(const ActionKindSpec& spec);
std::vector<std::string> FaultKnownFields(const FaultKindSpec& spec);

// Whether the kind has a field of `type`.
bool ActionHasField(ScenarioAction::Kind kind, FieldType type);
bool FaultHasField(ScenarioFault::Kind kind, FieldType type);

std::string_view ActionKindName(ScenarioAction::Kind kind);
std::string_view FaultKindName(ScenarioFault::Kind kind);
std::optional<ScenarioFault::Kind> FaultKindFromName(std::string_view name);
// Fault kinds that target one client (a kClient field).
bool FaultTargetsClient(ScenarioFault::Kind kind);
// Fault kinds that have a duration (a kDurationMs field).
bool FaultHasDuration(ScenarioFault::Kind kind);
// Fault kinds that have a count (a kCount field).
bool FaultHasCount(ScenarioFault::Kind kind);
// Fault kinds that name a room (a kRoomDoc field): placed by the generator's room pass, never by
// the main fault schedule or the main swarm draw (so adding them moved no other draw).
bool FaultNamesRoom(ScenarioFault::Kind kind);
// A well-formed room doc: "issue:" and a non-empty id.
bool IsRoomDocName(std::string_view doc);
// Every action / fault kind, in declaration order.
std::vector<ScenarioAction::Kind> AllActionKinds();
std::vector<ScenarioFault::Kind> AllFaultKinds();
std::string_view LocalOpKindName(LocalOp::Kind kind);
// Every write_local intent kind, in declaration order, and their names quoted for a message.
std::vector<LocalOp::Kind> AllLocalOpKinds();
std::string LocalOpKindNameList();

}  // namespace rindle::sim
