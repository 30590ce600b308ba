// health_test.cc — the campaign summary's health section (the built binary, RINDLE_SIM_BINARY):
// every action kind and fault kind of the kinds table and every property name is listed; a kind
// that cannot fire (a 3-step budget leaves no room for faults) is flagged NEVER FIRED, a
// property never checked likewise; the counters are saved in each result line, so the summary
// after --resume counts the seeds read back from the file too (before: only the seeds run now).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "properties/property_names.h"
#include "sim/scenario/scenario_kinds.h"

#ifndef RINDLE_SIM_BINARY
#error "RINDLE_SIM_BINARY must name the rindle-sim executable"
#endif

namespace {

using Outcome = ::rindle::testing::CommandOutcome;
using ::rindle::testing::Contains;
using ::rindle::testing::Match;
using ::rindle::testing::ReadFile;
using ::rindle::testing::RunCli;
using ::rindle::testing::TestDir;
using ::rindle::testing::WriteFile;

std::string Dir() { return TestDir("health_"); }

// The health section (from "health:" to the end of the output).
std::string Health(const std::string& output) {
  const size_t at = output.find("\nhealth:\n");
  return at == std::string::npos ? "" : output.substr(at);
}

// The row of `name` in the health section ("" when missing).
std::string Row(const std::string& health, std::string_view name) {
  const std::string start = "\n    " + std::string(name) + " ";
  const size_t at = health.find(start);
  if (at == std::string::npos) return "";
  const size_t end = health.find('\n', at + 1);
  return health.substr(at + 1, end - at - 1);
}

// The first number on a row (the seeds it fired / was checked in), -1 when none.
long SeedsOf(const std::string& row) {
  std::smatch m;
  if (!std::regex_search(row, m, std::regex("^ +\\S+ +([0-9]+)"))) return -1;
  return std::stol(m[1]);
}

TEST(HealthTest, ListsEveryKindAndPropertyAndFlagsWhatNeverFired) {
  const std::string dir = Dir();
  Outcome o = RunCli("fuzz --seeds 10..12 --swarm on --max-steps 3 --out '" + dir + "/r.jsonl'");
  const std::string health = Health(o.output);
  ASSERT_NE(health, "") << o.output;
  for (const auto& spec : rindle::sim::ActionKindTable()) {
    EXPECT_NE(Row(health, spec.name), "") << spec.name << "\n" << health;
  }
  int never_fired = 0;
  for (const auto& spec : rindle::sim::FaultKindTable()) {
    const std::string row = Row(health, spec.name);
    EXPECT_NE(row, "") << spec.name << "\n" << health;
    // Faults may come at any time (t ≥ 0, before connects included), so a three-step run may
    // fire one; a kind fired in no seed is flagged, one that fired is not.
    if (SeedsOf(row) == 0) {
      EXPECT_NE(row.find("NEVER FIRED"), std::string::npos) << row;
      ++never_fired;
    } else {
      EXPECT_EQ(row.find("NEVER FIRED"), std::string::npos) << row;
    }
  }
  // Three steps leave room for few faults: most kinds never fired.
  EXPECT_GT(never_fired, 0) << health;
  for (std::string_view name : rindle::props::kPropertyNames) {
    // The merge-* properties belong to `--target merge`'s health table (target_merge_test.cc).
    if (name.substr(0, 6) == "merge-") {
      EXPECT_EQ(Row(health, name), "") << name << "\n" << health;
      continue;
    }
    EXPECT_NE(Row(health, name), "") << name << "\n" << health;
  }
  // The first action of every seed is a retain; quiescence is never reached in 3 steps.
  EXPECT_EQ(SeedsOf(Row(health, "retain")), 3) << health;
  EXPECT_EQ(Row(health, "retain").find("NEVER"), std::string::npos) << health;
  EXPECT_NE(Row(health, "convergence").find("NEVER FIRED (never checked)"), std::string::npos)
      << health;
  EXPECT_EQ(SeedsOf(Row(health, "client-health")), 3) << health;
}

TEST(HealthTest, AFullCampaignChecksTheStepProperties) {
  const std::string dir = Dir();
  Outcome o = RunCli("fuzz --seeds 1..3 --swarm on --out '" + dir + "/r.jsonl'");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string health = Health(o.output);
  for (std::string_view p : {"convergence", "head==sync+pending", "no-lost-writes"}) {
    EXPECT_EQ(SeedsOf(Row(health, p)), 3) << p << "\n" << health;
    EXPECT_EQ(Row(health, p).find("NEVER"), std::string::npos) << health;
  }
}

// The simulator's action-time checks (channel-isolation at every frame a client with a room
// receives, room-context-leak at every room release with the view plane on, room-stuck at every
// stuck event) count check.<p>.checked where they run. Before: they bumped no counter, so the
// summary showed channel-isolation "NEVER FIRED (never checked)" in campaigns that ran it at
// every room frame.
TEST(HealthTest, TheSimulatorsActionTimeChecksAreCounted) {
  const std::string dir = Dir();
  // Seeds 3 and 4 connect rooms in the default mix.
  Outcome rooms = RunCli("fuzz --seeds 3..4 --out '" + dir + "/rooms.jsonl'");
  ASSERT_EQ(rooms.exit_code, 0) << rooms.output;
  std::string health = Health(rooms.output);
  EXPECT_EQ(SeedsOf(Row(health, "channel-isolation")), 2) << health;
  EXPECT_EQ(Row(health, "channel-isolation").find("NEVER"), std::string::npos) << health;
  // The worker's timeout judges every seed and counts nothing: a verdict, not "never checked".
  EXPECT_NE(Row(health, "timeout").find("not counted"), std::string::npos) << health;
  // The view plane (off by default) runs the other two; seeds 8 and 15 of these have a stuck
  // downgrade. Some of these seeds fail (issue 13's open view-plane failures): the summary
  // still counts their checks.
  Outcome views =
      RunCli("fuzz --seeds 5..15 --room-views on --out '" + dir + "/views.jsonl'");
  health = Health(views.output);
  ASSERT_NE(health, "") << views.output;
  for (std::string_view p : {"channel-isolation", "room-context-leak", "room-stuck"}) {
    EXPECT_GT(SeedsOf(Row(health, p)), 0) << p << "\n" << health;
    EXPECT_EQ(Row(health, p).find("NEVER"), std::string::npos) << p << "\n" << health;
  }
}

// Before: resumed seeds' counters were neither saved nor counted, so the summary after
// --resume covered only the seeds run now (retain: 1 seed of 3).
TEST(HealthTest, ResumedSummaryCountsTheSeedsFromTheFile) {
  const std::string dir = Dir();
  const std::string out = dir + "/r.jsonl";
  Outcome first = RunCli("fuzz --seeds 1..2 --out '" + out + "'");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string text = ReadFile(out);
  EXPECT_NE(text.find("\"counters\":{"), std::string::npos) << text;
  Outcome resumed = RunCli("fuzz --seeds 1..3 --resume --out '" + out + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("counters (summed over 3 seeds)"), std::string::npos)
      << resumed.output;
  const std::string health = Health(resumed.output);
  EXPECT_EQ(SeedsOf(Row(health, "retain")), 3) << health;
  EXPECT_EQ(SeedsOf(Row(health, "client-health")), 3) << health;
}

// Result lines without "counters" (written before they were saved) are still resumed over; a
// mistyped counter is refused, naming the line (strict reading stays strict).
TEST(HealthTest, ResumeReadsLinesWithoutCountersAndRefusesBadOnes) {
  const std::string dir = Dir();
  const std::string out = dir + "/r.jsonl";
  Outcome first = RunCli("fuzz --seeds 1..2 --out '" + out + "'");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::ifstream in(out);
  std::string header, line;
  std::getline(in, header);
  std::string old_format = header + "\n", bad = header + "\n";
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    j.erase("counters");
    old_format += j.dump() + "\n";
    j["counters"] = {{"action.retain", "many"}};
    bad += j.dump() + "\n";
  }
  in.close();
  std::ofstream(out, std::ios::trunc) << old_format;
  Outcome resumed = RunCli("fuzz --seeds 1..3 --resume --out '" + out + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("counters (summed over 3 seeds)"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(SeedsOf(Row(Health(resumed.output), "retain")), 1) << resumed.output;  // seed 3
  const std::string bad_path = dir + "/bad.jsonl";
  std::ofstream(bad_path) << bad;
  Outcome refused = RunCli("fuzz --seeds 1..3 --resume --out '" + bad_path + "'");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("line 2"), std::string::npos) << refused.output;
  EXPECT_EQ(ReadFile(bad_path), bad);  // untouched
}

}  // namespace
