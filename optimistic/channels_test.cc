// Channels (seed 002 connectSource / disconnectSource / requireGate / onFrame, §5.1): one gate and
// one NormalizedSync per channel, the channel-keyed retain, the wrong-channel wiring error, the
// per-channel lmid stream, restart / overflow isolation and what DisconnectSource keeps.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "optimistic/testing/multi_domain_fixture.h"

namespace rindle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using namespace backend_test;  // NOLINT: test fixture names

TEST_F(MultiDomainTest, ConnectSourceRegistersItsOwnLmidStreamAndOpensTheDomain) {
  ConnectRoom();
  EXPECT_THAT(room_.log, ElementsAre("register 0 _rindle_client_mutations"));
  EXPECT_THAT(daemon_.log, ElementsAre("register 0 _rindle_client_mutations"));
  DomainsInspect d = backend_->InspectDomains();
  EXPECT_EQ(d.gates.size(), 2u);
  EXPECT_EQ(d.gates.count(kRoom), 1u);
  EXPECT_EQ(d.next_mid.at(kRoom), 1);
  EXPECT_EQ(d.watermark.at(kRoom), 0);
  EXPECT_TRUE(backend_->IsConnected(kRoom));
}

TEST_F(MultiDomainTest, ConnectAndDisconnectErrors) {
  ConnectRoom();
  absl::Status again = backend_->ConnectSource(kRoom, &room_);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.message()), HasSubstr("source room:doc:1 is already connected"));
  EXPECT_EQ(backend_->ConnectSource("daemon", &room_).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(backend_->ConnectSource("", &room_).code(), absl::StatusCode::kInvalidArgument);
  absl::Status d = backend_->DisconnectSource("daemon");
  EXPECT_EQ(d.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(d.message()), HasSubstr("daemon source cannot be disconnected"));
  EXPECT_TRUE(backend_->DisconnectSource("room:doc:nope").ok());  // not connected: a no-op
  // A live sub on the channel blocks its disconnect.
  ASSERT_TRUE(backend_->RetainRemoteQuery(7, RemoteQuery{"issues", json::object()}, std::nullopt,
                                          kRoom).ok());
  EXPECT_EQ(backend_->DisconnectSource(kRoom).code(), absl::StatusCode::kFailedPrecondition);
  backend_->ReleaseRemoteQuery(7);
  EXPECT_TRUE(backend_->DisconnectSource(kRoom).ok());
  EXPECT_TRUE(backend_->health().ok());
}

TEST_F(MultiDomainTest, RetainOnAChannelThatIsNotConnectedFailsFirst) {
  absl::Status s = backend_->RetainRemoteQuery(3, RemoteQuery{"issues", json::object()},
                                               std::nullopt, kRoom);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("no source connected for channel \"room:doc:1\""));
  // Even qid 0 reports the channel first (seed 002 validates the channel before anything).
  EXPECT_EQ(backend_->RetainRemoteQuery(0, RemoteQuery{"issues", json::object()}, std::nullopt,
                                        kRoom).code(),
            absl::StatusCode::kNotFound);
  s = backend_->RegisterQuery(3, TableAst("issue"), RemoteQuery{"issues", json::object()}, kRoom);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(backend_->View(3), nullptr);
  EXPECT_TRUE(room_.registered.empty());
}

TEST_F(MultiDomainTest, ASubLivesOnExactlyOneChannel) {
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()},
                                      kRoom).ok());
  EXPECT_EQ(room_.registered.count(1), 1u);
  EXPECT_EQ(daemon_.registered.count(1), 0u);
  absl::Status s = backend_->RetainRemoteQuery(2, RemoteQuery{"issues", json::object()});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("query \"issues\" is already retained on channel \"room:doc:1\" — cannot "
                        "retain it on \"daemon\""));
  // A second retain on the SAME channel shares the sub.
  ASSERT_TRUE(backend_->RetainRemoteQuery(2, RemoteQuery{"issues", json::object()}, std::nullopt,
                                          kRoom).ok());
  EXPECT_EQ(room_.log.size(), 2u);  // lmid + one registration
  // A register whose retain fails leaves no view behind.
  EXPECT_FALSE(backend_->RegisterQuery(9, TableAst("issue"),
                                       RemoteQuery{"issues", json::object()}).ok());
  EXPECT_EQ(backend_->View(9), nullptr);
}

