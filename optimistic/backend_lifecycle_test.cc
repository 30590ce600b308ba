// OptimisticBackend query lifecycle, local-only tables and gate faults (seed 002): retain /
// release refcounts, ResultType and the pending axis (transitions only), late joiners, the
// explicit empty catch-up, writeLocal + M1, CRIT#4 schema-skew rejection, superseded epochs,
// overflow re-registration, restart.
#include <string>
#include <utility>
#include <vector>

#include "optimistic/testing/backend_test_fixture.h"

namespace rindle {
namespace {

using namespace backend_test;  // NOLINT: test fixture names
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class LifecycleTest : public BackendTest {
 protected:
  void SetUp() override {
    backend_->SetResultTypeObserver([this](int64_t qid, ResultType rt) {
      events_.push_back("rt " + std::to_string(qid) + " " + std::string(ResultTypeName(rt)));
    });
    backend_->SetPendingObserver([this](int64_t qid, bool p) {
      events_.push_back("pending " + std::to_string(qid) + " " + (p ? "true" : "false"));
    });
  }
  std::vector<std::string> TakeEvents() { return std::exchange(events_, {}); }
  std::vector<std::string> events_;
};

TEST_F(LifecycleTest, ResultTypeAndPendingAreSeparateAxesFiringOnTransitionsOnly) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("draft")).ok());
  EXPECT_THAT(TakeEvents(), ElementsAre("rt 1 unknown", "pending 1 false", "rt 2 complete",
                                        "pending 2 false"));
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  EXPECT_THAT(TakeEvents(), ElementsAre("pending 1 true"));  // ResultType does not move
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kUnknown);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  EXPECT_TRUE(TakeEvents().empty());  // still pending: no repeat
  source_.Hello(1, {});
  source_.Snapshot(1, 1, "issue", {});
  source_.Progress(1);
  EXPECT_THAT(TakeEvents(), ElementsAre("rt 1 complete"));
  source_.Batch(1, 2, {AddOp("issue", Issue("a", "A")), AddOp("issue", Issue("b", "B"))});
  source_.Lmid(2, kClient, 2);
  source_.Progress(2);
  EXPECT_THAT(TakeEvents(), ElementsAre("pending 1 false"));
  EXPECT_FALSE(backend_->IsPending(1));
}

TEST_F(LifecycleTest, RetainsAreRefcountedPerNameAndArgsAndTheLastReleaseGcs) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  EXPECT_THAT(source_.log, ElementsAre("register 0 _rindle_client_mutations", "register 1 issues"));
  source_.Hello(1, {});
  source_.Snapshot(1, 1, "issue", {Issue("a", "A")});
  source_.Progress(1);
  EXPECT_EQ(backend_->GetResultType(2), ResultType::kComplete);
  backend_->UnregisterQuery(1);  // one retain left: nothing unregistered, nothing GC'd
  EXPECT_EQ(source_.log.size(), 2u);
  EXPECT_EQ(Sync("issue").size(), 1u);
  backend_->UnregisterQuery(2);
  EXPECT_EQ(source_.log.back(), "unregister 1");
  EXPECT_TRUE(Sync("issue").empty());  // GC'd as a server delta: sync AND head
  EXPECT_TRUE(Head("issue").empty());
}

