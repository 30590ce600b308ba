// junit.h — the JUnit XML summary of a campaign (`fuzz --junit FILE`), for CI dashboards.
// Stateless.
//
// Shape: <testsuites><testsuite name="rindle-sim fuzz" tests= failures= time=> with one
// <testcase classname="rindle-sim.fuzz" name="seed N"> per seed — a failed one holds
// <failure type="<property>" message="<message>">seed=N property=... step=...
// reproduce: rindle-sim run --seed N [--max-steps K] [--swarm off]</failure>.
// After `fuzz --auto-shrink` (links given), a failed testcase also holds
// <properties><property name="shrunk_scenario" value="<file>"/><property name="shrink_group"
// value="seed <representative>"/></properties> before its <failure>, and a <system-out> line
// "shrunk scenario: <file> (group of seed R; replay: rindle-sim replay <file>)" after it — or
// "(not shrunk)" when its group's shrink produced no file.
// Above kMaxPassedCases passing seeds, the passing ones are summarized as one testcase
// "<n> passing seeds" so a night-long campaign's file stays small; failures are always listed.
// Text is XML-escaped. Errors: a Status naming the path when it cannot be written.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/result_io.h"
#include "cli/auto_shrink.h"
#include "sim/run/runner.h"

namespace rindle::sim::cli {

inline constexpr size_t kMaxPassedCases = 10000;

// `flags`: the campaign's run-changing options, repeated in each failure's reproduce command.
// `links`: --auto-shrink's seed → shrunk scenario (nullptr: no auto-shrink).
std::string JUnitXml(const std::vector<RunResult>& results, double elapsed_s,
                     const RunFlags& flags = {}, const ShrinkLinks* links = nullptr);
absl::Status WriteJUnit(const std::string& path, const std::vector<RunResult>& results,
                        double elapsed_s, const RunFlags& flags = {},
                        const ShrinkLinks* links = nullptr);

}  // namespace rindle::sim::cli
