// Downgrade (seed 002 I-v / 302 §4.2): DemoteRoomSource's validation and ghost, the fence
// (roomWatermarks[doc] ≥ final_flush_seq and no sent room-domain mutation), the swap-back +
// unregister + re-stage in one step, the stuck event (at most once, exactly the stuck mids), the
// ghost holding, a reconnect cancelling it, a second demote raising the fence, and the properties
// "after a swap-back every view equals the daemon's state plus pending" and "a downgrade loses no
// write" checked against the rows the harness itself delivered.
#include <string>
#include <vector>

#include "base/lifecycle_tables.h"
#include "optimistic/system_streams.h"
#include "optimistic/testing/room_fixture.h"

namespace rindle {
namespace {

using namespace backend_test;  // NOLINT: test fixture names (and the shared matchers)

constexpr char kDoc[] = "doc:1";

class DowngradeTest : public RoomTest {
 protected:
  // Upgraded (a swapped), one room-declared write sent (room mid 1, row w), then the sub moved
  // back to the daemon — the state every demote starts from.
  void UpgradeWriteAndRetargetBack() {
    Upgrade({Issue("a", "A")}, {Issue("a", "A")});
    auto mid = backend_->Invoke("createIssue", RoomArgs({{"id", "w"}, {"title", "W"}}));
    ASSERT_TRUE(mid.ok());
    ASSERT_EQ(*mid, 1);
    ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), "daemon").ok());
    Record(1);
  }
  // The daemon's re-snapshot of the sub after the room's final flush reached it: `rows`.
  void DaemonSnapshot(std::vector<RowValues> rows, int64_t cv) {
    daemon_.Hello(1, {});
    daemon_.Snapshot(1, cv, "issue", std::move(rows));
    daemon_.Progress(cv);
    Record(1);
  }
};

TEST_F(DowngradeTest, DemoteIsValidatedFirst) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  const absl::Status live = backend_->DemoteRoomSource(kRoom, kDoc, 3);
  EXPECT_EQ(live.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(live.message(), HasSubstr("query \"issues\" is still retained on it"));
  EXPECT_TRUE(backend_->IsConnected(kRoom));
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_EQ(backend_->DemoteRoomSource("daemon", kDoc, 3).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(DowngradeTest, TheGhostHoldsUntilTheFenceThenStuckOnceThenSwapsBackWithNoLostWrite) {
  UpgradeWriteAndRetargetBack();
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 5).ok());
  EXPECT_FALSE(backend_->IsConnected(kRoom));
  ASSERT_EQ(backend_->ghosts().count(kRoom), 1u);
  // The daemon re-hydrates the sub BEFORE it absorbed the flush (w missing): the ghost holds the
  // views on the frozen twins, so nothing rolls back.
  DaemonSnapshot({Issue("a", "A")}, 2);
  EXPECT_EQ(backend_->SwappedTo(1), kRoom);
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"w\"=\"W\""));
  backend_->TestRoomWatermark(kDoc, 4);  // below the fence
  EXPECT_TRUE(stuck_.empty());
  // The fence clears but the sent room mid 1 never resolved: stuck ONCE, naming exactly it.
  backend_->TestRoomWatermark(kDoc, 5);
  backend_->TestRoomWatermark(kDoc, 6);
  DaemonSnapshot({Issue("a", "A")}, 3);
  ASSERT_EQ(stuck_.size(), 1u);
  EXPECT_EQ(stuck_[0].source_key, kRoom);
  EXPECT_EQ(stuck_[0].doc, kDoc);
  EXPECT_THAT(stuck_[0].mids, ElementsAre(1));
  EXPECT_EQ(backend_->ghosts().count(kRoom), 1u);  // holds: no timeout retire
  EXPECT_EQ(backend_->SwappedTo(1), kRoom);
  // The daemon carries the room's confirm of mid 1 and the flushed row w: the entry retires, the
  // ghost drops — views back on the plain tables, twins gone.
  daemon_.Batch(1, 4, {AddOp("issue", Issue("w", "W"))});
  daemon_.Progress(4);
  backend_->TestRelease(kRoom, {}, 1);
  Record(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_FALSE(backend_->SwappedTo(1).has_value());
  EXPECT_THAT(backend_->RoomTablesFor(kRoom), IsEmpty());
  EXPECT_EQ(backend_->engine().GetTableSpec(Twin("issue")), nullptr);
  EXPECT_EQ(backend_->engine().QueryAst(1)->table, "issue");
  // After the swap-back the view equals the daemon's delivered rows (a, w) plus pending (none);
  // the room-confirmed write w is visible: nothing was lost, nothing flickered.
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"w\"=\"W\""));
  ExpectNoFlicker(1);
  EXPECT_EQ(stuck_.size(), 1u);
  const RoomCounters& c = backend_->room_counters();
  EXPECT_EQ(c.demotes, 1);
  EXPECT_EQ(c.ghost_drops, 1);
  EXPECT_EQ(c.stuck_events, 1);
  EXPECT_EQ(c.swap_backs, 1);
}

