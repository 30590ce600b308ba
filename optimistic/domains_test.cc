// Domains (seed 002 domainPolicy / dealMid / channelFor, §7.1): the declared domain resolved before
// the prediction, gapless mids per domain, seq as the one replay order across domains, the
// envelope on its domain's channel (the daemon's when the domain has no gate), folds re-resolved
// at flush from the final args, and the §9.3 room fold cadence.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "optimistic/testing/multi_domain_fixture.h"

namespace rindle {
namespace {

using ::testing::ElementsAre;

using namespace backend_test;  // NOLINT: test fixture names

TEST_F(MultiDomainTest, MidsAreGaplessPerDomainAndSeqIsGlobal) {
  ConnectRoom();
  ASSERT_EQ(*backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}), 1);
  ASSERT_EQ(*backend_->Invoke("createIssue", RoomArgs({{"id", "b"}, {"title", "B"}})), 1);
  EXPECT_FALSE(backend_->Invoke("boom", RoomArgs(json::object())).ok());  // consumes no room mid
  ASSERT_EQ(*backend_->Invoke("createIssue", RoomArgs({{"id", "c"}, {"title", "C"}})), 2);
  ASSERT_EQ(*backend_->Invoke("createIssue", {{"id", "d"}, {"title", "D"}}), 2);
  EXPECT_THAT(Mids(daemon_), ElementsAre(1, 2));
  EXPECT_THAT(Mids(room_), ElementsAre(1, 2));
  EXPECT_EQ(room_.pushed[0].name, "createIssue");
  DomainsInspect d = backend_->InspectDomains();
  ASSERT_EQ(d.pending.size(), 4u);
  std::vector<std::string> domains;
  std::vector<int64_t> seqs;
  for (const auto& p : d.pending) {
    domains.push_back(p.domain);
    seqs.push_back(*p.seq);
  }
  EXPECT_THAT(domains, ElementsAre("daemon", kRoom, kRoom, "daemon"));
  EXPECT_THAT(seqs, ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(d.next_mid.at(kRoom), 3);
  EXPECT_EQ(d.next_mid.at("daemon"), 3);
  // The policy ran before each prediction (the failing one included).
  EXPECT_EQ(policy_calls_, 5);
}

TEST_F(MultiDomainTest, AGatelessDomainShipsOnTheDaemonChannel) {
  ASSERT_EQ(*backend_->Invoke("createIssue", RoomArgs({{"id", "b"}, {"title", "B"}})), 1);
  ASSERT_EQ(daemon_.pushed.size(), 1u);
  EXPECT_EQ(daemon_.pushed[0].mid, 1);
  EXPECT_EQ(backend_->InspectDomains().pending[0].domain, kRoom);
  EXPECT_EQ(backend_->InspectDomains().gates.count(kRoom), 0u);
  // The daemon's lmid never retires it: only its own domain's watermark can.
  daemon_.Lmid(1, kClient, 0);
  daemon_.Progress(1);
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
}

TEST_F(MultiDomainTest, ReplayIsInSeqOrderAcrossDomains) {
  ConnectRoom();
  Hydrate(daemon_, "daemon", 1, "counter", "counters", {Counter("k", 1)}, 1);
  // room mid 1 (seq 1): inc; daemon mid 1 (seq 2): double; room mid 2 (seq 3): inc.
  ASSERT_TRUE(backend_->Invoke("inc", RoomArgs({{"id", "k"}})).ok());
  ASSERT_TRUE(backend_->Invoke("double", {{"id", "k"}}).ok());
  ASSERT_TRUE(backend_->Invoke("inc", RoomArgs({{"id", "k"}})).ok());
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 5)}));
  std::vector<int64_t> replayed;
  backend_->SetReplayObserver(
      [&](const PendingMutation& p, bool) { replayed.push_back(*p.seq); });
  daemon_.Batch(1, 2, {EditOp("counter", Counter("k", 1), Counter("k", 10))});
  daemon_.Progress(2);
  EXPECT_THAT(replayed, ElementsAre(1, 2, 3));  // never mid order (1, 1, 2)
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 23)}));
  // The room confirms its mid 1 — the daemon entry keeps its place between the room's.
  replayed.clear();
  room_.Lmid(1, kClient, 1);
  room_.Progress(1);
  EXPECT_THAT(replayed, ElementsAre(2, 3));
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
}

