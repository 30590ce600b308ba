// determinism_guard.h — the campaign's determinism guard (FoundationDB's test harness does the
// same): a fixed fraction of seeds runs twice, in separate worker processes, each writing its
// trace; differing digests are a failure of property "nondeterminism" naming both digests and
// the first differing canonical trace line (data as hashes), then that line's readable detail
// from each file (trace.h) when it has one. Stateless functions.
//
// Which seeds: IsCheckedSeed(seed, per_million) is a pure function of the seed (a splitmix64
// hash below the threshold), so a resumed or sharded campaign checks the same seeds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/run/runner.h"

namespace rindle::sim {

bool IsCheckedSeed(uint64_t seed, uint32_t per_million);

// Compares two runs of the same seed whose traces are in `trace_a` / `trace_b`. Returns the
// "nondeterminism" failure when the digests differ, else nullopt. A crash in either run is not
// judged here (the caller records the crash).
std::optional<RunResult> CompareTwinRuns(const RunResult& a, const RunResult& b,
                                         const std::string& trace_a, const std::string& trace_b);

}  // namespace rindle::sim