TEST_F(DowngradeTest, ANeverFlushedRoomDropsAtOnceWhenNoSubAwaitsItsSnapshot) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  backend_->UnregisterQuery(1);  // the room's only sub and view go
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 0).ok());
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_THAT(backend_->RoomTablesFor(kRoom), IsEmpty());
  EXPECT_TRUE(stuck_.empty());
}

TEST_F(DowngradeTest, TheSwapBackWaitsForTheDaemonToReDeliverTheRows) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), "daemon").ok());
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 0).ok());
  Record(1);
  // The phase-2 GC of the upgrade took the plain rows: swapping back now would flash empty.
  EXPECT_EQ(backend_->ghosts().count(kRoom), 1u);
  EXPECT_EQ(backend_->SwappedTo(1), kRoom);
  DaemonSnapshot({Issue("a", "A")}, 2);
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_FALSE(backend_->SwappedTo(1).has_value());
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\""));
  ExpectNoFlicker(1);
}

TEST_F(DowngradeTest, TheDropReStagesUnsentRoomWorkOntoTheDaemonInOneStep) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  FoldOptions fold;
  fold.key = "f";
  ASSERT_TRUE(
      backend_->InvokeFolded("createIssue", RoomArgs({{"id", "f"}, {"title", "F"}}), fold).ok());
  EXPECT_THAT(Head(Twin("issue")), ElementsAre(Issue("a", "A"), Issue("f", "F")));
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), "daemon").ok());
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 0).ok());  // the fold is unsent: no block
  Record(1);
  DaemonSnapshot({Issue("a", "A")}, 2);
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_EQ(Head("issue").size(), 2u);  // a (kept) and f re-staged onto the plain table
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"f\"=\"F\""));
  EXPECT_EQ(swaps_[1], 2);  // the swap-in, then ONE swap-back (no intermediate state)
  ExpectNoFlicker(1);
}

TEST_F(DowngradeTest, ADropOutsideAnyReleaseStillReStagesInOneStep) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  FoldOptions fold;
  fold.key = "f";
  ASSERT_TRUE(
      backend_->InvokeFolded("createIssue", RoomArgs({{"id", "f"}, {"title", "F"}}), fold).ok());
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), "daemon").ok());
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 5).ok());
  DaemonSnapshot({Issue("a", "A")}, 2);  // re-hydrated; the fence still holds
  EXPECT_EQ(backend_->ghosts().count(kRoom), 1u);
  backend_->TestRoomWatermark(kDoc, 5);  // the fence clears with no release delta at all
  Record(1);
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_THAT(Head("issue"), ElementsAre(Issue("a", "A"), Issue("f", "F")));
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"f\"=\"F\""));
  EXPECT_EQ(swaps_[1], 2);
  ExpectNoFlicker(1);
}

