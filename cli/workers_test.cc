// workers_test.cc — `rindle-sim fuzz`'s worker pool, driven through the built binary
// (RINDLE_SIM_BINARY) with the test-only fault knobs of cli/worker.h (RINDLE_SIM_TEST_*): a
// hanging seed becomes a `timeout` at --seed-timeout and a crashing one a `crash` carrying its
// CHECK message, each with a reproduce command that works, without losing any other seed; a
// worker killed from outside is retried once; no temporary file or directory is left behind.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"

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

// Runs `env <env> rindle-sim <args>`.
Outcome RunWithEnv(const std::string& env, const std::string& args) {
  return ::rindle::testing::RunCommand("env", env + " '" + RINDLE_SIM_BINARY + "' " + args);
}

// A private directory for this test's files (ctest -j runs tests side by side).
std::string Dir() {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = ::testing::TempDir() + "/workers_" + t->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/tmp");
  return dir;
}

int CountLines(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += Contains(line, needle) ? 1 : 0;
  return n;
}

// Before: the timeout message's command to stop before the hang left out the campaign's own
// options (`--swarm off`, `--room-views off`), so it ran another scenario than the one that hung.
TEST(WorkersTest, TheStopBeforeTheHangCommandCarriesTheCampaignsOptions) {
  const std::string dir = Dir();
  const std::string knobs = "RINDLE_SIM_TEST_HANG_AT_STEP=30:2 TMPDIR='" + dir + "/tmp'";
  Outcome o = RunWithEnv(knobs, "fuzz --seeds 2..2 --swarm off --room-views off --seed-timeout 8s "
                                "--quiet --out '" + dir + "/r.jsonl'");
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_TRUE(Contains(o.output, "in step 30 (run `rindle-sim run --seed 2 --max-steps 30 "
                                 "--swarm off --room-views off`"))
      << o.output;
}

