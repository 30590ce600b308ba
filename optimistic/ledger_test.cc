// ledger_test.cc — Ledger's resend set (seed 002 §7.5 rule 3): a sent entry erased as dead by a
// failed re-invocation is still re-sent until its mid is confirmed, because the authority
// processes mids strictly in order (found by the sim with the transport's retry off, seed 34:
// a dead, lost mid held every later mid of the client forever).
#include "optimistic/ledger.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

PendingMutation Sent(Ledger& ledger, const std::string& name) {
  auto [mid, seq] = ledger.DealMid(std::string(kDaemonSource));
  PendingMutation p;
  p.mid = mid;
  p.seq = seq;
  p.name = name;
  p.args = {{"n", mid}};
  return ledger.Append(std::move(p));
}

std::vector<int64_t> ResendMids(const Ledger& ledger) {
  std::vector<int64_t> mids;
  for (const PendingMutation* p : ledger.SentInMidOrder(std::string(kDaemonSource))) {
    mids.push_back(*p->mid);
  }
  return mids;
}

TEST(LedgerTest, DeadSentEntryIsResentUntilConfirmed) {
  Ledger ledger;
  ledger.AddDomain(kDaemonSource);
  Sent(ledger, "a");
  Sent(ledger, "b");
  Sent(ledger, "c");
  ledger.Erase({1});  // mid 2's re-invocation failed: dead, but its push may have been lost
  EXPECT_EQ(ledger.pending().size(), 2u);
  EXPECT_EQ(ResendMids(ledger), (std::vector<int64_t>{1, 2, 3}));
  const auto resent = ledger.SentInMidOrder(std::string(kDaemonSource));
  EXPECT_EQ(resent[1]->name, "b");
  EXPECT_EQ(resent[1]->args, (nlohmann::json{{"n", 2}}));
  ASSERT_TRUE(ledger.FoldConfirm(std::string(kDaemonSource), 2).ok());
  ledger.DropConfirmed();
  EXPECT_EQ(ResendMids(ledger), (std::vector<int64_t>{3}));
}

TEST(LedgerTest, ErasedUnflushedFoldIsNotResent) {
  Ledger ledger;
  ledger.AddDomain(kDaemonSource);
  PendingMutation fold;
  fold.name = "f";
  ledger.Append(std::move(fold));
  ledger.Erase({0});
  EXPECT_TRUE(ResendMids(ledger).empty());
}

// Campaign seed 1864 (before: client-health "authority ledger regressed: released lmid 3 on
// domain room:issue:i001 is below the confirmed watermark 4"): the daemon-carried room-ledger row
// (lmid 4, the room's flush) overtook the room channel's own lmid stream, which then released 3.
// Coherent within a channel, eventual across: that is lag, not a forgetting room. A regression
// of the room's OWN stream is still refused.
TEST(LedgerTest, ARoomStreamBehindTheDaemonCarriedRowIsLagNotARegression) {
  Ledger ledger;
  const std::string room = "room:issue:i001";
  ledger.AddDomain(room);
  for (int i = 0; i < 4; ++i) {
    auto [mid, seq] = ledger.DealMid(room);
    PendingMutation p;
    p.domain = room;
    p.mid = mid;
    p.seq = seq;
    p.name = "addComment";
    ledger.Append(std::move(p));
  }
  ASSERT_TRUE(ledger.FoldStreamConfirm(room, 2).ok());  // the room's own stream
  ASSERT_TRUE(ledger.FoldConfirm(room, 4).ok());        // the daemon-carried row, ahead
  const absl::Status lag = ledger.FoldStreamConfirm(room, 3);
  EXPECT_TRUE(lag.ok()) << lag;
  EXPECT_EQ(ledger.stream_lag_confirms(), 1);
  EXPECT_EQ(ledger.watermark().at(room), 4);
  EXPECT_TRUE(ledger.FoldStreamConfirm(room, 4).ok());
  const absl::Status back = ledger.FoldStreamConfirm(room, 3);  // below what THIS stream released
  EXPECT_TRUE(IsLedgerRegression(back)) << back;
  EXPECT_EQ(ledger.watermark().at(room), 4);
}

// An authority restored from an older ledger: a released lmid below the watermark is refused
// (DataLoss, recognized by IsLedgerRegression), never max-folded away; the watermark stays.
TEST(LedgerTest, RegressingLmidIsRefused) {
  Ledger ledger;
  ledger.AddDomain(kDaemonSource);
  const std::string d(kDaemonSource);
  Sent(ledger, "a");
  Sent(ledger, "b");
  ASSERT_TRUE(ledger.FoldConfirm(d, 2).ok());
  ledger.DropConfirmed();
  EXPECT_TRUE(ledger.FoldConfirm(d, 2).ok());  // the same lmid again (a fresh session)
  const absl::Status s = ledger.FoldConfirm(d, 1);
  EXPECT_TRUE(IsLedgerRegression(s)) << s;
  EXPECT_NE(s.message().find("released lmid 1"), std::string::npos) << s;
  EXPECT_TRUE(IsLedgerRegression(ledger.FoldConfirm(d, 0)));  // a snapshot without our row
  EXPECT_EQ(ledger.watermark().at(d), 2);
  EXPECT_FALSE(IsLedgerRegression(absl::InternalError(kLedgerRegressed)));
}

}  // namespace
}  // namespace rindle
