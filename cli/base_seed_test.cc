// base_seed_test.cc — `fuzz --time` without `--seeds` (issue 15): the seeds count up from a
// base printed at the start — `--base-seed B`, or today's UTC date × 10^6 (RINDLE_SIM_TODAY
// stands in for the date here) — so nights differ and each one can be repeated. A small
// --max-steps keeps each seed short (a liveness failure is fine: only the seeds matter here).
#include <cstdlib>
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

#ifndef RINDLE_SIM_BINARY
#error "RINDLE_SIM_BINARY must name the rindle-sim executable"
#endif

namespace {

using ::rindle::testing::CommandOutcome;
using ::rindle::testing::Contains;
using ::rindle::testing::ReadFile;
using ::rindle::testing::RunCli;
using ::rindle::testing::TestDir;

// The seed of the results file's first seed line (line 2, after the header).
uint64_t FirstSeed(const std::string& results) {
  const size_t a = results.find('\n');
  if (a == std::string::npos) return 0;
  const size_t b = results.find('\n', a + 1);
  nlohmann::json line = nlohmann::json::parse(results.substr(a + 1, b - a - 1));
  return line.at("seed").get<uint64_t>();
}

// Sets an environment variable for this test's child processes, and unsets it afterwards.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name); }
  const char* name;
};

TEST(BaseSeedTest, TimeWithoutSeedsStartsAtTheDatesBaseAndPrintsIt) {
  ScopedEnv today("RINDLE_SIM_TODAY", "2026-12-01");
  const std::string out = TestDir("base_seed_") + "/r.jsonl";
  CommandOutcome o = RunCli("fuzz --time 1s --max-steps 100 --quiet --out '" + out + "'");
  ASSERT_LE(o.exit_code, 1) << o.output;
  EXPECT_TRUE(Contains(o.output, "seeds count up from 20261201000000")) << o.output;
  EXPECT_TRUE(Contains(o.output, "--base-seed 20261201000000")) << o.output;
  EXPECT_EQ(FirstSeed(ReadFile(out)), 20261201000000u);
}

TEST(BaseSeedTest, TheNextDayRunsOtherSeeds) {
  ScopedEnv today("RINDLE_SIM_TODAY", "2026-12-02");
  const std::string out = TestDir("base_seed_") + "/r.jsonl";
  CommandOutcome o = RunCli("fuzz --time 1s --max-steps 100 --quiet --out '" + out + "'");
  ASSERT_LE(o.exit_code, 1) << o.output;
  EXPECT_EQ(FirstSeed(ReadFile(out)), 20261202000000u);
}

TEST(BaseSeedTest, BaseSeedFlagRepeatsANight) {
  const std::string out = TestDir("base_seed_") + "/r.jsonl";
  CommandOutcome o = RunCli("fuzz --time 1s --max-steps 100 --base-seed 77 --quiet --out '" + out + "'");
  ASSERT_LE(o.exit_code, 1) << o.output;
  EXPECT_TRUE(Contains(o.output, "seeds count up from 77 (from --base-seed)")) << o.output;
  EXPECT_EQ(FirstSeed(ReadFile(out)), 77u);
}

TEST(BaseSeedTest, BaseSeedMisusedIsAUsageError) {
  const std::string out = TestDir("base_seed_") + "/r.jsonl";
  for (const std::string args :
       {"--seeds 1..3 --base-seed 5", "--time 1s --seeds 1..3 --base-seed 5",
        "--time 1s --base-seed -1", "--time 1s --base-seed x"}) {
    CommandOutcome o = RunCli("fuzz " + args + " --quiet --out '" + out + "'");
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.output;
    EXPECT_TRUE(Contains(o.output, "--base-seed")) << args << "\n" << o.output;
  }
}

TEST(BaseSeedTest, ABadTodayOverrideIsRefused) {
  ScopedEnv today("RINDLE_SIM_TODAY", "1st of December");
  const std::string out = TestDir("base_seed_") + "/r.jsonl";
  CommandOutcome o = RunCli("fuzz --time 1s --max-steps 100 --quiet --out '" + out + "'");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(Contains(o.output, "RINDLE_SIM_TODAY: expected a date YYYY-MM-DD")) << o.output;
}

}  // namespace
