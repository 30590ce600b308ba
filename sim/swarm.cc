// swarm.cc — see swarm.h.
#include "sim/swarm.h"

#include <iterator>
#include <utility>

namespace rindle::sim {

nlohmann::json SwarmDraw::ToJson() const {
  nlohmann::json mutators = nlohmann::json::object();
  for (const auto& [name, w] : mix.weights) mutators[name] = w;
  nlohmann::json faults = nlohmann::json::object();
  for (const auto& [kind, n] : fault_counts) faults[kind] = n;
  return {{"swarm", swarm},
          {"mutators", mutators},
          {"retain_per_mille", retain_per_mille},
          {"release_per_mille", release_per_mille},
          {"faults", faults},
          {"partition_ms_max", partition_ms_max},
          {"starvation_ms_max", starvation_ms_max},
          {"network_faults",
           {{"push_loss", push_loss}, {"push_dup", push_dup}, {"ack_loss", ack_loss}}},
          {"fold_per_mille", fold_per_mille},
          {"flush_folds_per_mille", flush_folds_per_mille},
          {"write_local_per_mille", write_local_per_mille},
          {"local_view_per_mille", local_view_per_mille},
          {"navigate_per_mille", navigate_per_mille},
          {"same_query_per_mille", same_query_per_mille},
          {"restart_in_fold_per_mille", restart_in_fold_per_mille}};
}

SwarmDraw DrawSwarm(Rng& rng, bool swarm) {
  SwarmDraw d;
  d.swarm = swarm;
  d.mix = DefaultWorkloadMix();
  if (!swarm) {
    d.fault_counts = {{"link_break", static_cast<int>(rng.Range(0, 4))},
                      {"authority_restart", static_cast<int>(rng.Range(0, 2))},
                      {"partition", static_cast<int>(rng.Range(0, 2))},
                      {"progress_starvation", static_cast<int>(rng.Range(0, 2))}};
    d.fault_counts["resubscribe_storm"] = static_cast<int>(rng.Range(0, 1));
    d.fault_counts["schema_skew"] = static_cast<int>(rng.Range(0, 1));
    return d;
  }
  // Mutators: each on with probability 1/2, weight 1..20; at least one stays on.
  int on = 0;
  for (auto& [name, w] : d.mix.weights) {
    if (rng.Chance(1, 2)) {
      w = static_cast<uint32_t>(rng.Range(1, 20));
      ++on;
    } else {
      w = 0;
    }
  }
  if (on == 0) {
    auto it = d.mix.weights.begin();
    std::advance(it, static_cast<long>(rng.Below(d.mix.weights.size())));
    it->second = static_cast<uint32_t>(rng.Range(1, 20));
  }
  d.mix.stale_num = rng.Chance(1, 2) ? static_cast<uint32_t>(rng.Range(1, 3)) : 0;
  d.mix.blank_num = rng.Chance(1, 2) ? static_cast<uint32_t>(rng.Range(1, 3)) : 0;
  d.retain_per_mille = rng.Chance(1, 2) ? static_cast<uint32_t>(rng.Range(20, 200)) : 0;
  d.release_per_mille = rng.Chance(1, 2) ? static_cast<uint32_t>(rng.Range(20, 200)) : 0;
  const std::pair<const char*, int64_t> kinds[] = {{"link_break", 6},
                                                   {"authority_restart", 3},
                                                   {"partition", 3},
                                                   {"progress_starvation", 3}};
  for (const auto& [kind, max] : kinds) {
    d.fault_counts[kind] = rng.Chance(1, 2) ? static_cast<int>(rng.Range(1, max)) : 0;
  }
  d.partition_ms_max = rng.Range(100, 2000);
  d.starvation_ms_max = rng.Range(100, 1500);
  d.push_loss = rng.Chance(1, 2);
  d.push_dup = rng.Chance(1, 2);
  d.ack_loss = rng.Chance(1, 2);
  // The newer knobs (drawn last: the older draws of a seed stay as they were).
  auto maybe = [&rng](int64_t lo, int64_t hi) {
    return rng.Chance(1, 2) ? static_cast<uint32_t>(rng.Range(lo, hi)) : 0u;
  };
  d.fold_per_mille = maybe(20, 150);
  d.flush_folds_per_mille = maybe(5, 50);
  d.write_local_per_mille = maybe(20, 150);
  d.local_view_per_mille = maybe(10, 60);
  d.navigate_per_mille = maybe(200, 1000);
  d.same_query_per_mille = maybe(100, 500);
  d.restart_in_fold_per_mille = maybe(300, 1000);
  d.fault_counts["resubscribe_storm"] = rng.Chance(1, 2) ? static_cast<int>(rng.Range(1, 3)) : 0;
  d.fault_counts["schema_skew"] = rng.Chance(1, 3) ? static_cast<int>(rng.Range(1, 3)) : 0;
  return d;
}

}  // namespace rindle::sim
