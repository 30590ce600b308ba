// Swap-in and retarget (seed 002 302 §4.1/§6.1, I-iv retargetRemoteQuery): the swap at the release
// tail after the room sub's first snapshot released (one transition, no flicker), the pending axis
// gaining the twins, the late joiner, the context-join event once, the two-phase retarget (GC of
// the old channel only after the room's first snapshot released, the grace window, idempotence,
// validation before anything moves).
#include <string>
#include <vector>

#include "optimistic/testing/room_fixture.h"

namespace rindle {
namespace {

using namespace backend_test;  // NOLINT: test fixture names (and the shared matchers)

using SwapTest = RoomTest;

TEST_F(SwapTest, RetargetKeepsRowsUntilTheRoomSnapshotThenSwapsOnceAndGcsTheOldChannel) {
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {Issue("a", "A"), Issue("b", "B")}, 1);
  Record(1);
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  auto qid = backend_->RetargetRemoteQuery(Issues(), kRoom);
  ASSERT_TRUE(qid.ok()) << qid.status();
  EXPECT_EQ(*qid, 1);
  EXPECT_EQ(daemon_.log.back(), "unregister 1");
  EXPECT_EQ(room_.log.back(), "register 1 issues");
  // Phase 1 moved nothing visible: the old channel's rows stay (sync AND the view).
  Record(1);
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"b\"=\"B\""));
  EXPECT_EQ(Sync("issue").size(), 2u);
  EXPECT_FALSE(backend_->SwappedTo(1).has_value());
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kComplete);  // never back to loading
  room_.Hello(1, {});
  room_.Snapshot(1, 1, "issue", {Issue("a", "A"), Issue("b", "B")});
  room_.Progress(1);
  Record(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->SwappedTo(1), kRoom);
  EXPECT_EQ(swaps_[1], 1);  // ONE transition
  EXPECT_EQ(backend_->engine().QueryAst(1)->table, Twin("issue"));
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"b\"=\"B\""));
  // Phase 2 ran after the swap: the old channel's rows are GC'd, invisibly to the view.
  EXPECT_THAT(Sync("issue"), IsEmpty());
  EXPECT_THAT(Head("issue"), IsEmpty());
  ExpectNoFlicker(1);
  const RoomCounters& c = backend_->room_counters();
  EXPECT_EQ(c.retargets, 1);
  EXPECT_EQ(c.swap_ins, 1);
  EXPECT_EQ(c.retarget_gcs, 1);
}

TEST_F(SwapTest, ARealRemovalDuringTheWindowIsNotFlicker) {
  Upgrade({Issue("a", "A"), Issue("b", "B")}, {Issue("a", "A")});  // b removed upstream
  ExpectNoFlicker(1, {"\"b\"=\"B\""});
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\""));
}

TEST_F(SwapTest, RoomBatchesAfterTheSwapReachTheViewAndThePendingAxisGainsTheTwins) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  room_.Batch(1, 2, {AddOp("issue", Issue("c", "C"))});
  room_.Progress(2);
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"c\"=\"C\""));
  EXPECT_FALSE(backend_->IsPending(1));
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "d"}, {"title", "D"}})).ok());
  EXPECT_TRUE(backend_->IsPending(1));  // the room-staged write is on the view's twin
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"c\"=\"C\"", "\"d\"=\"D\""));
  room_.Batch(1, 3, {AddOp("issue", Issue("d", "D"))});
  room_.Lmid(3, kClient, 1);
  room_.Progress(3);
  EXPECT_FALSE(backend_->IsPending(1));
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\"", "\"c\"=\"C\"", "\"d\"=\"D\""));
}

TEST_F(SwapTest, ALateJoinerSwapsAtRetain) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("issue")).ok());  // plain: empty after the GC
  EXPECT_THAT(Rows(2), IsEmpty());
  ASSERT_TRUE(backend_->RetainRemoteQuery(20, Issues(), 2, kRoom).ok());
  EXPECT_EQ(backend_->SwappedTo(2), kRoom);
  EXPECT_THAT(Rows(2), ElementsAre("\"a\"=\"A\""));
  EXPECT_EQ(backend_->room_counters().late_join_swaps, 1);
  EXPECT_EQ(backend_->GetResultType(2), ResultType::kComplete);
}

// A late joiner registered WITH its retain (one call) hears kComplete once: the swap's axis
// refresh notifies the flip, and the forced late-join notify must not repeat it (seed 11
// --room-views on: "the observer fired complete without a transition").
TEST_F(SwapTest, ALateJoinerRegisteredWithItsRetainHearsCompleteOnce) {
  Upgrade({Issue("a", "A")}, {Issue("a", "A")});
  std::vector<std::pair<int64_t, ResultType>> calls;
  backend_->SetResultTypeObserver([&](int64_t qid, ResultType t) { calls.emplace_back(qid, t); });
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("issue"), Issues(), kRoom).ok());
  EXPECT_EQ(backend_->SwappedTo(2), kRoom);
  EXPECT_THAT(Rows(2), ElementsAre("\"a\"=\"A\""));
  std::vector<ResultType> seen;
  for (const auto& [qid, t] : calls) {
    if (qid == 2) seen.push_back(t);
  }
  EXPECT_THAT(seen, ElementsAre(ResultType::kComplete));
}

