// auto_shrink_test.cc — `fuzz --auto-shrink` through the built binary (cli/auto_shrink.h):
// failures of one property and message shape are shrunk once (the lowest seed), the others
// listed as members; shrinks run --jobs at a time; the JUnit file links every failing
// testcase to its group's shrunk scenario (a property and a system-out line).
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"

#ifndef RINDLE_SIM_BINARY
#error "RINDLE_SIM_BINARY must name the rindle-sim executable"
#endif

namespace {

using ::rindle::testing::Contains;
using ::rindle::testing::ReadFile;
using ::rindle::testing::RunCli;
using ::rindle::testing::TestDir;

// Four seeds under a tiny step budget all fail `liveness` with "not quiescent after N steps
// (M events queued)": one shape, so one shrink from seed 5, and seeds 6..8 are its members.
TEST(AutoShrinkTest, GroupsByPropertyAndShapeAndLinksJUnitToTheShrink) {
  const std::string dir = TestDir("auto_shrink_");
  const std::string junit = dir + "/junit.xml";
  auto o = RunCli("fuzz --seeds 5..8 --max-steps 150 --jobs 2 --quiet --determinism-check 0 "
                  "--out '" + dir + "/r.jsonl' --junit '" + junit + "' --auto-shrink "
                  "--shrink-time 8s --corpus '" + dir + "'");
  ASSERT_EQ(o.exit_code, 1) << o.output;
  EXPECT_TRUE(Contains(o.output, "auto-shrink: 4 failures in 1 group (same property and "
                                 "message shape), 2 at a time")) << o.output;
  const std::string file = dir + "/pending/seed-5-liveness.json";
  EXPECT_TRUE(Contains(o.output, "auto-shrink: seed 5 (liveness, 4 seeds) -> " + file))
      << o.output;
  EXPECT_TRUE(Contains(o.output, "same failure shape, not shrunk again: 6, 7, 8")) << o.output;
  ASSERT_TRUE(std::filesystem::exists(file)) << o.output;
  std::set<std::string> written;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/pending")) {
    written.insert(e.path().filename().string());
  }
  EXPECT_EQ(written, std::set<std::string>{"seed-5-liveness.json"});
  // Every failing testcase: the property and the system-out line naming the one file.
  const std::string xml = ReadFile(junit);
  for (int seed = 5; seed <= 8; ++seed) {
    const std::regex testcase("<testcase [^>]*name=\"seed " + std::to_string(seed) +
                              "\">\\s*<properties><property name=\"shrunk_scenario\" value=\"" +
                              file + "\"/><property name=\"shrink_group\" value=\"seed 5\"/>"
                              "</properties>\\s*<failure [^]*?</failure>\\s*<system-out>shrunk "
                              "scenario: " + file + " \\(group of seed 5; replay: rindle-sim "
                              "replay " + file + "\\)</system-out>\\s*</testcase>");
    EXPECT_TRUE(std::regex_search(xml, testcase)) << "seed " << seed << "\n" << xml;
  }
  auto replay = RunCli("replay '" + file + "'");
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
}

// Without --auto-shrink the JUnit file carries no shrink links.
TEST(AutoShrinkTest, NoLinksWithoutAutoShrink) {
  const std::string dir = TestDir("auto_shrink_");
  const std::string junit = dir + "/junit.xml";
  auto o = RunCli("fuzz --seeds 5..5 --max-steps 150 --quiet --determinism-check 0 --out '" +
                  dir + "/r.jsonl' --junit '" + junit + "'");
  ASSERT_EQ(o.exit_code, 1) << o.output;
  const std::string xml = ReadFile(junit);
  EXPECT_TRUE(Contains(xml, "<failure type=\"liveness\"")) << xml;
  EXPECT_FALSE(Contains(xml, "shrunk_scenario")) << xml;
  EXPECT_FALSE(Contains(xml, "auto-shrink")) << o.output;
}

}  // namespace
