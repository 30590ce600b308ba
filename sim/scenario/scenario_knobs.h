// scenario_knobs.h — every knob of scenario generation in one place: the ranges the generator
// draws the config, the action streams and the fault schedule from (GeneratorKnobs), the ranges
// the swarm draw picks its rates from (SwarmKnobs), and the config draw itself (DrawConfig).
// Each knob is a documented field whose name ends in its unit: _ms (virtual milliseconds),
// _per_mille (‰ of the draws), _count (how many), or `odds` (an exact num/den for Rng::Chance).
// Ranges are inclusive [min, max] (Rng::Range).
//
// Constants, no state. Changing ANY value, or the order in which the generator reads them
// against the Rng, changes the scenario of every seed: the trace digests (scripts/digests.sh)
// and the corpus files pin them. Per-fault-kind swarm counts live in the kinds table
// (scenario_kinds.h, FaultSwarmDraw) so a new fault kind is one row. The swarm-off rates
// (retain 80‰, release 60‰, fold 60‰, ...) are SwarmDraw's defaults (swarm.h). Constants of
// the file format and the executor stay with the types (scenario_types.h): safety_ms (the
// ScenarioConfig default, 4000 virtual ms — the generator never draws it), kStormGapMs (3 ms
// between a storm's cycles), kMaxStormCount (50), and the loader's limits
// (scenario_json_reader.h: kMaxScenarioMs, kMaxScenarioClients = 8).
// Source: scenario_generator.h (the streams), swarm.h (swarm testing), seed 002 §8.5 (tiny caps).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/world/network.h"
#include "base/rng.h"

namespace rindle::sim {

// An exact probability num/den for Rng::Chance.
struct Odds {
  uint32_t num;
  uint32_t den;
};

struct GeneratorKnobs {
  // Config draw (the "config" stream, DrawConfig).
  int clients_min_count = 2;               // clients per run, uniform in [min, max]
  int clients_max_count = 4;
  int64_t action_gap_ms_min_lo = 5;        // the run's smallest gap between a client's slots
  int64_t action_gap_ms_min_hi = 40;
  int64_t action_gap_ms_spread_lo = 20;    // largest gap = smallest + spread
  int64_t action_gap_ms_spread_hi = 300;
  // The gate buffer cap, one picked uniformly: tiny caps let starvation overflow it (seed 002
  // §8.5). Was {6, 24, 1024}: 24 overflowed in 15% of its seeds and the overflow escape ran in
  // 32% of all; 8 overflows in about 58%, 6 in 74%, 4 more (seeds 1..150).
  size_t buffer_cap_frames[4] = {4, 6, 8, 1024};
  int64_t latency_ms_min_lo = 1;           // network one-way latency floor
  int64_t latency_ms_min_hi = 5;
  int64_t latency_ms_spread_max = 80;      // latency ceiling = floor + [0, spread]
  int64_t loss_per_mille_max = 200;        // push loss, push dup, ack loss: each in [0, max]

  // Per-client time stream ("workload/client/<i>/times").
  int64_t connect_ms_max = 30;             // first connect in [0, max]
  int initial_retain_count = 2;            // retains every client starts with ...
  int64_t initial_retain_ms_max = 50;      // ... at times in [0, max]

  // Per-client action stream ("workload/client/<i>/actions"). The slot-kind shares are the
  // swarm's (swarm.h); these shape what a slot does.
  int64_t navigate_delay_ms_min = 1;       // a navigation retain lands this long after its release
  int64_t navigate_delay_ms_max = 30;
  Odds catalog_visit_odds = {1, 5};        // a slot visits the next catalog shape (one pass per
  int64_t catalog_visit_ms_min = 20;       // seed), released after [min, max] ms
  int64_t catalog_visit_ms_max = 400;
  int64_t fold_debounce_ms_min = 10;       // a fold burst's debounce_ms
  int64_t fold_debounce_ms_max = 200;
  Odds fold_max_wait_odds = {1, 3};        // a burst sets max_wait_ms in [debounce, 3·debounce]
  int64_t fold_max_wait_debounces = 3;
  Odds fold_defer_odds = {1, 4};           // a burst sets defer_across_writes
  int fold_burst_min_count = 2;            // folded invokes per burst
  int fold_burst_max_count = 6;
  Odds fold_gap_past_debounce_odds = {1, 5};  // a gap in (debounce, 2·debounce+1]: a new window;
                                              // else in [1, debounce/2]: the window collapses
  Odds fold_flush_after_odds = {1, 4};     // a flush_folds within debounce/2 after the burst
  int write_local_min_count = 1;           // intents per write_local
  int write_local_max_count = 3;
  int64_t draft_ids_count = 4;             // drafts d1..dN
  int64_t selection_ids_count = 2;         // selection s1..sN
  // Intent shares out of 100 (cumulative bounds): set_draft < 40 <= clear_draft < 60 <=
  // select < 80 <= unselect < 95 <= synced_write (the illegal one, rarely).
  uint64_t set_draft_below = 40;
  uint64_t clear_draft_below = 60;
  uint64_t select_below = 80;
  uint64_t unselect_below = 95;
  uint64_t synced_write_id_max_count = 1000;  // its id: local-c<client>-[0, max)
  uint64_t slider_title_max_count = 1000;     // editTitle bursts: "slider title [0, max)"