TEST_F(SwapTest, AViewReadingContextTablesFiresTheContextJoinEventOnce) {
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  Ast ast = TableAst("issue");
  Ast child = TableAst("counter");
  child.alias = "counters";
  ast.related = {CorrelatedSubquery{Correlation{{"id"}, {"id"}},
                                    std::make_shared<const Ast>(child)}};
  ASSERT_TRUE(backend_->RegisterQuery(1, ast, Issues(), kRoom).ok());
  room_.Hello(1, {});
  room_.Snapshot(1, 1, "issue", {Issue("a", "A")});
  room_.Progress(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  ASSERT_EQ(context_joins_.size(), 1u);
  EXPECT_EQ(context_joins_[0].source_key, kRoom);
  EXPECT_EQ(context_joins_[0].name, "issues");
  EXPECT_THAT(context_joins_[0].tables, ElementsAre("counter"));
  const Ast* engine_ast = backend_->engine().QueryAst(1);
  EXPECT_EQ(engine_ast->table, Twin("issue"));
  EXPECT_EQ(engine_ast->related.at(0).subquery->table, "counter");  // the join across kinds
  // A second swap trigger (a late joiner of the same view's sub) does not fire it again.
  ASSERT_TRUE(backend_->RetainRemoteQuery(10, Issues(), 1, kRoom).ok());
  EXPECT_EQ(context_joins_.size(), 1u);
  EXPECT_EQ(backend_->room_counters().context_joins, 1);
}

TEST_F(SwapTest, RetargetIsValidatedBeforeAnythingMovesAndIdempotentPerTarget) {
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {Issue("a", "A")}, 1);
  const size_t daemon_log = daemon_.log.size();
  auto bad = backend_->RetargetRemoteQuery(Issues(), kRoom);  // not connected
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  ConnectRoom();
  auto none = backend_->RetargetRemoteQuery(RemoteQuery{"nope", json::object()}, kRoom);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(none.status().message(), HasSubstr("nothing to retarget"));
  EXPECT_EQ(daemon_.log.size(), daemon_log);  // nothing moved
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), kRoom).ok());
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), kRoom).ok());  // idempotent
  EXPECT_EQ(backend_->room_counters().retargets, 1);
  int registers = 0;
  for (const auto& l : room_.log) registers += l == "register 1 issues";
  EXPECT_EQ(registers, 1);
}

TEST_F(SwapTest, OldChannelFramesInFlightAreIgnoredInTheGraceWindow) {
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {Issue("a", "A")}, 1);
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), kRoom).ok());
  daemon_.Batch(1, 2, {AddOp("issue", Issue("x", "X"))});  // in flight when the sub moved
  daemon_.Progress(2);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->room_counters().grace_frames, 1);
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\""));
}

// The old channel's link is independent of the room's: its frames sent before it processed the
// unsubscribe may arrive after the room's cutover (seed 6 --room-views on) — still stale, never
// a wiring error, and they feed nothing. A channel the sub never lived on stays a wiring error.
TEST_F(SwapTest, OldChannelFramesAfterTheCutoverAreStaleNotAWiringError) {
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {Issue("a", "A")}, 1);
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), kRoom).ok());
  room_.Hello(1, {});
  room_.Snapshot(1, 1, "issue", {Issue("a", "A")});
  room_.Progress(1);
  ASSERT_EQ(backend_->room_counters().retarget_gcs, 1);
  daemon_.Hello(1, {});
  daemon_.Snapshot(1, 2, "issue", {Issue("a", "A"), Issue("x", "X")});
  daemon_.Progress(2);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->room_counters().grace_frames, 2);
  EXPECT_THAT(Rows(1), ElementsAre("\"a\"=\"A\""));
  EXPECT_THAT(Sync("issue"), IsEmpty());
}

TEST_F(SwapTest, ASubReleasedMidRetargetGcsTheChannelItLeft) {
  Hydrate(daemon_, "daemon", 1, "issue", "issues", {Issue("a", "A")}, 1);
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  ASSERT_TRUE(backend_->RetargetRemoteQuery(Issues(), kRoom).ok());
  backend_->UnregisterQuery(1);
  EXPECT_THAT(Sync("issue"), IsEmpty());
  EXPECT_THAT(Head("issue"), IsEmpty());
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
}

}  // namespace
}  // namespace rindle
