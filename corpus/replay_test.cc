// replay_test.cc — replays every saved scenario in corpus/ (RINDLE_CORPUS_DIR) forever: one
// test per *.json file (not corpus/pending/), judged by the scenario's own "expect" (runner.h
// JudgeScenario). A corrupt file fails its own test with the load error (naming the file and
// the field); the other files' tests still run. An empty corpus skips.
#include <string>
#include <vector>

#include "corpus/corpus_files.h"
#include "gtest/gtest.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

#ifndef RINDLE_CORPUS_DIR
#error "RINDLE_CORPUS_DIR must name the corpus directory"
#endif

namespace rindle::sim {
namespace {

std::vector<std::string> CorpusFiles() { return CorpusJsonFiles(RINDLE_CORPUS_DIR); }

class CorpusReplayTest : public testing::TestWithParam<std::string> {};

TEST_P(CorpusReplayTest, MeetsItsExpectation) {
  const std::string& path = GetParam();
  absl::StatusOr<Scenario> scenario = LoadScenario(path);
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  const RunResult result = RunScenario(*scenario);
  const ScenarioVerdict verdict = JudgeScenario(*scenario, result);
  EXPECT_TRUE(verdict.pass) << path << ": " << verdict.explanation
                            << "\n(reproduce: rindle-sim replay " << path << ")";
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusReplayTest, testing::ValuesIn(CorpusFiles()),
                         CorpusTestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusReplayTest);

TEST(CorpusTest, HasScenarios) {
  if (CorpusFiles().empty()) GTEST_SKIP() << "no *.json scenarios in " << RINDLE_CORPUS_DIR;
  SUCCEED();
}

}  // namespace
}  // namespace rindle::sim