  // Fault schedule (the "faults" stream).
  int64_t fault_earliest_ms = 0;           // every fault at a time in [earliest, safety_ms]
  int64_t early_fault_slack_ms = 5;        // an early fault: in [0, its client's connect + slack]
  int64_t fault_duration_ms_min = 50;      // partition / starvation windows from here to the
                                           // swarm's partition_ms_max / starvation_ms_max
  int64_t storm_cycles_max_count = 6;      // resubscribe_storm count in [1, max]
  // A snapshot_overtake is armed this long before one of its client's retains (its stall holds
  // the batches the retain's snapshot then overtakes; frame_faults.h), when the client has one.
  int64_t overtake_lead_ms_min = 50;
  int64_t overtake_lead_ms_max = 800;
  // A link break inside a progress_starvation window (PlaceStarvedBreaks), while the gate holds
  // the batches the withheld progress would release: at [1/3, 1) of the window.
  Odds starved_break_odds = {7, 8};
  // A link loss before a client's first connect (PlaceEarlyLinkLoss): the reconnect it schedules
  // meets the first connect's live session (client.reconnect_superseded).
  Odds early_link_loss_odds = {7, 8};
};

// The ranges the swarm draw (swarm.cc, DrawSwarm with swarm on) picks from. Each knob is on
// with probability 1/2 and then uniform in [lo, hi]; 0 when off.
struct SwarmKnobs {
  uint32_t mutator_weight_max = 20;        // an enabled mutator's weight in [1, max]
  uint32_t stale_blank_num_max = 3;        // WorkloadMix stale_num / blank_num in [1, max]
  int64_t retain_per_mille_lo = 20, retain_per_mille_hi = 200;
  int64_t release_per_mille_lo = 20, release_per_mille_hi = 200;
  int64_t partition_ms_max_lo = 100, partition_ms_max_hi = 2000;      // always drawn
  int64_t starvation_ms_max_lo = 100, starvation_ms_max_hi = 1500;    // always drawn
  int64_t fold_per_mille_lo = 20, fold_per_mille_hi = 150;
  int64_t flush_folds_per_mille_lo = 5, flush_folds_per_mille_hi = 50;
  int64_t write_local_per_mille_lo = 20, write_local_per_mille_hi = 150;
  int64_t local_view_per_mille_lo = 10, local_view_per_mille_hi = 60;
  int64_t navigate_per_mille_lo = 200, navigate_per_mille_hi = 1000;
  int64_t same_query_per_mille_lo = 100, same_query_per_mille_hi = 500;
  int64_t restart_in_fold_per_mille_lo = 300, restart_in_fold_per_mille_hi = 1000;
  uint32_t transport_retry_off_num = 1, transport_retry_off_den = 3;  // retry off in 1/3
  int64_t early_fault_per_mille_lo = 50, early_fault_per_mille_hi = 300;
  // The second chance (swarm.cc DrawSecondChance, its own fork): an off mutator turns on with
  // these odds (on in 3/4 of swarm seeds), an off defense-fault kind with these, count uniform in
  // [1, its on_count_max] — the frame faults stale_redelivery, frame_duplicate and
  // snapshot_overtake (on with 2/3 in the kinds table: then 11/12), schema_skew (1/3: then 5/6)
  // and progress_starvation (1/2: then 7/8), the faults the client's documented defenses answer
  // (stale and superseded drops, (cv, arrival) release, the CRIT#4 hello check, gate overflow).
  // So every mutator kind and defense fires in most seeds (issue 11 "Done when"); at 1/2 each
  // mutator ran in about half of them.
  Odds mutator_second_chance_odds = {1, 2};
  Odds defense_fault_second_chance_odds = {3, 4};
  // authority_rollback on in this share of swarm seeds (DrawRollback's own fork; was 1/4, which
  // left the client's ledger-regression refusal in 45 of 200 seeds).
  Odds authority_rollback_odds = {3, 4};
};

inline constexpr GeneratorKnobs kGeneratorKnobs{};
inline constexpr SwarmKnobs kSwarmKnobs{};

// The drawn run-level config (from the "config" stream).
struct ConfigDraw {
  int clients = 3;
  int64_t action_gap_ms_min = 20;
  int64_t action_gap_ms_max = 250;
  size_t buffer_cap = 1024;  // frames
  NetworkConfig network;
};

// Draws, in this order: clients, gap floor, gap spread, buffer cap, latency floor, latency
// spread, push loss, push dup, ack loss.
ConfigDraw DrawConfig(Rng& rng);

}  // namespace rindle::sim