TEST_F(LifecycleTest, SplitRetainLateJoinerAndExplicitEmptyCatchUp) {
  ASSERT_TRUE(backend_->RegisterQuery(5, TableAst("issue")).ok());  // local half: complete
  EXPECT_EQ(backend_->GetResultType(5), ResultType::kComplete);
  ASSERT_TRUE(backend_->RetainRemoteQuery(50, RemoteQuery{"issues", json::object()}, 5).ok());
  EXPECT_EQ(backend_->GetResultType(5), ResultType::kUnknown);  // awaits the sub's snapshot
  EXPECT_EQ(backend_->RetainRemoteQuery(50, RemoteQuery{"x", json::object()}).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(backend_->RetainRemoteQuery(51, RemoteQuery{"x", json::object()}, 99).code(),
            absl::StatusCode::kNotFound);
  source_.Hello(50, {});
  source_.Snapshot(50, 1, "issue", {});  // an EMPTY first snapshot still hydrates
  source_.Progress(1);
  EXPECT_EQ(backend_->GetResultType(5), ResultType::kComplete);
  ASSERT_EQ(catch_ups_.size(), 1u);  // nothing folded for it: an explicit empty catch-up
  EXPECT_EQ(catch_ups_[0].query_id, 5);
  EXPECT_TRUE(catch_ups_[0].events.empty());
  // A late joiner to the hydrated sub is complete at once (and notified).
  ASSERT_TRUE(backend_->RegisterQuery(6, TableAst("issue")).ok());
  TakeEvents();
  ASSERT_TRUE(backend_->RetainRemoteQuery(60, RemoteQuery{"issues", json::object()}, 6).ok());
  EXPECT_THAT(TakeEvents(), ElementsAre("rt 6 complete"));
  backend_->ReleaseRemoteQuery(50);
  backend_->ReleaseRemoteQuery(60);
  EXPECT_EQ(source_.log.back(), "unregister 50");
}

TEST_F(LifecycleTest, WriteLocalCommitsDirectlyAndSurvivesEveryRebase) {
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("draft")).ok());
  RowValues d1 = {Value::String("d1"), Value::String("hello")};
  ASSERT_TRUE(backend_->WriteLocal({AddOp("draft", d1)}).ok());
  EXPECT_EQ(Head("draft"), (std::vector<RowValues>{d1}));
  EXPECT_TRUE(backend_->inspect().pending.empty());  // no mid, no pending entry
  EXPECT_TRUE(source_.pushed.empty());
  // A synced table anywhere in the batch rejects the whole batch.
  absl::Status s = backend_->WriteLocal(
      {AddOp("draft", {Value::String("d2"), Value::Null()}), AddOp("issue", Issue("x", "X"))});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"issue\" is synced"));
  EXPECT_EQ(Head("draft").size(), 1u);
  // An engine precondition failure mid-batch leaves nothing either.
  s = backend_->WriteLocal({AddOp("draft", {Value::String("d3"), Value::Null()}), AddOp("draft", d1)});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(Head("draft").size(), 1u);
  // M1: mutators may neither read nor write it.
  EXPECT_FALSE(backend_->Invoke("writeDraft", json::object()).ok());
  EXPECT_FALSE(backend_->Invoke("readDraft", json::object()).ok());
  // A rebase (server batch + pending re-invocation) never touches local rows.
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  source_.Batch(1, 2, {AddOp("issue", Issue("c", "C"))});
  source_.Progress(2);
  EXPECT_EQ(Head("draft"), (std::vector<RowValues>{d1}));
  RowValues d1b = {Value::String("d1"), Value::String("edited")};
  ASSERT_TRUE(backend_->WriteLocal({EditOp("draft", d1, d1b)}).ok());
  ASSERT_TRUE(backend_->WriteLocal({RemoveOp("draft", d1b)}).ok());
  EXPECT_TRUE(Head("draft").empty());
}

TEST_F(LifecycleTest, ASchemaSkewedHelloIsRejectedAndTheSubResubscribes) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  // Reordered columns: neither a projection nor an expansion.
  source_.Hello(1, {WireTable{"issue", {"title", "id", "status"}, {}}});
  EXPECT_EQ(backend_->schema_rejections(), 1);
  EXPECT_TRUE(backend_->health().ok());
  EXPECT_THAT(source_.log, ElementsAre("register 0 _rindle_client_mutations", "register 1 issues",
                                       "unregister 1", "register 1 issues"));
  // The refused epoch's data never applies.
  source_.Snapshot(1, 1, "issue", {{Value::String("A"), Value::String("a"), Value::Null()}});
  source_.Progress(1);
  EXPECT_TRUE(Head("issue").empty());
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kUnknown);
  // Unknown tables, a missing pk and pk drift are skews too.
  source_.Hello(1, {WireTable{"issues", {"id"}, {}}});
  source_.Hello(1, {WireTable{"issue", {"title"}, {}}});
  source_.Hello(1, {WireTable{"issue", {"id", "title"}, {1}}});
  source_.Hello(1, {WireTable{"draft", {"id", "text"}, {}}});  // local-only: never served
  EXPECT_EQ(backend_->schema_rejections(), 5);
  // A narrower (projection) and a wider (expansion) hello are both fine.
  source_.Hello(1, {WireTable{"issue", {"id", "title"}, {0}}});
  source_.Hello(1, {WireTable{"issue", {"id", "title", "status", "extra"}, {0}}});
  EXPECT_EQ(backend_->schema_rejections(), 5);
  source_.Snapshot(1, 2, "issue",
                   {{Value::String("a"), Value::String("A"), Value::Null(), Value::Int(7)}});
  source_.Progress(2);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A")}));
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kComplete);
}

