// scenario_types.h — the plain value types of a scenario (Scenario, its config, actions, faults
// and write_local intents). No logic, no state beyond the values; the file format, the meaning
// of each kind and its fields are in scenario.h and the kinds table (scenario_kinds.h).
// Units: every *_ms is virtual milliseconds from the start of the run. Invariants (client
// indexes, time order, unique handles) are ValidateScenario's (scenario.h), not the types'.
// Source: SPEC §6 (the generate/execute split).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "optimistic/source.h"
#include "sim/world/network.h"
#include "sim/workload/generator.h"

namespace rindle::sim {

inline constexpr char kScenarioFormat[] = "rindle-scenario/2";
inline constexpr char kScenarioFormatV1[] = "rindle-scenario/1";
inline constexpr int64_t kStormGapMs = 3;  // resubscribe_storm: virtual ms between cycles

struct ScenarioConfig {
  int clients = 3;                   // 1..8
  int64_t safety_ms = 4000;          // virtual ms of workload + faults; then the network heals
  size_t buffer_cap = 1024;          // client gate buffer cap (frames); small caps force overflow
  NetworkConfig network;
  std::vector<int64_t> connect_ms;   // per client: when it first connects (virtual ms)
  // false: the simulated push transport never re-sends an unacknowledged push; a push still
  // unacknowledged after push_timeout_ms is taken as a dead socket (the link breaks), so the
  // backend's resync re-send (seed 002 §7.5 rule 3) is the only recovery. The file's optional
  // config.transport_retry (absent = true).
  bool transport_retry = true;
  // true: the simulator drives the rooms' view plane (retarget into rooms, late joins, demotes;
  // Simulation::room_view_plane_). A scenario property, not the environment, so one printed
  // command / saved file reproduces it. The file's optional config.room_views (absent = false).
  bool room_views = false;
};

// One write_local intent (see the header comment).
struct LocalOp {
  enum class Kind { kSetDraft, kClearDraft, kSelect, kUnselect, kSyncedWrite };
  Kind kind = Kind::kSetDraft;
  std::string id;
  std::string issue_id;  // kSetDraft, kSelect
  std::string body;      // kSetDraft
  bool operator==(const LocalOp&) const = default;
};

struct ScenarioAction {
  enum class Kind {
    kRetain,
    kRelease,
    kMutate,
    kMutateFolded,
    kFlushFolds,
    kWriteLocal,
    kLocalView,
    kRoomConnect,
    kRoomDisconnect
  };
  int64_t t_ms = 0;
  int client = 0;
  Kind kind = Kind::kMutate;
  RemoteQuery query;    // kRetain
  int64_t handle = 0;   // kRetain, kRelease, kLocalView
  std::string name;     // kMutate, kMutateFolded: mutator name
  nlohmann::json args;  // kMutate, kMutateFolded: its args (a JSON object)
  // kMutateFolded: the FoldOptions.
  nlohmann::json fold_key;
  int64_t debounce_ms = 0;
  std::optional<int64_t> max_wait_ms;
  bool defer_across_writes = false;
  std::vector<LocalOp> ops;  // kWriteLocal (non-empty)
  std::string local_query;   // kLocalView: one of LocalQueryNames()
  std::string doc;           // kRoomConnect, kRoomDisconnect: the room's doc "issue:<id>"
};

struct ScenarioFault {
  enum class Kind {
    kLinkBreak,
    kPartition,
    kAuthorityRestart,
    kProgressStarvation,
    kResubscribeStorm,
    kSchemaSkew,
    kStaleRedelivery,
    kFrameDuplicate,
    kSnapshotOvertake,
    kAuthorityRollback,
    // Rooms (issue 12; sim/authority/room.h): every one names its room's doc.
    kRoomRestart,
    kRoomLinkBreak,
    kRoomPartition,
    kOutcomeLoss,
    kOutcomeDuplicate,
    kOutcomeDelay,
    kDeoptStorm,
    kRejectStorm,
    kFlushLag,
    kRoomCrash,
    kRoomFlushLinkDown
  };
  int64_t t_ms = 0;
  Kind kind = Kind::kLinkBreak;
  int client = 0;           // every kind with a client field (scenario_kinds.cc)
  int64_t duration_ms = 0;  // kPartition, kProgressStarvation
  int64_t count = 0;        // kResubscribeStorm: cycles; kFrameDuplicate: frames;
                            // kAuthorityRollback: processed envelopes forgotten (1..kMaxStormCount)
                            // kOutcome*: the room's next count outcome frames
  std::string doc;          // the room kinds: the room's doc "issue:<id>"
};
inline constexpr int64_t kMaxStormCount = 50;

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

}  // namespace rindle::sim