FoldOptions RoomFold(const std::string& key, std::optional<int64_t> room_debounce = std::nullopt) {
  FoldOptions o;
  o.key = key;
  o.debounce_ms = 100;
  o.room_debounce_ms = room_debounce;
  return o;
}

TEST_F(MultiDomainTest, AFoldReResolvesItsDomainAtFlushFromTheFinalArgs) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "1"}}, RoomFold("a")).ok());
  EXPECT_EQ(backend_->InspectDomains().pending[1].domain, "daemon");
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", RoomArgs({{"id", "a"}, {"title", "2"}}),
                                     RoomFold("a")).ok());
  EXPECT_EQ(backend_->InspectDomains().pending[1].domain, kRoom);  // provisional, no mid yet
  EXPECT_FALSE(backend_->InspectDomains().pending[1].mid.has_value());
  clock_.Advance(100);
  EXPECT_THAT(Mids(room_), ElementsAre(1));
  EXPECT_THAT(Mids(daemon_), ElementsAre(1));
  DomainsInspect d = backend_->InspectDomains();
  EXPECT_EQ(d.pending[1].domain, kRoom);
  EXPECT_EQ(d.pending[1].mid, 1);
  EXPECT_EQ(d.pending[1].seq, 2);
  // And back: a window whose final args name the daemon flushes on the daemon.
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", RoomArgs({{"id", "a"}, {"title", "3"}}),
                                     RoomFold("a")).ok());
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "4"}}, RoomFold("a")).ok());
  backend_->FlushFolds();
  EXPECT_THAT(Mids(daemon_), ElementsAre(1, 2));
  EXPECT_THAT(Mids(room_), ElementsAre(1));
}

TEST_F(MultiDomainTest, ARoomFoldStreamsAtItsRoomCadence) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  // Into the room: debounce and maxWait both become 40.
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", RoomArgs({{"id", "a"}, {"title", "1"}}),
                                     RoomFold("a", 40)).ok());
  clock_.Advance(30);
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", RoomArgs({{"id", "a"}, {"title", "2"}}),
                                     RoomFold("a", 40)).ok());
  clock_.Advance(10);  // 40 since the window opened: the maxWait cap — but only at an invoke
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", RoomArgs({{"id", "a"}, {"title", "3"}}),
                                     RoomFold("a", 40)).ok());
  EXPECT_THAT(Mids(room_), ElementsAre(1));
  // Off the room the caller's 100 ms debounce governs.
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "x"}}, RoomFold("b", 40)).ok());
  clock_.Advance(40);
  EXPECT_THAT(Mids(daemon_), ElementsAre(1));
  clock_.Advance(60);
  EXPECT_THAT(Mids(daemon_), ElementsAre(1, 2));
}

}  // namespace
}  // namespace rindle

namespace rindle {
namespace {

using namespace backend_test;  // NOLINT: test fixture names

TEST_F(MultiDomainTest, TheTestReleaseSeamConfirmsAGatelessDomain) {
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "d"}, {"title", "D"}}).ok());
  EXPECT_EQ(backend_->InspectDomains().gates.count(kRoom), 0u);
  // The room's effect arrives as a coherent delta with its confirm; the daemon entry stays.
  ServerDeltaOp add;
  add.table = "issue";
  add.row = Issue("r", "R");
  backend_->TestRelease(kRoom, {add}, 1);
  DomainsInspect d = backend_->InspectDomains();
  EXPECT_EQ(d.watermark.at(kRoom), 1);
  ASSERT_EQ(d.pending.size(), 1u);
  EXPECT_EQ(d.pending[0].domain, "daemon");
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("d", "D"), Issue("r", "R")}));
  // Max-folded: a lower update never regresses it.
  backend_->TestRelease(kRoom, {}, 0);
  EXPECT_EQ(backend_->InspectDomains().watermark.at(kRoom), 1);
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
}

}  // namespace
}  // namespace rindle
