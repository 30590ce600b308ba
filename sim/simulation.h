// simulation.h — one seeded deployment: the daemon authority, 2–4 simulated clients and the
// network, driven by one event queue in virtual time (SPEC §1, §2.3–2.4, §4). Holds state for
// the duration of one run.
//
// Phases (TigerBeetle's VOPR shape): SAFETY — workload actions and faults fire until
// safety_ms; every event is followed by the step checks (view==fresh on every client and on the
// authority, head==sync+pending, gapless mids, watermarks monotone, health). LIVENESS — faults
// heal (no loss, partitions end, progress released), actions stop, the queue drains; then the
// quiescence checks (nothing pending, every issued mid processed exactly once, every client view
// equals the same query over the authority's store, the authority's store equals the sequential
// replay of its log). A run still not quiescent after max_steps events fails `liveness`.
// Every random choice comes from one root Rng forked per purpose; every time from the queue.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oracles/ledger_oracle.h"
#include "properties/invariants.h"
#include "sim/daemon.h"
#include "sim/event_queue.h"
#include "sim/network.h"
#include "sim/rng.h"
#include "sim/runner.h"
#include "sim/sim_client.h"
#include "sim/trace.h"
#include "sim/workload_generator.h"

namespace rindle::sim {

// Knobs drawn from the seed (each documented with its unit).
struct SimConfig {
  int clients = 3;
  int64_t safety_ms = 4000;          // virtual ms of workload + faults
  int64_t action_gap_ms_min = 20;    // virtual ms between one client's actions
  int64_t action_gap_ms_max = 250;
  uint32_t retain_per_mille = 80;    // share of actions that retain a new query
  uint32_t release_per_mille = 60;   // share of actions that release a query
  int link_breaks = 2;               // count over the safety phase
  int restarts = 1;                  // authority restarts over the safety phase
  int partitions = 1;                // partition windows over the safety phase
  int64_t partition_ms_max = 1200;
  int starvations = 1;               // progress-starvation windows
  int64_t starvation_ms_max = 600;
  size_t buffer_cap = 1024;          // client gate buffer cap (frames); small caps force overflow
  NetworkConfig network;
  nlohmann::json ToJson() const;
};

SimConfig DrawConfig(Rng& rng);

class Simulation {
 public:
  explicit Simulation(const RunOptions& options);
  ~Simulation();
  RunResult Run();

 private:
  void Setup();
  void ScheduleActions(SimClient* client);
  void Act(SimClient* client);
  void ScheduleFaults();
  void Heal();
  std::optional<props::Violation> CheckStep();
  std::optional<props::Violation> CheckQuiescence();
  WorkloadState StateOf(const SimClient& client) const;
  void Fail(const props::Violation& v);
  bool quiescent() const;
  void Count(const std::string& name) { ++counters_[name]; }

  RunOptions options_;
  Rng root_;
  Rng workload_rng_;
  Rng fault_rng_;
  SimConfig config_;
  EventQueue queue_;
  Trace trace_;
  std::map<std::string, int64_t> counters_;
  Schema schema_;
  std::map<std::string, Mutator> client_mutators_;
  std::unique_ptr<Network> network_;
  std::unique_ptr<DaemonAuthority> daemon_;
  std::vector<std::unique_ptr<SimClient>> clients_;
  std::map<std::string, SimClient*> by_id_;
  std::map<std::string, int64_t> id_counters_;
  std::map<std::string, int64_t> last_watermark_;
  LedgerOracle ledger_;  // every mid issued, its fate and confirmations (SPEC §3)
  std::map<std::string, int64_t> ledger_fed_;  // client → highest mid fed to the ledger
  bool healed_ = false;
  int64_t step_ = 0;
  RunResult result_;
  absl::Status setup_status_;
};

}  // namespace rindle::sim
