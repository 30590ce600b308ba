// merge_replay_test.cc — replays every saved `--target merge` scenario in corpus/merge/
// (RINDLE_CORPUS_DIR "/merge") forever: one test per *.json file, judged by the scenario's own
// "expect" (merge_shrink.h JudgeMergeScenario). A corrupt file fails its own test with the load
// error (naming the file and the field).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sim/merge/merge_runner.h"
#include "sim/merge/merge_scenario.h"
#include "sim/merge/merge_shrink.h"

namespace rindle::sim {
namespace {

std::vector<std::string> MergeCorpusFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RINDLE_CORPUS_DIR) + "/merge", ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
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

std::string TestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(MergeCorpus, MergeCorpusReplayTest, testing::ValuesIn(MergeCorpusFiles()),
                         TestName);

TEST(MergeCorpusTest, HasAtLeastTwoScenarios) { EXPECT_GE(MergeCorpusFiles().size(), 2u); }

}  // namespace
}  // namespace rindle::sim
