// cli_test.cc — the built `rindle-sim` binary (RINDLE_SIM_BINARY): help and usage errors exit
// with the documented codes and clear messages; `replay` reports a corrupt scenario as ERROR
// and keeps going. Nothing here depends on what a simulated seed does.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "sim/cli/run_binary_for_test.h"
#include "gtest/gtest.h"

#ifndef RINDLE_SIM_BINARY
#error "RINDLE_SIM_BINARY must name the rindle-sim executable"
#endif

namespace {

using Outcome = ::rindle::testing::CommandOutcome;

Outcome RunCli(const std::string& args) {
  return ::rindle::testing::RunCommand(RINDLE_SIM_BINARY, args);
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(CliTest, HelpExitsZeroForTheBinaryAndEachCommand) {
  for (const char* args : {"--help", "help", "fuzz --help", "run --help", "replay --help",
                           "help fuzz"}) {
    Outcome o = RunCli(args);
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "Usage")) << args << "\n" << o.output;
  }
}

TEST(CliTest, NoArgumentsOrUnknownCommandIsAUsageError) {
  EXPECT_EQ(RunCli("").exit_code, 2);
  Outcome o = RunCli("frobnicate");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(Contains(o.output, "unknown command \"frobnicate\"")) << o.output;
}

TEST(CliTest, BadSeedsValueExitsTwoNamingTheFlag) {
  for (const char* value : {"5..2", "abc", "1..", "..3", "-1..4", "1...3"}) {
    Outcome o = RunCli(std::string("fuzz --quiet --out /dev/null --seeds '") + value + "'");
    EXPECT_EQ(o.exit_code, 2) << value << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "--seeds")) << value << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "A..B")) << value << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, value)) << value << "\n" << o.output;
  }
}

TEST(CliTest, OtherBadFlagsExitTwo) {
  Outcome missing = RunCli("fuzz --quiet");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(Contains(missing.output, "--seeds")) << missing.output;

  Outcome jobs = RunCli("fuzz --seeds 1..2 --jobs 0");
  EXPECT_EQ(jobs.exit_code, 2);
  EXPECT_TRUE(Contains(jobs.output, "--jobs")) << jobs.output;

  Outcome shard = RunCli("fuzz --seeds 1..2 --shard 3/3");
  EXPECT_EQ(shard.exit_code, 2);
  EXPECT_TRUE(Contains(shard.output, "--shard")) << shard.output;

  Outcome unknown = RunCli("fuzz --seeds 1..2 --sedes 3");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(Contains(unknown.output, "unknown flag --sedes")) << unknown.output;

  Outcome run = RunCli("run --seed nope");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.output, "--seed: expected an unsigned integer")) << run.output;

  EXPECT_EQ(RunCli("run").exit_code, 2);
  EXPECT_EQ(RunCli("replay").exit_code, 2);
}

TEST(CliTest, ReplayReportsCorruptFilesAndKeepsGoing) {
  const std::string dir = testing::TempDir() + "/cli_test_corpus";
  std::remove((dir + "/a-corrupt.json").c_str());
  std::remove((dir + "/b-bad-field.json").c_str());
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  std::ofstream(dir + "/a-corrupt.json") << R"({"format": "rindle-scenario/1", "seed": )";
  std::ofstream(dir + "/b-bad-field.json")
      << R"({"format": "rindle-scenario/1", "seed": "seven", "expect": "pass"})";

  Outcome o = RunCli("replay '" + dir + "'");
  EXPECT_NE(o.exit_code, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "ERROR " + dir + "/a-corrupt.json: not valid JSON"))
      << o.output;
  EXPECT_TRUE(Contains(o.output, "ERROR " + dir + "/b-bad-field.json: field \"seed\""))
      << o.output;
  EXPECT_TRUE(Contains(o.output, "2 errors")) << o.output;
}

TEST(CliTest, ReplayOfAMissingPathIsAnError) {
  Outcome o = RunCli("replay /nonexistent/corpus-dir");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(Contains(o.output, "ERROR /nonexistent/corpus-dir")) << o.output;
}

}  // namespace