TEST_F(MultiDomainTest, AFrameOnTheWrongChannelIsAWiringError) {
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()},
                                      kRoom).ok());
  daemon_.Hello(1, {});
  ASSERT_FALSE(backend_->health().ok());
  EXPECT_EQ(backend_->health().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(backend_->health().message()),
              HasSubstr("qid 1 arrived on daemon but is owned by room:doc:1"));
}

TEST_F(MultiDomainTest, EachChannelReleasesOnItsOwnTimeline) {
  ConnectRoom();
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {Issue("a", "A")}, 5);
  Hydrate(room_, kRoom, 2, "counter", "counters", {Counter("k", 1)}, 2);
  EXPECT_EQ(backend_->InspectDomains().gates.at("daemon").applied_cv, 5);
  EXPECT_EQ(backend_->InspectDomains().gates.at(kRoom).applied_cv, 2);
  // A daemon batch buffered; the room's progress does not release it.
  daemon_.Batch(1, 6, {AddOp("issue", Issue("b", "B"))});
  room_.Batch(2, 3, {EditOp("counter", Counter("k", 1), Counter("k", 2))});
  room_.Progress(3);
  DomainsInspect d = backend_->InspectDomains();
  EXPECT_EQ(d.gates.at("daemon").applied_cv, 5);
  EXPECT_EQ(d.gates.at("daemon").buffered_frames, 1u);
  EXPECT_EQ(d.gates.at(kRoom).applied_cv, 3);
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A")}));
  // The daemon's cvs are not the room's: cv 6 on the daemon is fresh although the room is at 3.
  daemon_.Progress(6);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A"), Issue("b", "B")}));
  EXPECT_EQ(backend_->InspectDomains().gates.at(kRoom).applied_cv, 3);
  // Each channel has its own NormalizedSync.
  ASSERT_NE(backend_->channel(kRoom), nullptr);
  EXPECT_NE(&backend_->channel(kRoom)->sync(), &backend_->sync());
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
}

TEST_F(MultiDomainTest, AChannelsLmidFoldsIntoItsOwnDomainOnly) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "d"}, {"title", "D"}}).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r"}, {"title", "R"}})).ok());
  room_.Lmid(1, kClient, 1);
  room_.Progress(1);
  DomainsInspect d = backend_->InspectDomains();
  EXPECT_EQ(d.watermark.at(kRoom), 1);
  EXPECT_EQ(d.watermark.at("daemon"), 0);
  ASSERT_EQ(d.pending.size(), 1u);
  EXPECT_EQ(d.pending[0].domain, "daemon");
  // And the daemon's lmid 1 retires the daemon entry, never moving the room's watermark.
  daemon_.Lmid(1, kClient, 1);
  daemon_.Progress(1);
  d = backend_->InspectDomains();
  EXPECT_TRUE(d.pending.empty());
  EXPECT_EQ(d.watermark.at(kRoom), 1);
  EXPECT_EQ(d.watermark.at("daemon"), 1);
}

TEST_F(MultiDomainTest, ARestartOrOverflowOfOneChannelLeavesTheOtherAlone) {
  ConnectRoom();
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {}, 4);
  Hydrate(room_, kRoom, 2, "counter", "counters", {}, 2);
  daemon_.Batch(1, 5, {AddOp("issue", Issue("b", "B"))});
  room_.Restart();
  DomainsInspect d = backend_->InspectDomains();
  EXPECT_EQ(d.gates.at(kRoom).applied_cv, 0);
  EXPECT_EQ(d.gates.at("daemon").applied_cv, 4);
  EXPECT_EQ(d.gates.at("daemon").buffered_frames, 1u);
  // The room's resync re-sends nothing of the daemon's.
  room_.Resync();
  EXPECT_EQ(backend_->InspectDomains().gates.at("daemon").buffered_frames, 1u);
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
}

