// runner.h — runs one seed end to end: a whole simulated deployment (the daemon authority, 2–4
// optimistic clients, a faulty network) in virtual time, every invariant checked after every
// step, then a quiescence phase (faults healed, queues drained) checking convergence.
// Stateless entry point; everything a run touches is created and destroyed inside RunSeed.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace rindle::sim {

struct RunOptions {
  uint64_t seed = 1;
  // Per-seed step budget: a run still not quiescent after this many events is a `liveness`
  // failure instead of a hang.
  int64_t max_steps = 200000;
  // When non-empty, every trace line (JSON) is written to this file.
  std::string trace_path;
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

}  // namespace rindle::sim
