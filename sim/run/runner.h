// runner.h — runs one simulated deployment end to end: a seed is GENERATED into a scenario
// (scenario_generator.h) which is then EXECUTED (simulation.h): the daemon authority, 1–8
// optimistic clients, a faulty network, in virtual time, every invariant checked after every
// step, then a quiescence phase (faults healed, queues drained) checking convergence.
// Stateless entry points; everything a run touches is created and destroyed inside the call.
//
// RunSeed(options) == RunScenario(GenerateScenario(options.seed, {options.swarm, options.room_views}), options), so
// `run --seed S` and `run --scenario <the scenario S emits>` give the same trace digest.
// A generation error (the app schema missing) is a failed result with property "setup".
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace rindle::sim {

struct Scenario;

struct RunOptions {
  uint64_t seed = 1;
  // Per-seed step budget: a run still not quiescent after this many events is a `liveness`
  // failure instead of a hang. A scenario's own max_steps overrides it.
  int64_t max_steps = 200000;
  // When non-empty, every trace line (JSON) is written to this file.
  std::string trace_path;
  // When non-empty, the run's failure report — one self-contained HTML page with the timeline,
  // the step list and the failure's expected-versus-actual lines — is written here (timeline.h;
  // `run --report`, formerly `--timeline`).
  std::string timeline_path;
  // Swarm testing for generated scenarios (swarm.h); false = the default mix.
  bool swarm = true;
  // Generated scenarios' config.room_views (the rooms' view plane; `--room-views on`).
  bool room_views = false;
  // When set, the run stores the number of the step it is in (1-based) here before each step,
  // for a watcher outside the run (the campaign's worker pool reads it after a crash or a
  // timeout; cli/worker.h). The run never reads it: it cannot change the trace.
  std::atomic<int64_t>* progress = nullptr;
};

struct RunResult {
  uint64_t seed = 0;
  bool ok = true;
  std::string property;  // failing property name ("view==fresh", "no-lost-writes", ...)
  int64_t step = 0;      // the step at which it failed
  std::string message;   // minimal expected-vs-actual diff
  std::string digest;    // XXH3-64 of the canonical trace, 16 hex digits
  int64_t steps = 0;     // events processed
  int64_t virtual_ms = 0;
  std::map<std::string, int64_t> counters;  // actions and faults fired, by name
};

RunResult RunSeed(const RunOptions& options);

// Executes `scenario` (a seed-only /1 scenario is generated from its seed first, with
// options.swarm and options.room_views). options.seed is ignored: the scenario's seed drives the network's randomness.
RunResult RunScenario(const Scenario& scenario, const RunOptions& options = {});

// Whether `result` meets the scenario's expectation ("expect": "fail" passes only while the run
// still fails the scenario's property).
struct ScenarioVerdict {
  bool pass = false;
  std::string explanation;  // one line: why it passed / failed
};
ScenarioVerdict JudgeScenario(const Scenario& scenario, const RunResult& result);
// The same rule for any target: `expect_fail` passes only while `result` fails `property`.
ScenarioVerdict JudgeExpectation(bool expect_fail, const std::string& property,
                                 const RunResult& result);

}  // namespace rindle::sim
