// The outcome handshake (seed 002 H-v §3.3 handleMutationOutcome / markOutcomeProcessed /
// resendPending): out-of-band handling, unissued and duplicate frames, the processed set's FIFO
// cap, rejected → onRejected only, the deopt flip (seq kept, fresh daemon mid, sent now), the
// deopt re-invoke of a retired mid pinned to the daemon, and the per-domain resync re-send.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "optimistic/outcomes.h"
#include "optimistic/testing/multi_domain_fixture.h"

namespace rindle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using namespace backend_test;  // NOLINT: test fixture names

TEST_F(MultiDomainTest, AnOutcomeForAMidNeverIssuedIsIgnored) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  room_.Outcome(Rejected(2, "future"));
  room_.Outcome(Rejected(0, "zero"));
  room_.Outcome(Deopt(-1, "createIssue"));
  backend_->OnOutcome("room:doc:other", Rejected(1, "foreign domain"));
  daemon_.Outcome(Rejected(1, "the daemon never dealt mid 1"));
  EXPECT_TRUE(rejected_.empty());
  EXPECT_EQ(backend_->outcome_counters().unissued, 5);
  EXPECT_FALSE(backend_->OutcomeProcessed(kRoom, 2));
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
}

TEST_F(MultiDomainTest, ARejectionSurfacesItsReasonOnceAndNothingElse) {
  ConnectRoom();
  Hydrate(room_, kRoom, 1, "issue", "issues", {}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  room_.Outcome(Rejected(1, "not allowed"));
  room_.Outcome(Rejected(1, "not allowed"));  // a re-answer
  ASSERT_EQ(rejected_.size(), 1u);
  EXPECT_EQ(rejected_[0].second, "not allowed");
  EXPECT_EQ(rejected_[0].first.mid, 1);
  EXPECT_EQ(rejected_[0].first.name, "createIssue");
  EXPECT_EQ(rejected_[0].first.args["id"], "r");
  EXPECT_EQ(backend_->outcome_counters().duplicates, 1);
  // Nothing else: still pending, still predicted, nothing pushed.
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("r", "R")}));
  EXPECT_EQ(room_.pushed.size(), 1u);
  EXPECT_TRUE(daemon_.pushed.empty());
  // The burnt mid's lmid retires it and the prediction snaps back.
  room_.Lmid(2, kClient, 1);
  room_.Progress(2);
  EXPECT_TRUE(backend_->InspectDomains().pending.empty());
  EXPECT_TRUE(Head("issue").empty());
  // A default reason when the frame names none.
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "s"}, {"title", "S"}})).ok());
  MutationOutcomeFrame bare = Rejected(2, "");
  bare.reason.reset();
  room_.Outcome(bare);
  ASSERT_EQ(rejected_.size(), 2u);
  EXPECT_EQ(rejected_[1].second, "mutation rejected");
}

TEST_F(MultiDomainTest, ADeoptOfAPendingEntryFlipsItInPlaceKeepingItsSeq) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "d"}, {"title", "D"}}).ok());  // daemon 1
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "e"}, {"title", "E"}}).ok());  // daemon 2
  std::vector<MutationEnvelope> sent;
  backend_->SetSendObserver([&](const MutationEnvelope& e) { sent.push_back(e); });
  const int before = policy_calls_;
  room_.Outcome(Deopt(1, "createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})));
  DomainsInspect d = backend_->InspectDomains();
  ASSERT_EQ(d.pending.size(), 3u);
  EXPECT_EQ(d.pending[1].domain, "daemon");
  EXPECT_EQ(d.pending[1].mid, 3);  // a fresh daemon mid
  EXPECT_EQ(d.pending[1].seq, 2);  // its ORIGINAL seq: its replay position
  EXPECT_EQ(d.next_mid.at(kRoom), 2);
  // Sent now, on the daemon channel, as a first-time send; the router never ran.
  EXPECT_THAT(Mids(daemon_), ElementsAre(1, 2, 3));
  EXPECT_EQ(daemon_.pushed.back().args["id"], "r");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(policy_calls_, before);
  EXPECT_EQ(backend_->outcome_counters().deopt_flips, 1);
  // The prediction stayed applied.
  EXPECT_EQ(Head("issue").size(), 3u);
  // A second deopt frame for the same mid is a duplicate: no second flip.
  room_.Outcome(Deopt(1, "createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})));
  EXPECT_EQ(daemon_.pushed.size(), 3u);
  // The room's lmid covering its burnt mid 1 no longer retires it; the daemon's lmid 3 does.
  room_.Lmid(1, kClient, 1);
  room_.Progress(1);
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 3u);
  daemon_.Lmid(1, kClient, 3);
  daemon_.Progress(1);
  EXPECT_TRUE(backend_->InspectDomains().pending.empty());
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
}

TEST_F(MultiDomainTest, OutcomesAreHandledOnArrivalNeverBehindTheCvBuffer) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  // The room burns mid 1 (its lmid is buffered, not yet released) and answers deopt.
  room_.Lmid(3, kClient, 1);
  EXPECT_EQ(backend_->InspectDomains().gates.at(kRoom).buffered_frames, 1u);
  room_.Outcome(Deopt(1, "createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})));
  EXPECT_EQ(backend_->InspectDomains().pending[0].domain, "daemon");  // flipped already
  EXPECT_THAT(Mids(daemon_), ElementsAre(1));
  // The release of the room's lmid must not retire the flipped entry as a success.
  room_.Progress(3);
  DomainsInspect d = backend_->InspectDomains();
  ASSERT_EQ(d.pending.size(), 1u);
  EXPECT_EQ(d.watermark.at(kRoom), 1);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("r", "R")}));
  EXPECT_EQ(backend_->outcome_counters().deopt_reinvokes, 0);
}

