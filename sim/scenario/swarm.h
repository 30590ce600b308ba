// swarm.h — swarm testing (Groce et al., "Swarm Testing", ISSTA 2012): per seed, a draw of which
// workload action kinds and fault kinds are enabled and at what rates, so a campaign explores
// many narrow configurations instead of one tuned mix. Stateless functions over a value type.
//
// A SwarmDraw holds, for one generated scenario:
//   mix                 mutator weights (0 = that mutator disabled) and the stale/blank mess
//   retain_per_mille    share of a client's action slots that retain a new query (0 = off)
//   release_per_mille   share that release one (0 = off)
//   fault_counts        fault kind name (scenario.h FaultKindName) → how many over the safety
//                       phase (0 = that kind disabled)
//   partition_ms_max, starvation_ms_max   longest window of those faults, virtual ms
//   network_faults      whether push loss / push duplication / ack loss stay enabled (rates
//                       themselves are the config draw's; a disabled one is set to 0)
//   fold_per_mille      share of slots that start a burst of folded invokes (mutate_folded)
//   flush_folds_per_mille   share that flush the client's open folds
//   write_local_per_mille   share that write the local UI tables (write_local)
//   local_view_per_mille    share that open a local-only view (local_view)
//   navigate_per_mille  share of releases followed within 30ms by a retain (navigation churn)
//   same_query_per_mille    share of retains that re-retain a query already live on the client
//                       (the refcount path)
//   restart_in_fold_per_mille   share of authority_restart faults placed inside an open fold
//                       window (within debounce_ms after a mutate_folded)
//   transport_retry     whether the simulated push transport re-sends unacked pushes (off: the
//                       backend's resync re-send is the only recovery, ScenarioConfig)
//   early_fault_per_mille   share of faults placed before their client's first connect (or,
//                       for a fault with no client, before the last client's connect)
// The new kinds (folds, local tables, navigation, resubscribe_storm) are drawn after the older
// ones from the same Rng, so the older draws of a seed are unchanged.
// DrawSwarm(rng, true) turns each mutator, action kind and fault kind on with probability 1/2
// (at least one mutator stays on; the frame-fault kinds 2/3, the kinds table's odds) and draws
// weights 1..20 and counts 1..max for the enabled ones; then a second chance, from a fork of its
// own, turns an off mutator on with odds 1/2 (on in 3/4 of seeds) and an off defense-fault kind
// (the frame faults, schema_skew, progress_starvation) with 3/4, so every mutator kind and
// client defense fires in most seeds (SwarmKnobs). authority_rollback is on in 3/4 of swarm
// seeds (its own fork). DrawSwarm(rng, false) is the default mix (DefaultWorkloadMix, retain 80‰, release 60‰,
// fault counts drawn from the default ranges, every network fault on) — `--swarm off`.
// All randomness from the caller's Rng; probabilities are integer ratios. The ranges are
// SwarmKnobs (scenario_knobs.h); each fault kind's counts are its kinds-table row
// (scenario_kinds.h FaultSwarmDraw), drawn in the rows' rank order.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "nlohmann/json.hpp"
#include "base/rng.h"
#include "sim/workload/generator.h"

namespace rindle::sim {

struct SwarmDraw {
  bool swarm = false;  // false: the default mix
  WorkloadMix mix;
  uint32_t retain_per_mille = 80;
  uint32_t release_per_mille = 60;
  std::map<std::string, int> fault_counts;
  // Rooms (issue 12; DrawRooms, its own fork "rooms"): per client, the chance (per mille) it
  // connects to a room during the run; the room fault kinds' counts are in fault_counts.
  uint32_t room_connect_per_mille = 0;
  int64_t partition_ms_max = 1200;
  int64_t starvation_ms_max = 600;
  bool push_loss = true;
  bool push_dup = true;
  bool ack_loss = true;
  uint32_t fold_per_mille = 60;
  uint32_t flush_folds_per_mille = 15;
  uint32_t write_local_per_mille = 60;
  uint32_t local_view_per_mille = 20;
  uint32_t navigate_per_mille = 500;
  uint32_t same_query_per_mille = 200;
  uint32_t restart_in_fold_per_mille = 500;
  bool transport_retry = true;
  uint32_t early_fault_per_mille = 0;

  // {"swarm": bool, "mutators": {name: weight}, "retain_per_mille", "release_per_mille",
  //  "faults": {kind: count}, "partition_ms_max", "starvation_ms_max", "network_faults": {...},
  //  "fold_per_mille", "flush_folds_per_mille", "write_local_per_mille", "local_view_per_mille",
  //  "navigate_per_mille", "same_query_per_mille", "restart_in_fold_per_mille",
  //  "transport_retry", "early_fault_per_mille"}
  nlohmann::json ToJson() const;
};

SwarmDraw DrawSwarm(Rng& rng, bool swarm);

}  // namespace rindle::sim
