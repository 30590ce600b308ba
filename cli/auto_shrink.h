// auto_shrink.h — `fuzz --auto-shrink` (issue 15 "Campaigns across machines"): groups a campaign's
// failures and shrinks one scenario per group, several groups at a time. Failures with the same
// property and the same message SHAPE (the message with every run of digits replaced by '#', so "c1
// ... step 40" and "c2 ... step 97" match) are one group, shrunk once — from its lowest seed, the
// representative — and the others are listed as its members. Stateless entry points.
//
// Shapes: a group is (property, MessageShape(message)); groups come out ordered by their
// representative seed; members (representative first) in increasing seed order. Failures that
// cannot be shrunk (property "nondeterminism" or "setup") and passing results are left out.
//
// RunAutoShrink: each group's shrink (`rindle-sim shrink --seed R`, shrink_command.h) runs in
// a forked child, at most `jobs` at a time (its candidates fork their own workers), writing
// <corpus>/pending/seed-<R>-<property slug>.json; a group whose file exists already (a resumed
// campaign) is not shrunk again. One line per group on stdout: the file or why not, and the
// other members. A fork failure runs that shrink in-process. The result links every member
// seed to its group's file (junit.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/run/runner.h"

namespace rindle::sim::cli {

struct FailureGroup {
  std::string property;
  std::string shape;              // MessageShape of the representative's message
  uint64_t representative = 0;    // the lowest seed: the one shrunk
  std::vector<uint64_t> members;  // every seed of the group, representative first, increasing
};

// `message` with each maximal run of ASCII digits replaced by one '#'.
std::string MessageShape(const std::string& message);

std::vector<FailureGroup> GroupFailures(const std::vector<RunResult>& results);

// What the JUnit file says about a failing seed after --auto-shrink: the shrunk scenario of its
// group (empty when the shrink did not produce one) and the group's representative seed.
struct ShrinkLink {
  std::string scenario;
  uint64_t representative = 0;
};
using ShrinkLinks = std::map<uint64_t, ShrinkLink>;  // failing seed → its group's shrink

struct AutoShrinkOptions {
  std::string corpus_dir = "corpus";  // files go to <corpus_dir>/pending/
  int jobs = 1;                       // shrinks at a time (>= 1)
  bool swarm = true;
  bool room_views = true;             // --room-views (generation mode, as the campaign ran)
  bool merge = false;                 // --target merge: shrink the merge target's scenario
  int64_t max_steps = 0;              // the campaign's per-run budget (0 = default)
  int64_t time_budget_ms = 60000;     // per group
  int64_t max_runs = 2000;            // per group
  bool quiet = false;
};

ShrinkLinks RunAutoShrink(const std::vector<FailureGroup>& groups,
                          const AutoShrinkOptions& options);

}  // namespace rindle::sim::cli
