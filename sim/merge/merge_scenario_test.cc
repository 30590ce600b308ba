// merge_scenario_test.cc — the merge campaign's scenarios: generation is deterministic and
// draws every op and error path over a few seeds; JSON round-trips; bad files are refused
// naming the field.
#include "sim/merge/merge_scenario.h"

#include <map>
#include <string>

#include "gtest/gtest.h"
#include "sim/merge/merge_generator.h"

namespace rindle::sim {
namespace {

TEST(MergeScenarioTest, GenerationIsDeterministicAndRoundTrips) {
  for (uint64_t seed : {1, 2, 77}) {
    const MergeScenario a = GenerateMergeScenario(seed);
    const MergeScenario b = GenerateMergeScenario(seed);
    EXPECT_EQ(MergeScenarioToJson(a), MergeScenarioToJson(b));
    absl::StatusOr<MergeScenario> back = MergeScenarioFromJson(MergeScenarioToJson(a));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(MergeScenarioToJson(*back), MergeScenarioToJson(a));
  }
  EXPECT_NE(MergeScenarioToJson(GenerateMergeScenario(1)),
            MergeScenarioToJson(GenerateMergeScenario(2)));
}

TEST(MergeScenarioTest, SeedsDrawEveryOpAndErrorPath) {
  std::map<std::string, int> ops, errors;
  int inside = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    for (const MergeAction& a : GenerateMergeScenario(seed).actions) {
      ++ops[std::string(MergeOpName(a.op))];
      if (!a.error.empty()) ++errors[a.error];
      inside += static_cast<int>(a.inside.size());
    }
  }
  for (const char* op : {"query", "add_room", "remove_room", "server_batch", "write", "hold_back",
                         "hold_back_absent", "drop", "freeze", "writable_matches", "provenance"}) {
    EXPECT_GT(ops[op], 0) << op;
  }
  EXPECT_GE(errors.size(), 10u);
  EXPECT_GT(inside, 0);
}

TEST(MergeScenarioTest, BadInputIsRefusedNamingTheField) {
  nlohmann::json j = MergeScenarioToJson(GenerateMergeScenario(3));
  auto refused = [](nlohmann::json bad) {
    absl::StatusOr<MergeScenario> s = MergeScenarioFromJson(bad);
    return s.ok() ? std::string("accepted") : std::string(s.status().message());
  };
  nlohmann::json bad = j;
  bad["target"] = "client";
  EXPECT_NE(refused(bad).find("$.target"), std::string::npos);
  bad = j;
  bad["actions"][0]["op"] = "explode";
  EXPECT_NE(refused(bad).find("$.actions[0].op"), std::string::npos);
  bad = j;
  bad["actions"][0]["deltas"][0]["type"] = "upsert";
  EXPECT_NE(refused(bad).find("$.actions[0].deltas[0].type"), std::string::npos);
  bad = j;
  bad["actions"][0]["bogus"] = 1;
  EXPECT_NE(refused(bad).find("$.actions[0].bogus"), std::string::npos);
  bad = j;
  bad["expect"] = "fail";
  EXPECT_NE(refused(bad).find("$.property"), std::string::npos);
  bad = j;
  bad.erase("seed");
  EXPECT_NE(refused(bad).find("$.seed"), std::string::npos);
}

}  // namespace
}  // namespace rindle::sim
