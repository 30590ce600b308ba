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
// DrawSwarm(rng, true) turns each mutator, action kind and fault kind on with probability 1/2
// (at least one mutator stays on) and draws weights 1..20 and counts 1..max for the enabled
// ones. DrawSwarm(rng, false) is the default mix (DefaultWorkloadMix, retain 80‰, release 60‰,
// fault counts drawn from the default ranges, every network fault on) — `--swarm off`.
// All randomness from the caller's Rng; probabilities are integer ratios.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "nlohmann/json.hpp"
#include "sim/rng.h"
#include "sim/workload_generator.h"

namespace rindle::sim {

struct SwarmDraw {
  bool swarm = false;  // false: the default mix
  WorkloadMix mix;
  uint32_t retain_per_mille = 80;
  uint32_t release_per_mille = 60;
  std::map<std::string, int> fault_counts;
  int64_t partition_ms_max = 1200;
  int64_t starvation_ms_max = 600;
  bool push_loss = true;
  bool push_dup = true;
  bool ack_loss = true;

  // {"swarm": bool, "mutators": {name: weight}, "retain_per_mille", "release_per_mille",
  //  "faults": {kind: count}, "partition_ms_max", "starvation_ms_max", "network_faults": {...}}
  nlohmann::json ToJson() const;
};

SwarmDraw DrawSwarm(Rng& rng, bool swarm);

}  // namespace rindle::sim