class SmallCapMultiDomainTest : public MultiDomainTest {
 protected:
  SmallCapMultiDomainTest() : MultiDomainTest(2) {}
};

TEST_F(SmallCapMultiDomainTest, AnOverflowReregistersOnlyItsOwnChannelsSubs) {
  ConnectRoom();
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {}, 1);
  Hydrate(room_, kRoom, 2, "counter", "counters", {}, 1);
  daemon_.log.clear();
  room_.log.clear();
  for (int cv = 2; cv <= 4; ++cv) {
    room_.Batch(2, cv, {AddOp("counter", Counter("k" + std::to_string(cv), cv))});
  }
  EXPECT_EQ(backend_->channel(kRoom)->overflows(), 1);
  EXPECT_EQ(backend_->overflows(), 0);  // the daemon's counter
  EXPECT_THAT(room_.log, ElementsAre("unregister 2", "register 2 counters", "unregister 0",
                                     "register 0 _rindle_client_mutations"));
  EXPECT_TRUE(daemon_.log.empty());
  EXPECT_FALSE(backend_->channel("daemon")->gate().fenced());
  EXPECT_TRUE(backend_->channel(kRoom)->gate().fenced());
}

TEST_F(MultiDomainTest, DisconnectKeepsTheDomainAndReconnectContinuesIt) {
  ConnectRoom();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r1"}, {"title", "1"}})).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r2"}, {"title", "2"}})).ok());
  room_.Lmid(1, kClient, 1);
  room_.Progress(1);
  room_.Outcome(Rejected(2, "nope"));
  ASSERT_EQ(rejected_.size(), 1u);
  ASSERT_TRUE(backend_->DisconnectSource(kRoom).ok());
  EXPECT_THAT(room_.log, ElementsAre("register 0 _rindle_client_mutations", "unregister 0"));
  DomainsInspect d = backend_->InspectDomains();
  EXPECT_EQ(d.gates.count(kRoom), 0u);
  EXPECT_EQ(d.next_mid.at(kRoom), 3);
  EXPECT_EQ(d.watermark.at(kRoom), 1);
  EXPECT_TRUE(backend_->OutcomeProcessed(kRoom, 2));
  // A late frame of the dead channel touches nothing (its handlers were detached).
  room_.Lmid(2, kClient, 2);
  room_.Progress(2);
  room_.Outcome(Rejected(2, "again"));
  EXPECT_EQ(backend_->InspectDomains().watermark.at(kRoom), 1);
  EXPECT_EQ(rejected_.size(), 1u);
  // Gate-less now: the room domain's next envelope ships on the daemon channel, mid 3.
  daemon_.pushed.clear();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "r3"}, {"title", "3"}})).ok());
  EXPECT_THAT(Mids(daemon_), ElementsAre(3));
  // Reconnect: a fresh gate, the surviving sequence; its lmid snapshot max-folds.
  FakeSource& again = room_again_;  // outlives the backend
  ASSERT_TRUE(backend_->ConnectSource(kRoom, &again).ok());
  EXPECT_EQ(backend_->InspectDomains().next_mid.at(kRoom), 4);
  again.Hello(0, {});
  again.Snapshot(0, 1, kClientMutationsTable, {{Value::String(kClient), Value::Int(3)}});
  again.Progress(1);
  d = backend_->InspectDomains();
  EXPECT_EQ(d.watermark.at(kRoom), 3);
  EXPECT_TRUE(d.pending.empty()) << d.ToJson().dump();
  EXPECT_TRUE(backend_->OutcomeProcessed(kRoom, 2));
}

}  // namespace
}  // namespace rindle
