// ledger_oracle_test.cc — the ledger oracle accepts a well-formed history and names the first
// violation of each rule.
#include "oracles/ledger_oracle.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

void ExpectViolation(const LedgerOracle& l, const std::string& fragment) {
  absl::Status s = l.Check();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s;
}

TEST(LedgerOracleTest, AcceptsAWellFormedHistory) {
  LedgerOracle l;
  l.Issue("c1", "daemon", 1, "addIssue", json{{"id", "i1"}});
  l.Issue("c1", "daemon", 2, "rename", json{{"id", "i1"}, {"title", "x"}});
  l.Issue("c1", "daemon", 2, "rename", json{{"id", "i1"}, {"title", "x"}});  // resend
  l.Issue("c2", "daemon", 1, "addIssue", json{{"id", "i2"}});
  l.Issue("c1", "room:a", 1, "move", json::object());
  l.ObserveWatermark("c1", "daemon", 1);
  l.SetFate("c1", "daemon", 1, MidFate::kApplied);
  l.SetFate("c1", "daemon", 2, MidFate::kBurnt, "twin threw");
  l.SetFate("c1", "daemon", 2, MidFate::kBurnt);  // repeated verdict
  l.ObserveWatermark("c1", "daemon", 2);
  l.ObserveWatermark("c1", "daemon", 2);
  l.Deopt("c1", "room:a", 1, 3);
  l.Issue("c1", "daemon", 3, "move", json::object());
  EXPECT_TRUE(l.Check().ok()) << l.Check();
  auto fates = l.Fates();
  EXPECT_EQ((fates[{"c1", "daemon"}][2]), MidFate::kBurnt);
  EXPECT_EQ((fates[{"c1", "room:a"}][1]), MidFate::kDeopted);
  EXPECT_EQ((fates[{"c1", "daemon"}][3]), MidFate::kPending);
}

TEST(LedgerOracleTest, AGapIsAViolation) {
  LedgerOracle l;
  l.Issue("c1", "daemon", 1, "a", json::object());
  l.Issue("c1", "daemon", 3, "a", json::object());
  ExpectViolation(l, "issued mid 3 but the next mid is 2");
}

TEST(LedgerOracleTest, MidsStartAtOne) {
  LedgerOracle l;
  l.Issue("c1", "daemon", 0, "a", json::object());
  ExpectViolation(l, "the next mid is 1");
}

TEST(LedgerOracleTest, AdoptStartsAfterTheLmid) {
  LedgerOracle l;
  l.Adopt("c1", "daemon", 7);
  l.Issue("c1", "daemon", 8, "a", json::object());
  l.ObserveWatermark("c1", "daemon", 7);
  EXPECT_TRUE(l.Check().ok()) << l.Check();
  l.Issue("c1", "daemon", 7, "a", json::object());
  ExpectViolation(l, "at or below the adopted lmid 7");
}

TEST(LedgerOracleTest, AMidReusedForADifferentMutation) {
  LedgerOracle l;
  l.Issue("c1", "daemon", 1, "a", json{{"x", 1}});
  l.Issue("c1", "daemon", 1, "a", json{{"x", 2}});
  ExpectViolation(l, "mid 1 reused");
}

TEST(LedgerOracleTest, AWatermarkGoingBackwards) {
  LedgerOracle l;
  l.Issue("c1", "daemon", 1, "a", json::object());
  l.Issue("c1", "daemon", 2, "a", json::object());
  l.ObserveWatermark("c1", "daemon", 2);
  l.ObserveWatermark("c1", "daemon", 1);
  ExpectViolation(l, "went backwards from 2 to 1");
}

TEST(LedgerOracleTest, AConfirmedMidNeverIssued) {
  LedgerOracle l;
  l.Issue("c1", "daemon", 1, "a", json::object());
  l.ObserveWatermark("c1", "daemon", 2);
  ExpectViolation(l, "confirms a mid never issued");
}

TEST(LedgerOracleTest, FatesAreFinalAndNeedAnIssuedMid) {
  LedgerOracle a;
  a.SetFate("c1", "daemon", 1, MidFate::kApplied);
  ExpectViolation(a, "never issued");
  LedgerOracle b;
  b.Issue("c1", "daemon", 1, "a", json::object());
  b.SetFate("c1", "daemon", 1, MidFate::kApplied);
  b.SetFate("c1", "daemon", 1, MidFate::kRejected, "no");
  ExpectViolation(b, "already applied, cannot become rejected");
}