TEST_F(MultiDomainTest, ADeoptForARetiredMidReinvokesTheEchoPinnedToTheDaemon) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  room_.Lmid(1, kClient, 1);  // the burnt-mid confirm won the race: retired
  room_.Progress(1);
  ASSERT_TRUE(backend_->InspectDomains().pending.empty());
  ASSERT_TRUE(Head("issue").empty());
  const int before = policy_calls_;
  room_.Outcome(Deopt(1, "createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})));
  EXPECT_EQ(policy_calls_, before);  // pinned: the policy (which says room) never ran
  DomainsInspect d = backend_->InspectDomains();
  ASSERT_EQ(d.pending.size(), 1u);
  EXPECT_EQ(d.pending[0].domain, "daemon");
  EXPECT_EQ(d.pending[0].mid, 1);
  EXPECT_EQ(d.pending[0].seq, 2);  // a FRESH invocation
  EXPECT_THAT(Mids(daemon_), ElementsAre(1));
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("r", "R")}));
  EXPECT_EQ(backend_->outcome_counters().deopt_reinvokes, 1);
  // Its duplicate is ignored (processed), not re-invoked twice.
  room_.Outcome(Deopt(1, "createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})));
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
}

TEST_F(MultiDomainTest, AFailingDeoptReinvocationIsSurfacedAsARejection) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "s"}, {"title", "S"}})).ok());
  room_.Lmid(1, kClient, 2);
  room_.Progress(1);
  room_.Outcome(Deopt(1, "retitleExisting", {{"id", "missing"}, {"title", "x"}}));
  ASSERT_EQ(rejected_.size(), 1u);
  EXPECT_EQ(rejected_[0].first.mid, 1);
  EXPECT_EQ(rejected_[0].first.name, "retitleExisting");
  EXPECT_THAT(rejected_[0].second, HasSubstr("deopt re-invocation failed: "));
  EXPECT_THAT(rejected_[0].second, HasSubstr("no such issue"));
  EXPECT_EQ(backend_->outcome_counters().deopt_reinvoke_failures, 1);
  // An echo without a name has nothing to re-invoke.
  room_.Outcome(Deopt(2));
  EXPECT_EQ(backend_->outcome_counters().deopt_unnamed, 1);
  EXPECT_EQ(rejected_.size(), 1u);
  EXPECT_TRUE(daemon_.pushed.empty());
  EXPECT_TRUE(backend_->health().ok());
}

TEST_F(MultiDomainTest, TheProcessedSetIsFifoCappedPerDomain) {
  ConnectRoom();
  const int n = static_cast<int>(kMaxProcessedOutcomesPerDomain) + 1;
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(backend_->Invoke("inc", RoomArgs({{"id", "k"}})).ok());
  }
  for (int mid = 1; mid <= n; ++mid) room_.Outcome(Rejected(mid, "r"));
  ASSERT_EQ(rejected_.size(), static_cast<size_t>(n));
  // Mid 1 was evicted (the oldest past the cap): its duplicate is processed again; the newest
  // 512 are remembered.
  EXPECT_FALSE(backend_->OutcomeProcessed(kRoom, 1));
  EXPECT_TRUE(backend_->OutcomeProcessed(kRoom, 2));
  room_.Outcome(Rejected(n, "r"));
  EXPECT_EQ(rejected_.size(), static_cast<size_t>(n));
  room_.Outcome(Rejected(2, "r"));
  EXPECT_EQ(rejected_.size(), static_cast<size_t>(n));
  room_.Outcome(Rejected(1, "r"));
  EXPECT_EQ(rejected_.size(), static_cast<size_t>(n) + 1);
  // Per domain: the daemon's set is its own.
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "k"}}).ok());
  daemon_.Outcome(Rejected(1, "d"));
  EXPECT_EQ(rejected_.size(), static_cast<size_t>(n) + 2);
}

TEST_F(MultiDomainTest, AResyncReSendsItsOwnDomainsSentPendingInMidOrder) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "a"}, {"title", "A"}})).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "c"}, {"title", "C"}})).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "e"}, {"title", "E"}})).ok());
  // Room mid 2 deopts: it is the daemon's mid 2 now.
  room_.Outcome(Deopt(2, "createIssue"));
  room_.pushed.clear();
  daemon_.pushed.clear();
  room_.Resync();
  EXPECT_THAT(Mids(room_), ElementsAre(1, 3));  // original mids, mid order, its own channel
  EXPECT_EQ(room_.pushed[1].args["id"], "e");
  EXPECT_TRUE(daemon_.pushed.empty());
  daemon_.Resync();
  EXPECT_THAT(Mids(daemon_), ElementsAre(1, 2));
  EXPECT_EQ(daemon_.pushed[1].args["id"], "c");
  EXPECT_THAT(Mids(room_), ElementsAre(1, 3));
}

}  // namespace
}  // namespace rindle
