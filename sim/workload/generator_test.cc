// workload_generator_test.cc — the workload generator is deterministic, mints per-client unique
// ids, produces a schema-valid seed dataset, and injects the deliberate mess (blank text, unknown
// targets) at its documented rates.
#include "sim/workload/generator.h"

#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "sim/workload/mutators.h"
#include "sim/workload/queries.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

WorkloadState SomeState() {
  WorkloadState s;
  s.issue_ids = {"i001", "i002", "i003"};
  s.comment_ids = {"c001", "c002"};
  s.tag_ids = {"t001"};
  s.user_ids = {"u01", "u02"};
  return s;
}

TEST(WorkloadGeneratorTest, SameSeedGivesTheSameActionsAndFinalRngState) {
  auto run = [](uint64_t seed) {
    Rng rng(seed);
    int64_t counter = 0;
    json out = json::array();
    for (int i = 0; i < 300; ++i) {
      out.push_back(NextMutation(rng, SomeState(), 1, 1000 + i, counter).ToJson());
    }
    return std::make_pair(out.dump(), rng.state());
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7).first, run(8).first);
}

TEST(WorkloadGeneratorTest, FreshIdsArePerClientAndNeverRepeat) {
  Rng rng(3);
  int64_t counter = 0;
  std::set<std::string> fresh;
  int minted = 0;
  auto take = [&](const json& id) {
    const std::string s = id.get<std::string>();
    EXPECT_TRUE(absl::StrContains(s, "-c2-")) << s;
    EXPECT_TRUE(fresh.insert(s).second) << "repeated " << s;
    ++minted;
  };
  for (int i = 0; i < 2000; ++i) {
    const MutationAction a = NextMutation(rng, SomeState(), 2, 5000, counter);
    if (a.name == "createIssue") {
      take(a.args["id"]);
      take(a.args["description"]["id"]);
      for (const json& t : a.args["tags"]) take(t["id"]);
      if (absl::StartsWith(a.args["ownerId"].get<std::string>(), "u-c")) take(a.args["ownerId"]);
    } else if (a.name == "addTag" || a.name == "addComment" || a.name == "duplicateIssue") {
      take(a.args["id"]);
    } else if (a.name == "setOwner" &&
               absl::StartsWith(a.args["ownerId"].get<std::string>(), "u-c")) {
      take(a.args["ownerId"]);
    }
  }
  EXPECT_GT(minted, 500);
  EXPECT_EQ(counter, minted) << "every minted id advanced the counter once";
}

TEST(WorkloadGeneratorTest, WithNothingKnownEveryActionCreatesAnIssue) {
  Rng rng(11);
  int64_t counter = 0;
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(NextMutation(rng, WorkloadState{}, 0, 1, counter).name, "createIssue");
  }
}

TEST(WorkloadGeneratorTest, WeightsSelectMutatorsAndUnknownNamesAreNeverProduced) {
  WorkloadMix only;
  only.weights = {{"setStatus", 1}};
  Rng rng(5);
  int64_t counter = 0;
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(NextMutation(rng, SomeState(), 0, 1, counter, only).name, "setStatus");
  }
  const std::vector<std::string> names = WorkloadMutatorNames();
  std::set<std::string> seen;
  for (int i = 0; i < 3000; ++i) {
    const MutationAction a = NextMutation(rng, SomeState(), 0, 1, counter);
    ASSERT_TRUE(std::count(names.begin(), names.end(), a.name)) << a.name;
    seen.insert(a.name);
  }
  EXPECT_EQ(seen.size(), names.size()) << "the default mix reaches every mutator";
}

TEST(WorkloadGeneratorTest, SometimesBlankTextAndSometimesUnknownTargets) {
  Rng rng(99);
  int64_t counter = 0;
  const WorkloadState state = SomeState();
  const std::set<std::string> known(state.issue_ids.begin(), state.issue_ids.end());
  int blank = 0, texts = 0, unknown = 0, targets = 0;
  for (int i = 0; i < 3000; ++i) {
    const MutationAction a = NextMutation(rng, state, 0, 1, counter);
    for (const char* field : {"title", "body"}) {
      if (!a.args.contains(field)) continue;
      ++texts;
      if (absl::StripAsciiWhitespace(a.args[field].get<std::string>()).empty()) ++blank;
    }
    if (a.name == "setStatus" || a.name == "editTitle" || a.name == "bumpPriority" ||
        a.name == "deleteIssue" || a.name == "setPriority") {
      ++targets;
      if (!known.count(a.args["id"].get<std::string>())) ++unknown;
    }
  }
  // ≈1/10 blank, ≈1/12 unknown: loose bounds.
  EXPECT_GT(blank, texts / 20);
  EXPECT_LT(blank, texts / 5);
  EXPECT_GT(unknown, targets / 24);
  EXPECT_LT(unknown, targets / 6);
}

TEST(WorkloadGeneratorTest, SeedDataIsSmallValidAndDeterministic) {
  absl::StatusOr<Schema> schema = LoadAppSchema();
  ASSERT_TRUE(schema.ok());
  Rng a(1), b(1);
  const SeedRows rows = SeedData(a);
  EXPECT_EQ(rows, SeedData(b));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows.at("user").size(), 5u);
  EXPECT_EQ(rows.at("issue").size(), 8u);
  EXPECT_GT(rows.at("comment").size(), 0u);
  EXPECT_GT(rows.at("tag").size(), 0u);
  for (const auto& [table, table_rows] : rows) {
    std::set<std::string> ids;
    for (const RowValues& row : table_rows) {
      EXPECT_TRUE(schema->at(table).CheckRow(table, row).ok()) << RowDebugString(row);
      EXPECT_TRUE(ids.insert(row[0].as_string()).second);
    }
  }
  const WorkloadState state = StateFromRows(rows);
  const std::set<std::string> issues(state.issue_ids.begin(), state.issue_ids.end());
  const std::set<std::string> users(state.user_ids.begin(), state.user_ids.end());
  int unassigned = 0;  // issue.ownerId is nullable in the sim schema: some seed issues have none
  for (const RowValues& r : rows.at("issue")) {
    if (r[kIssueOwnerId].is_null()) {
      ++unassigned;
    } else {
      EXPECT_TRUE(users.count(r[kIssueOwnerId].as_string()));
    }
  }
  EXPECT_EQ(unassigned, 2);
  for (const RowValues& r : rows.at("comment")) {
    EXPECT_TRUE(issues.count(r[kCommentIssueId].as_string()));
    EXPECT_TRUE(users.count(r[kCommentAuthorId].as_string()));
  }
  for (const RowValues& r : rows.at("tag")) EXPECT_TRUE(issues.count(r[kTagIssueId].as_string()));
  // The workload's issueDetail queries and the clients' users exist in the seed.
  for (const RemoteQuery& q : WorkloadQueries()) {
    if (q.name == "issueDetail") {
      EXPECT_TRUE(issues.count(q.args.get<std::string>()));
    }
  }
  for (int c = 0; c < 8; ++c) EXPECT_TRUE(users.count(ClientUserId(c)));
}

TEST(WorkloadGeneratorTest, ClientUsersAndNamesAreStable) {
  EXPECT_EQ(ClientUserId(0), "u01");
  EXPECT_EQ(ClientUserId(4), "u05");
  EXPECT_EQ(ClientUserId(5), "u01");
  EXPECT_EQ(WorkloadUserName("u03"), WorkloadUserName("u03"));
  EXPECT_FALSE(WorkloadUserName("u-c1-7").empty());
}

}  // namespace
}  // namespace rindle::sim