TEST(LedgerOracleTest, ADeoptNeedsItsDaemonMid) {
  LedgerOracle l;
  l.Issue("c1", "room:a", 1, "move", json{{"x", 1}});
  l.Deopt("c1", "room:a", 1, 1);
  ExpectViolation(l, "deopted to daemon mid 1, which was never issued");
  l.Issue("c1", "daemon", 1, "other", json::object());
  ExpectViolation(l, "issued as a different mutation");
}

TEST(LedgerOracleTest, ReportsTheFirstViolationInRecordingOrder) {
  LedgerOracle l;
  l.Issue("c1", "daemon", 2, "a", json::object());  // first: a gap
  l.ObserveWatermark("c2", "daemon", 5);             // second: never issued
  ExpectViolation(l, "ledger event 0");
}

// A deopted mid becomes ONE daemon mid: re-sent twice is the mutation applied twice.
TEST(LedgerOracleTest, ADeoptReSentAsTwoDaemonMids) {
  LedgerOracle l;
  l.Issue("c1", "room:a", 1, "move", json{{"x", 1}});
  l.SetFate("c1", "room:a", 1, MidFate::kDeopted);
  l.Issue("c1", "daemon", 1, "move", json{{"x", 1}});
  l.Deopt("c1", "room:a", 1, 1);
  EXPECT_TRUE(l.Check().ok()) << l.Check();
  l.Deopt("c1", "room:a", 1, 1);  // the same target again (a duplicate record) is fine
  EXPECT_TRUE(l.Check().ok()) << l.Check();
  l.Issue("c1", "daemon", 2, "move", json{{"x", 1}});
  l.Deopt("c1", "room:a", 1, 2);
  ExpectViolation(l, "deopted to daemon mid 1 and again to daemon mid 2");
  EXPECT_EQ(l.DeoptTargets("c1", "room:a", 1), (std::vector<int64_t>{1, 2}));
}

TEST(LedgerOracleTest, ADaemonMidIsTheReIssueOfOneDeopt) {
  LedgerOracle l;
  l.Issue("c1", "room:a", 1, "move", json::object());
  l.Issue("c1", "room:a", 2, "move", json::object());
  l.Issue("c1", "daemon", 1, "move", json::object());
  l.Deopt("c1", "room:a", 1, 1);
  l.Deopt("c1", "room:a", 2, 1);
  ExpectViolation(l, "daemon mid 1 is the re-issue of both room:a mid 1 and mid 2");
}

// A watermark observed with require_processed (a room domain, fates fed live) never confirms a
// mid without a final fate yet.
TEST(LedgerOracleTest, ARoomWatermarkAheadOfItsProcessedMids) {
  LedgerOracle l;
  l.Issue("c1", "room:a", 1, "add", json::object());
  l.Issue("c1", "room:a", 2, "add", json::object());
  l.SetFate("c1", "room:a", 1, MidFate::kApplied);
  l.ObserveWatermark("c1", "room:a", 1, /*require_processed=*/true);
  EXPECT_TRUE(l.Check().ok()) << l.Check();
  l.ObserveWatermark("c1", "room:a", 2, /*require_processed=*/true);
  ExpectViolation(l, "watermark 2 confirms a mid its authority had not processed");
  const auto v = l.FirstViolation();
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->domain, "room:a");
  EXPECT_EQ(v->rule, LedgerOracle::Rule::kWatermark);
}

// FirstViolation(filter) reports only the domains asked for, replaying the whole log.
TEST(LedgerOracleTest, FirstViolationFiltersByDomain) {
  LedgerOracle l;
  l.Issue("c1", "room:a", 2, "add", json::object());  // a gap in the room domain
  l.Issue("c1", "daemon", 1, "a", json::object());
  l.SetFate("c1", "daemon", 1, MidFate::kApplied);
  EXPECT_FALSE(l.FirstViolation([](const std::string& d) { return d == "daemon"; }).has_value());
  const auto v = l.FirstViolation([](const std::string& d) { return d != "daemon"; });
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->rule, LedgerOracle::Rule::kIssue);
  EXPECT_NE(v->status.message().find("(gap)"), std::string::npos) << v->status;
}

}  // namespace
}  // namespace rindle
