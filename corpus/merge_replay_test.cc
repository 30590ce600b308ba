// merge_replay_test.cc — replays every saved `--target merge` scenario in corpus/merge/
// (RINDLE_CORPUS_DIR "/merge") forever: one test per *.json file, judged by the scenario's own
// "expect" (merge_shrink.h JudgeMergeScenario). A corrupt file fails its own test with the load
// error (naming the file and the field).
#include <string>
#include <vector>

#include "corpus/corpus_files.h"
#include "gtest/gtest.h"
#include "sim/merge/merge_runner.h"
#include "sim/merge/merge_scenario.h"
#include "sim/merge/merge_shrink.h"

namespace rindle::sim {
namespace {

std::vector<std::string> MergeCorpusFiles() {
  return CorpusJsonFiles(std::string(RINDLE_CORPUS_DIR) + "/merge");
}

class MergeCorpusReplayTest : public testing::TestWithParam<std::string> {};

TEST_P(MergeCorpusReplayTest, MeetsItsExpectation) {
  const std::string& path = GetParam();
  absl::StatusOr<MergeScenario> scenario = ReadMergeScenarioFile(path);
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  const RunResult result = RunMergeScenario(*scenario);
  const ScenarioVerdict verdict = JudgeMergeScenario(*scenario, result);
  EXPECT_TRUE(verdict.pass) << path << ": " << verdict.explanation
                            << "\n(reproduce: rindle-sim replay " << path << ")";
}

INSTANTIATE_TEST_SUITE_P(MergeCorpus, MergeCorpusReplayTest, testing::ValuesIn(MergeCorpusFiles()),
                         CorpusTestName);

TEST(MergeCorpusTest, HasAtLeastTwoScenarios) { EXPECT_GE(MergeCorpusFiles().size(), 2u); }

}  // namespace
}  // namespace rindle::sim