TEST_F(LifecycleTest, AProjectedRowCarriesAbsentNotNullCellsThroughMutators) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  // The server ships only id and status: title (NOT NULL) is ABSENT on the client.
  source_.Hello(1, {WireTable{"issue", {"id", "status"}, {0}}});
  source_.Snapshot(1, 1, "issue", {{Value::String("a"), Value::String("open")}});
  source_.Progress(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(Head("issue"),
            (std::vector<RowValues>{{Value::String("a"), Value::Null(), Value::String("open")}}));
  // A keyed update of another column carries the absence; writing an explicit null is refused.
  ASSERT_TRUE(backend_->Invoke("setStatus", {{"id", "a"}, {"status", "done"}}).ok());
  EXPECT_EQ(Head("issue"),
            (std::vector<RowValues>{{Value::String("a"), Value::Null(), Value::String("done")}}));
  EXPECT_FALSE(backend_->Invoke("nullTitle", {{"id", "a"}}).ok());
  ASSERT_TRUE(backend_->Invoke("setTitle", {{"id", "a"}, {"title", "T"}}).ok());
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{
                               {Value::String("a"), Value::String("T"), Value::String("done")}}));
  // The rebase re-applies both over the projected base.
  source_.Batch(1, 2, {AddOp("issue", {Value::String("b"), Value::Null()})});
  source_.Progress(2);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(Head("issue").size(), 2u);
  EXPECT_EQ(Head("issue")[0][1], Value::String("T"));
}

TEST_F(LifecycleTest, ASupersededEpochsBufferedFramesNeverApply) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  source_.Hello(1, {});
  source_.Snapshot(1, 1, "issue", {Issue("old", "O")});
  source_.Hello(1, {});  // re-subscribed before the release: the old snapshot is superseded
  EXPECT_EQ(backend_->superseded_frames_dropped(), 1);
  source_.Snapshot(1, 2, "issue", {Issue("new", "N")});
  source_.Progress(2);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("new", "N")}));
}

class OverflowTest : public BackendTest {
 protected:
  OverflowTest() : BackendTest(/*cap=*/3) {}
};

TEST_F(OverflowTest, OverflowReRegistersTheSubsAndTheLmidQueryKeepingPending) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  source_.log.clear();
  for (int cv = 2; cv <= 5; ++cv) source_.Batch(1, cv, {AddOp("issue", Issue("x" + std::to_string(cv), "X"))});
  EXPECT_EQ(backend_->overflows(), 1);
  EXPECT_THAT(source_.log, ElementsAre("unregister 1", "register 1 issues", "unregister 0",
                                       "register 0 _rindle_client_mutations"));
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
  EXPECT_EQ(backend_->inspect().pending.size(), 1u);
  // The fresh epoch re-hydrates through the footprint diff; the prediction re-applies. The resync
  // fence releases only once the lmid query's snapshot is here too (gate.h).
  source_.Hello(1, {});
  source_.Snapshot(1, 6, "issue", {Issue("a", "A"), Issue("x5", "X")});
  source_.Progress(6);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A"), Issue("b", "B")}));
  source_.Hello(kLmidQid, {WireTable{kClientMutationsTable, {"client_id", "last_mutation_id"}}});
  source_.Snapshot(kLmidQid, 6, kClientMutationsTable, {});
  source_.Progress(6);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A"), Issue("b", "B"), Issue("x5", "X")}));
}

TEST_F(LifecycleTest, RestartResetsTheGateButKeepsPendingAndAStaleBatchIsDropped) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 5);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  source_.Batch(1, 4, {AddOp("issue", Issue("stale", "S"))});  // cv ≤ appliedCv: a redelivery
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
  source_.Restart();
  EXPECT_EQ(backend_->inspect().applied_cv, 0);
  EXPECT_EQ(backend_->inspect().pending.size(), 1u);
  source_.Hello(1, {});
  source_.Snapshot(1, 1, "issue", {Issue("a", "A2")});  // a low cv after restart is released
  source_.Progress(1);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A2"), Issue("b", "B")}));
}

TEST_F(LifecycleTest, ConfirmedAheadIsFatalWithSentPendingButAdoptedOnAFreshSession) {
  source_.Lmid(1, kClient, 7);  // fresh session over a client id with history
  source_.Progress(1);
  EXPECT_TRUE(backend_->health().ok());
  EXPECT_EQ(backend_->inspect().next_mid, 8);
  auto m = backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, 8);
  source_.Lmid(2, kClient, 12);  // ahead of every issued mid while mid 8 is in flight
  source_.Progress(2);
  EXPECT_FALSE(backend_->health().ok());
  EXPECT_THAT(std::string(backend_->health().message()), HasSubstr("ahead of issued mids"));
}

}  // namespace
}  // namespace rindle
