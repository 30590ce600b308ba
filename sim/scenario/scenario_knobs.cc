// scenario_knobs.cc — see scenario_knobs.h.
#include "sim/scenario/scenario_knobs.h"

#include <iterator>

namespace rindle::sim {

ConfigDraw DrawConfig(Rng& rng) {
  const GeneratorKnobs& k = kGeneratorKnobs;
  ConfigDraw d;
  d.clients = static_cast<int>(rng.Range(k.clients_min_count, k.clients_max_count));
  d.action_gap_ms_min = rng.Range(k.action_gap_ms_min_lo, k.action_gap_ms_min_hi);
  d.action_gap_ms_max =
      d.action_gap_ms_min + rng.Range(k.action_gap_ms_spread_lo, k.action_gap_ms_spread_hi);
  // Three runs in four give the gate a tiny buffer so starvation overflows it (seed 002 §8.5).
  d.buffer_cap = k.buffer_cap_frames[rng.Below(std::size(k.buffer_cap_frames))];
  d.network.latency_ms_min = rng.Range(k.latency_ms_min_lo, k.latency_ms_min_hi);
  d.network.latency_ms_max = d.network.latency_ms_min + rng.Range(0, k.latency_ms_spread_max);
  d.network.push_loss_per_mille = static_cast<uint32_t>(rng.Range(0, k.loss_per_mille_max));
  d.network.push_dup_per_mille = static_cast<uint32_t>(rng.Range(0, k.loss_per_mille_max));
  d.network.ack_loss_per_mille = static_cast<uint32_t>(rng.Range(0, k.loss_per_mille_max));
  return d;
}

}  // namespace rindle::sim
