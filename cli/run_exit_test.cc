// run_exit_test.cc — `rindle-sim run` (the built binary, RINDLE_SIM_BINARY): exits 0 / 1 / 2 in
// every case, a crash of the simulated code included (a CHECK abort is a `crash` failure line
// carrying the CHECK message, exit 1, not 134); a run that drains its queue on the last allowed
// step is quiescent; --emit-scenario keeps --max-steps so the saved file reproduces the run; a
// scenario with a mistyped mutator arg is refused at load (exit 2).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

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

// A private directory for this test's files (ctest -j runs tests side by side).
std::string Dir() { return TestDir("run_exit_"); }

// Before: the run after its last allowed step failed "not quiescent (0 events queued)".
TEST(RunExitTest, EndingExactlyOnTheStepBudgetIsQuiescent) {
  Outcome full = RunCli("run --seed 3");
  ASSERT_EQ(full.exit_code, 0) << full.output;
  const std::string steps = Match(full.output, "seed=3 ok digest=[0-9a-f]+ steps=([0-9]+)");
  ASSERT_NE(steps, "") << full.output;
  const long s = std::stol(steps);
  Outcome exact = RunCli("run --seed 3 --max-steps " + std::to_string(s));
  EXPECT_EQ(exact.exit_code, 0) << exact.output;
  EXPECT_EQ(Match(exact.output, "digest=([0-9a-f]+)"), Match(full.output, "digest=([0-9a-f]+)"));
  Outcome short_by_one = RunCli("run --seed 3 --max-steps " + std::to_string(s - 1));
  EXPECT_EQ(short_by_one.exit_code, 1) << short_by_one.output;
  EXPECT_TRUE(Contains(short_by_one.output, "property=liveness")) << short_by_one.output;
  EXPECT_TRUE(Contains(short_by_one.output, "(1 events queued")) << short_by_one.output;
}

// Before: the emitted scenario had no max_steps, so `run --scenario` passed where the run failed.
TEST(RunExitTest, EmittedScenarioKeepsMaxStepsAndReproduces) {
  const std::string file = Dir() + "/s.json";
  // A budget of half the steps seed 3 takes (the workload changes; the test must not).
  Outcome full = RunCli("run --seed 3");
  const std::string steps = Match(full.output, "steps=([0-9]+)");
  ASSERT_NE(steps, "") << full.output;
  const int64_t budget = std::stoll(steps) / 2;
  Outcome a = RunCli("run --seed 3 --max-steps " + std::to_string(budget) + " --emit-scenario '" +
                     file + "'");
  EXPECT_EQ(a.exit_code, 1) << a.output;
  EXPECT_TRUE(Contains(a.output, "property=liveness")) << a.output;
  nlohmann::json doc = nlohmann::json::parse(ReadFile(file));
  EXPECT_EQ(doc["max_steps"], budget) << doc.dump().substr(0, 200);
  Outcome b = RunCli("run --scenario '" + file + "'");
  EXPECT_EQ(b.exit_code, a.exit_code) << b.output;
  EXPECT_EQ(Match(b.output, "(property=[^\n]*)"), Match(a.output, "(property=[^\n]*)"));
  const std::string digest = Match(a.output, "digest=([0-9a-f]{16})");
  ASSERT_NE(digest, "") << a.output;
  EXPECT_EQ(Match(b.output, "digest=([0-9a-f]{16})"), digest) << b.output;
}

// Before: a CHECK abort of the simulated code killed `run` itself (exit 134). The crash is made
// on purpose through the test-only knob RINDLE_SIM_TEST_CRASH_AT_STEP (cli/run_command.cc): the
// run's child process runs 40 steps, then fails a real RINDLE_CHECK.
TEST(RunExitTest, ACrashIsAFailureLineWithTheCheckMessageAndExitOne) {
  Outcome o = ::rindle::testing::RunCommand(
      "env", std::string("RINDLE_SIM_TEST_CRASH_AT_STEP=40 '") + RINDLE_SIM_BINARY +
                 "' run --seed 5");
  EXPECT_EQ(o.exit_code, 1) << o.output;
  const std::string line = Match(o.output, "(seed=5 property=crash step=[^\n]*)");
  ASSERT_NE(line, "") << o.output;
  EXPECT_TRUE(Contains(line, "CHECK failed")) << line;
  EXPECT_TRUE(Contains(line, "RINDLE_SIM_TEST_CRASH_AT_STEP=40 after step 40")) << line;
  EXPECT_TRUE(Contains(line, "killed by signal 6")) << line;
  EXPECT_TRUE(Contains(line, "property=crash step=40 ")) << line;  // the child's progress page
  EXPECT_TRUE(Contains(o.output, "seed=5 FAILED")) << o.output;
  // Without the knob the same seed passes (exit 0); bad input is still exit 2.
  EXPECT_EQ(RunCli("run --seed 5").exit_code, 0);
  EXPECT_EQ(RunCli("run --seed x").exit_code, 2);
  EXPECT_EQ(RunCli("run --scenario '" + Dir() + "/absent.json'").exit_code, 2);
}

// Before: a typo in a mutator arg loaded fine and the action silently did nothing.
TEST(RunExitTest, AMistypedMutatorArgIsRefusedAtLoad) {
  const std::string file = Dir() + "/s.json";
  ASSERT_EQ(RunCli("run --seed 4 --emit-scenario '" + file + "'").exit_code, 0);
  nlohmann::json doc = nlohmann::json::parse(ReadFile(file));
  size_t index = doc["actions"].size();
  for (size_t i = 0; i < doc["actions"].size(); ++i) {
    nlohmann::json& a = doc["actions"][i];
    if (a.value("name", "") != "setStatus") continue;
    a["args"]["satus"] = a["args"]["status"];
    a["args"].erase("status");
    index = i;
    break;
  }
  ASSERT_LT(index, doc["actions"].size());
  std::ofstream(file, std::ios::trunc) << doc.dump();
  Outcome o = RunCli("run --scenario '" + file + "'");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(Contains(o.output, file)) << o.output;
  EXPECT_TRUE(Contains(o.output, "actions[" + std::to_string(index) + "].args.status")) << o.output;
  EXPECT_TRUE(Contains(o.output, "mutator setStatus")) << o.output;
}

}  // namespace
