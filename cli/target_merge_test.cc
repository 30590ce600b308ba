// target_merge_test.cc — `--target merge` through the built binary: a seed runs and prints its
// merge counters, a small campaign prints the merge health, scenarios emit / replay / shrink,
// and bad input (an unknown target, a malformed or foreign scenario file) exits 2 naming the
// flag or the field.
#include <string>

#include "cli/run_binary_for_test.h"
#include "gtest/gtest.h"

namespace rindle::testing {
namespace {

TEST(TargetMergeTest, RunEmitReplay) {
  const std::string dir = TestDir("merge-");
  CommandOutcome run = RunCli("run --target merge --seed 5 --emit-scenario " + dir + "/s5.json");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "seed=5 target=merge ok")) << run.output;
  EXPECT_TRUE(Contains(run.output, "merge.server_batch.daemon")) << run.output;
  const std::string digest = Match(run.output, "digest=([0-9a-f]{16})");
  CommandOutcome replay = RunCli("replay " + dir + "/s5.json");
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_TRUE(Contains(replay.output, "passed (digest " + digest + ")")) << replay.output;
  CommandOutcome again = RunCli("run --target merge --scenario " + dir + "/s5.json");
  EXPECT_EQ(Match(again.output, "digest=([0-9a-f]{16})"), digest);
}

TEST(TargetMergeTest, CampaignPrintsMergeHealth) {
  const std::string dir = TestDir("merge-");
  CommandOutcome fuzz =
      RunCli("fuzz --target merge --seeds 1..3 --quiet --out " + dir + "/r.jsonl");
  EXPECT_EQ(fuzz.exit_code, 0) << fuzz.output;
  EXPECT_TRUE(Contains(fuzz.output, "merge operations (seeds fired in")) << fuzz.output;
  EXPECT_TRUE(Contains(fuzz.output, "merge-view==fresh")) << fuzz.output;
  EXPECT_FALSE(Contains(fuzz.output, "fault kinds")) << fuzz.output;
  EXPECT_TRUE(Contains(ReadFile(dir + "/r.jsonl"), "\"target\":\"merge\"")) << "header options";
}

TEST(TargetMergeTest, ShrinkOfAPassingSeedSaysSo) {
  const std::string dir = TestDir("merge-");
  CommandOutcome shrink = RunCli("shrink --target merge --seed 5 --quiet --out " + dir + "/x.json");
  EXPECT_EQ(shrink.exit_code, 1) << shrink.output;
  EXPECT_TRUE(Contains(shrink.output, "nothing to shrink")) << shrink.output;
}

TEST(TargetMergeTest, BadInputExitsTwo) {
  const std::string dir = TestDir("merge-");
  CommandOutcome bad_target = RunCli("run --target mrege --seed 1");
  EXPECT_EQ(bad_target.exit_code, 2);
  EXPECT_TRUE(Contains(bad_target.output, "--target: expected client or merge")) << bad_target.output;
  WriteFile(dir + "/bad.json",
            R"({"rindle_merge_scenario":1,"target":"merge","seed":1,"actions":[{"op":"write",)"
            R"("ops":[{"table":"issue","type":"upsert","row":[]}]}]})");
  CommandOutcome bad_file = RunCli("run --target merge --scenario " + dir + "/bad.json");
  EXPECT_EQ(bad_file.exit_code, 2);
  EXPECT_TRUE(Contains(bad_file.output, "$.actions[0].ops[0].type")) << bad_file.output;
  CommandOutcome replay = RunCli("replay " + dir + "/bad.json");
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  CommandOutcome trace = RunCli("run --target merge --seed 1 --trace " + dir + "/t.jsonl");
  EXPECT_EQ(trace.exit_code, 2);
  EXPECT_TRUE(Contains(trace.output, "not supported with --target merge")) << trace.output;
}

}  // namespace
}  // namespace rindle::testing