TEST_F(DowngradeTest, AReconnectCancelsTheGhostAndASecondDemoteRaisesTheFence) {
  UpgradeWriteAndRetargetBack();
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 5).ok());
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 3).ok());  // never an older fence
  EXPECT_EQ(backend_->ghosts().at(kRoom).final_flush_seq, 5);
  ASSERT_TRUE(backend_->ConnectSource(kRoom, &room_again_).ok());
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_EQ(backend_->room_counters().ghosts_cancelled, 1);
  backend_->TestRoomWatermark(kDoc, 9);
  backend_->TestRelease(kRoom, {}, 1);
  EXPECT_EQ(backend_->SwappedTo(1), kRoom);  // the live room keeps its twins and views
  EXPECT_FALSE(backend_->RoomTablesFor(kRoom).empty());
  EXPECT_TRUE(stuck_.empty());
}

// A re-upgrade after a cancelled ghost (302 §4.2 connectSource; the harness's stuck recovery,
// seed 3 --room-views on): the new channel adopts the twins AND the record of the rows the dead
// channel put in them, so the room's re-snapshot of the moved sub diffs against them — the seed
// adopts only the rename map, and its fresh sync's snapshot would add pks the twins still hold
// ("add of existing pk", a poisoned reconcile).
TEST_F(DowngradeTest, AReUpgradeAfterACancelledGhostReSnapshotsOntoTheSurvivingTwins) {
  UpgradeWriteAndRetargetBack();
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 5).ok());
  ASSERT_TRUE(backend_->ConnectSource(kRoom, &room_again_).ok());
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), kRoom).ok());
  Record(1);
  room_again_.Hello(1, {});
  room_again_.Snapshot(1, 2, "issue", {Issue("a", "A2"), Issue("b", "B")});
  room_again_.Progress(2);
  Record(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->SwappedTo(1), kRoom);
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A2\"", "\"b\"=\"B\"", "\"w\"=\"W\""));
  // A row the re-snapshot no longer names leaves the twins (the adopted record knew it).
  room_again_.Snapshot(1, 3, "issue", {Issue("b", "B")});
  room_again_.Progress(3);
  Record(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_THAT(Rows(1), ElementsAre("\"b\"=\"B\"", "\"w\"=\"W\""));
}

// End to end through the system streams (system_streams.h): the fence value and the room's
// confirm of the sent mid both arrive daemon-carried, in ONE daemon release with the sub's
// re-snapshot — the ghost drops inside that release, nothing flickers, nothing is stuck.
TEST_F(DowngradeTest, TheFenceAndTheRoomConfirmRideTheDaemonSystemStreams) {
  auto retain = [&](int64_t qid, std::string_view table) {
    ASSERT_TRUE(RetainLifecycleStream(*backend_, daemon_, qid, table, kDoc, kClient).ok());
  };
  UpgradeWriteAndRetargetBack();  // room mid 1 (w) sent; the sub back on the daemon
  retain(12, kRoomClientMutationsTable);
  retain(13, kRoomWatermarkTable);
  ASSERT_TRUE(backend_->DemoteRoomSource(kRoom, kDoc, 3).ok());
  daemon_.Hello(1, {});
  daemon_.Snapshot(1, 2, "issue", {Issue("a", "A"), Issue("w", "W")});
  daemon_.Batch(12, 2, {RoomLedgerAdd(kDoc, kClient, 1)});
  daemon_.Batch(13, 2, {RoomWatermarkAdd(kDoc, 3)});
  EXPECT_EQ(backend_->ghosts().count(kRoom), 1u);
  daemon_.Progress(2);
  Record(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->room_watermarks().at(kDoc), 3);
  EXPECT_TRUE(backend_->ghosts().empty());
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_FALSE(backend_->SwappedTo(1).has_value());
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"w\"=\"W\""));
  EXPECT_TRUE(stuck_.empty());
  ExpectNoFlicker(1);
}

}  // namespace
}  // namespace rindle