// Before: a hanging seed stalled the campaign forever (no per-seed deadline), and a crashed
// seed's CHECK message went to shared stderr while its result said only "killed by signal 6".
// Seed 2 hangs after 30 steps, seed 4 fails a CHECK after 30 steps, the rest pass.
TEST(WorkersTest, AHangIsATimeoutAndACrashCarriesItsCheckAndNoSeedIsLost) {
  const std::string dir = Dir();
  // The deadline must exceed an honest seed's run time in THIS build (a sanitizer build is ~10x
  // slower than Release): 3 s, or five times the slowest of two seeds run here, whichever is more.
  int64_t slowest_ms = 0;
  for (const char* seed : {"1", "5"}) {
    const auto start = std::chrono::steady_clock::now();
    (void)RunCli(std::string("run --seed ") + seed);
    slowest_ms = std::max<int64_t>(
        slowest_ms, std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start).count());
  }
  const std::string deadline = std::to_string(std::max<int64_t>(3, (5 * slowest_ms) / 1000 + 1)) + "s";
  const std::string knobs =
      "RINDLE_SIM_TEST_HANG_AT_STEP=30:2 RINDLE_SIM_TEST_CRASH_AT_STEP=30:4 TMPDIR='" + dir +
      "/tmp'";
  Outcome o = RunWithEnv(knobs, "fuzz --seeds 1..6 --jobs 2 --seed-timeout " + deadline +
                                    " --quiet --determinism-check 0.5 --out '" + dir + "/r.jsonl'");
  EXPECT_EQ(o.exit_code, 1) << o.output;
  const std::string timeout = Match(o.output, "(seed=2 property=timeout [^\n]*)");
  ASSERT_NE(timeout, "") << o.output;
  EXPECT_TRUE(Contains(timeout, "seed 2 exceeded the per-seed deadline (--seed-timeout " +
                                    deadline + ")"))
      << timeout;
  // The step it reached comes from the worker's progress page: the knob hangs after step 30.
  EXPECT_TRUE(Contains(timeout, "property=timeout step=30 ")) << timeout;
  EXPECT_TRUE(Contains(timeout, "in step 30 (run `rindle-sim run --seed 2 --max-steps 30`"))
      << timeout;
  const std::string crash = Match(o.output, "(seed=4 property=crash [^\n]*)");
  ASSERT_NE(crash, "") << o.output;
  EXPECT_TRUE(Contains(crash, "CHECK failed")) << crash;
  EXPECT_TRUE(Contains(crash, "RINDLE_SIM_TEST_CRASH_AT_STEP=30:4 after step 30")) << crash;
  EXPECT_TRUE(Contains(crash, "killed by signal 6 (Aborted) in step 30")) << crash;
  EXPECT_TRUE(Contains(crash, "property=crash step=30 ")) << crash;
  EXPECT_TRUE(Contains(o.output, "seed=2 property=timeout")) << o.output;
  EXPECT_TRUE(Contains(o.output, "reproduce: rindle-sim run --seed 2\n")) << o.output;
  EXPECT_TRUE(Contains(o.output, "reproduce: rindle-sim run --seed 4\n")) << o.output;
  EXPECT_TRUE(Contains(o.output, "6 seeds run, 4 passed, 2 failed")) << o.output;
  // One result line per seed, none lost.
  for (int seed = 1; seed <= 6; ++seed) {
    EXPECT_EQ(CountLines(dir + "/r.jsonl", "\"seed\":" + std::to_string(seed) + ","), 1)
        << "seed " << seed;
  }
  EXPECT_EQ(CountLines(dir + "/r.jsonl", "\"property\":\"timeout\""), 1);
  // No temporary file or directory is left behind.
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/tmp"));

  // The printed reproduce commands work: under the same knobs `run` crashes with the same CHECK
  // and hangs; without them both seeds pass (the faults were the knobs).
  Outcome again = RunWithEnv(knobs, "run --seed 4");
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_TRUE(Contains(again.output, "RINDLE_SIM_TEST_CRASH_AT_STEP=30:4 after step 30"))
      << again.output;
  Outcome hang = ::rindle::testing::RunCommand(
      "timeout", "2 env " + knobs + " '" + RINDLE_SIM_BINARY + "' run --seed 2");
  EXPECT_EQ(hang.exit_code, 124) << hang.output;
  EXPECT_EQ(RunWithEnv("", "run --seed 2").exit_code, 0);
  EXPECT_EQ(RunWithEnv("", "run --seed 4").exit_code, 0);
}

// Before: a worker killed from outside (kill -9) made its seed a permanent `crash`. Seed 3's
// worker SIGKILLs itself once (the marker file records it); the retry passes.
TEST(WorkersTest, AWorkerKilledFromOutsideIsRetriedOnce) {
  const std::string dir = Dir();
  Outcome o = RunWithEnv("RINDLE_SIM_TEST_KILL_AT_STEP=30:3 RINDLE_SIM_TEST_KILL_MARKER='" +
                             dir + "/killed' TMPDIR='" + dir + "/tmp'",
                         "fuzz --seeds 1..4 --jobs 2 --quiet --out '" + dir + "/r.jsonl'");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/killed")) << o.output;
  EXPECT_TRUE(Contains(o.output, "the worker running seed 3 was killed by signal 9")) << o.output;
  EXPECT_TRUE(Contains(o.output, "4 seeds run, 4 passed, 0 failed")) << o.output;
  EXPECT_TRUE(Contains(o.output, "retried: 1 seeds")) << o.output;
  EXPECT_EQ(CountLines(dir + "/r.jsonl", "\"seed\":3,"), 1);
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/tmp"));
}

TEST(WorkersTest, SeedTimeoutIsCheckedAsADuration) {
  const std::string dir = Dir();
  Outcome o = RunWithEnv("", "fuzz --seeds 1..2 --seed-timeout soon --out '" + dir + "/r.jsonl'");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(Contains(o.output, "--seed-timeout")) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.jsonl"));
  Outcome off = RunWithEnv("", "fuzz --seeds 1..2 --seed-timeout 0 --quiet --out '" + dir +
                                   "/r.jsonl'");
  EXPECT_EQ(off.exit_code, 0) << off.output;
}

}  // namespace
