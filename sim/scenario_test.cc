// scenario_test.cc — loading and validating corpus scenario files (format rindle-scenario/1)
// and judging a run against a scenario's expectation. No simulation runs here.
#include "sim/scenario.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

void ExpectError(const std::string& content, const std::string& needle) {
  const std::string path = WriteTemp("scenario_test_case.json", content);
  absl::StatusOr<Scenario> s = LoadScenario(path);
  ASSERT_FALSE(s.ok()) << content;
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find(needle), std::string::npos) << s.status();
}

TEST(ScenarioTest, LoadsAPassingScenario) {
  const std::string path = WriteTemp(
      "ok.json",
      R"({"format":"rindle-scenario/1","seed":42,"max_steps":1000,"expect":"pass","note":"n"})");
  absl::StatusOr<Scenario> s = LoadScenario(path);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->seed, 42u);
  EXPECT_EQ(s->max_steps, 1000);
  EXPECT_EQ(s->expect, Scenario::Expect::kPass);
  EXPECT_EQ(s->note, "n");
  RunOptions options = ScenarioRunOptions(*s);
  EXPECT_EQ(options.seed, 42u);
  EXPECT_EQ(options.max_steps, 1000);
}

TEST(ScenarioTest, RoundTripsThroughJson) {
  Scenario s;
  s.seed = 18446744073709551615ULL;
  s.expect = Scenario::Expect::kFail;
  s.property = "no-lost-writes";
  s.note = "known bug";
  absl::StatusOr<Scenario> back = ScenarioFromJson(ScenarioToJson(s), "mem");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->seed, s.seed);
  EXPECT_EQ(back->expect, Scenario::Expect::kFail);
  EXPECT_EQ(back->property, "no-lost-writes");
  EXPECT_FALSE(back->max_steps.has_value());
}

TEST(ScenarioTest, ErrorsNameTheFileAndTheField) {
  ExpectError(R"({"format":"rindle-scenario/1","seed":)", "not valid JSON");
  ExpectError("[1,2]", "expected a JSON object");
  ExpectError(R"({"seed":1,"expect":"pass"})", "field \"format\"");
  ExpectError(R"({"format":"rindle-scenario/2","seed":1,"expect":"pass"})", "field \"format\"");
  ExpectError(R"({"format":"rindle-scenario/1","expect":"pass"})", "field \"seed\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":"12","expect":"pass"})",
              "field \"seed\": expected a non-negative integer");
  ExpectError(R"({"format":"rindle-scenario/1","seed":-3,"expect":"pass"})", "field \"seed\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1.5,"expect":"pass"})", "field \"seed\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1})", "field \"expect\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"maybe"})",
              "field \"expect\": expected \"pass\" or \"fail\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"fail"})",
              "field \"property\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"pass","max_steps":0})",
              "field \"max_steps\": expected a positive integer");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expect":"pass","note":7})",
              "field \"note\"");
  ExpectError(R"({"format":"rindle-scenario/1","seed":1,"expct":"pass"})",
              "unknown field \"expct\"");
}

TEST(ScenarioTest, MissingFileIsNotFound) {
  absl::StatusOr<Scenario> s = LoadScenario("/nonexistent/scenario.json");
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
}

TEST(ScenarioTest, JudgesExpectations) {
  Scenario pass;
  Scenario known_bug;
  known_bug.expect = Scenario::Expect::kFail;
  known_bug.property = "view==fresh";
  RunResult ok;
  RunResult broke;
  broke.ok = false;
  broke.property = "view==fresh";
  RunResult other;
  other.ok = false;
  other.property = "no-lost-writes";

  EXPECT_TRUE(JudgeScenario(pass, ok).pass);
  EXPECT_FALSE(JudgeScenario(pass, broke).pass);
  EXPECT_TRUE(JudgeScenario(known_bug, broke).pass);
  EXPECT_FALSE(JudgeScenario(known_bug, ok).pass);
  EXPECT_FALSE(JudgeScenario(known_bug, other).pass);
  EXPECT_NE(JudgeScenario(known_bug, other).explanation.find("different property"),
            std::string::npos);
}

}  // namespace
}  // namespace rindle::sim
