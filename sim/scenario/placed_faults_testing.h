// placed_faults_testing.h — test-only: a generated scenario places the faults its swarm drew.
// Every kind is placed exactly as often as the swarm's draw says, except the kinds the
// generator adds on top of the draw (scenario_generator.cc): a link_break or partition inside a
// progress_starvation window (PlaceStarvedBreaks: at most one per window) and one early
// partition or authority_restart (PlaceEarlyLinkLoss). Those appear only when their kind was
// drawn on (a disabled kind stays unused).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/scenario/scenario_types.h"

namespace rindle::sim {

inline void ExpectFaultsPlacedAsDrawn(const Scenario& s, uint64_t seed) {
  std::map<std::string, int> placed;
  for (const ScenarioFault& f : s.faults) ++placed[std::string(FaultKindName(f.kind))];
  const int windows = placed["progress_starvation"];
  for (const auto& [kind, count] : s.swarm["faults"].items()) {
    const int drawn = count.get<int>();
    const int n = placed[kind];
    if (drawn == 0) {
      EXPECT_EQ(n, 0) << "seed " << seed << ": " << kind << " is off but placed";
      continue;
    }
    int extra = 0;
    if (kind == "link_break" || kind == "partition") extra = windows + 1;
    if (kind == "authority_restart") extra = 1;
    EXPECT_GE(n, drawn) << "seed " << seed << " " << kind;
    EXPECT_LE(n, drawn + extra) << "seed " << seed << " " << kind;
  }
}

}  // namespace rindle::sim
