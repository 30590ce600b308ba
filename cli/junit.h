// junit.h — the JUnit XML summary of a campaign (`fuzz --junit FILE`), for CI dashboards.
// Stateless.
//
// Shape: <testsuites><testsuite name="rindle-sim fuzz" tests= failures= time=> with one
// <testcase classname="rindle-sim.fuzz" name="seed N"> per seed — a failed one holds
// <failure type="<property>" message="<message>">seed=N property=... step=...
// reproduce: rindle-sim run --seed N [--max-steps K] [--swarm off]</failure>.
// Above kMaxPassedCases passing seeds, the passing ones are summarized as one testcase
// "<n> passing seeds" so a night-long campaign's file stays small; failures are always listed.
// Text is XML-escaped. Errors: a Status naming the path when it cannot be written.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/result_io.h"
#include "sim/run/runner.h"

namespace rindle::sim::cli {

inline constexpr size_t kMaxPassedCases = 10000;

// `flags`: the campaign's run-changing options, repeated in each failure's reproduce command.
std::string JUnitXml(const std::vector<RunResult>& results, double elapsed_s,
                     const RunFlags& flags = {});
absl::Status WriteJUnit(const std::string& path, const std::vector<RunResult>& results,
                        double elapsed_s, const RunFlags& flags = {});

}  // namespace rindle::sim::cli
