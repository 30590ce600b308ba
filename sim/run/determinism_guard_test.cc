// determinism_guard_test.cc — the campaign's determinism guard (sim/run/determinism_guard.h): which
// seeds are checked is a pure function of the seed near the requested share, and two runs with
// different digests become a `nondeterminism` failure naming both digests and the first
// differing trace line.
#include "sim/run/determinism_guard.h"

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

TEST(DeterminismGuardTest, ChecksAboutTheRequestedShareOfSeedsAlwaysTheSameOnes) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 100000; ++seed) {
    const bool c = IsCheckedSeed(seed, 50000);
    EXPECT_EQ(c, IsCheckedSeed(seed, 50000));
    checked += c ? 1 : 0;
  }
  EXPECT_GT(checked, 4500);
  EXPECT_LT(checked, 5500);
  EXPECT_FALSE(IsCheckedSeed(7, 0));
  EXPECT_TRUE(IsCheckedSeed(7, 1000000));
}

TEST(DeterminismGuardTest, DifferentDigestsAreANondeterminismFailureWithTheFirstDifference) {
  const std::string a = testing::TempDir() + "/det_a.jsonl";
  const std::string b = testing::TempDir() + "/det_b.jsonl";
  std::ofstream(a) << "{\"ev\":\"config\"}\n{\"ev\":\"push\",\"mid\":1}\n{\"ev\":\"end\"}\n";
  std::ofstream(b) << "{\"ev\":\"config\"}\n{\"ev\":\"push\",\"mid\":2}\n{\"ev\":\"end\"}\n";
  RunResult ra;
  ra.seed = 9;
  ra.digest = "00000000000000aa";
  RunResult rb = ra;
  rb.digest = "00000000000000bb";
  std::optional<RunResult> bad = CompareTwinRuns(ra, rb, a, b);
  ASSERT_TRUE(bad.has_value());
  EXPECT_FALSE(bad->ok);
  EXPECT_EQ(bad->property, "nondeterminism");
  EXPECT_EQ(bad->seed, 9u);
  EXPECT_NE(bad->message.find("00000000000000aa"), std::string::npos) << bad->message;
  EXPECT_NE(bad->message.find("00000000000000bb"), std::string::npos) << bad->message;
  EXPECT_NE(bad->message.find("\"mid\":1"), std::string::npos) << bad->message;
  EXPECT_NE(bad->message.find("\"mid\":2"), std::string::npos) << bad->message;

  EXPECT_FALSE(CompareTwinRuns(ra, ra, a, a).has_value());
}

// A value drift: the canonical lines differ only in a hash; the message shows that line and
// then each file's readable detail (the cell that drifted).
TEST(DeterminismGuardTest, AValueDriftShowsTheReadableRowsOfTheFirstDifferingLine) {
  const std::string a = testing::TempDir() + "/det_drift_a.jsonl";
  const std::string b = testing::TempDir() + "/det_drift_b.jsonl";
  std::ofstream(a) << "{\"ev\":\"config\"}\n"
                   << R"({"detail":{"rows":[{"row":{"title":"old"}}]},"ev":"apply","hash":"01"})"
                   << "\n";
  std::ofstream(b) << "{\"ev\":\"config\"}\n"
                   << R"({"detail":{"rows":[{"row":{"title":"new"}}]},"ev":"apply","hash":"02"})"
                   << "\n";
  RunResult ra;
  ra.seed = 4;
  ra.digest = "00000000000000aa";
  RunResult rb = ra;
  rb.digest = "00000000000000bb";
  std::optional<RunResult> bad = CompareTwinRuns(ra, rb, a, b);
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->message.find("trace line 1 differs"), std::string::npos) << bad->message;
  EXPECT_NE(bad->message.find(R"(expected: {"ev":"apply","hash":"01"})"), std::string::npos)
      << bad->message;
  EXPECT_NE(bad->message.find(R"("title":"old")"), std::string::npos) << bad->message;
  EXPECT_NE(bad->message.find(R"("title":"new")"), std::string::npos) << bad->message;
}

}  // namespace
}  // namespace rindle::sim
