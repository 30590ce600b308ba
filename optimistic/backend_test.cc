// OptimisticBackend (single-domain core) against a hand-driven FakeSource: mids/seq, the keyed
// MutationTx, release + reconcile, confirmation as data, the gate's lifecycle, GC, health.
#include "optimistic/backend.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "optimistic/testing/backend_test_fixture.h"
#include "optimistic/testing/fake_source.h"

namespace rindle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using namespace backend_test;  // NOLINT: test fixture names

TEST_F(BackendTest, ConstructionRegistersTheLmidSystemQuery) {
  EXPECT_THAT(source_.log, ElementsAre("register 0 _rindle_client_mutations"));
}

TEST_F(BackendTest, InvokeDealsGaplessMidsAndAFailingMutatorConsumesNone) {
  auto m1 = backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}});
  ASSERT_TRUE(m1.ok()) << m1.status();
  EXPECT_EQ(*m1, 1);
  auto bad = backend_->Invoke("boom", json::object());
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("boom: client-side validation"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("mutator \"boom\""));
  auto m2 = backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}});
  ASSERT_TRUE(m2.ok());
  EXPECT_EQ(*m2, 2);
  EXPECT_THAT(PushedMids(), ElementsAre(1, 2));
  EXPECT_EQ(source_.pushed[0].client_id, kClient);
  EXPECT_EQ(source_.pushed[0].name, "createIssue");
  // The failed mutator's insert rolled back: head holds a and b only.
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A"), Issue("b", "B")}));
  Inspect in = backend_->inspect();
  EXPECT_EQ(in.next_mid, 3);
  ASSERT_EQ(in.pending.size(), 2u);
  EXPECT_EQ(in.pending[0].mid, 1);
  EXPECT_EQ(in.pending[1].key, "m:2");
  DomainsInspect d = backend_->InspectDomains();
  ASSERT_EQ(d.pending.size(), 2u);
  EXPECT_EQ(d.pending[0].seq, 1);
  EXPECT_EQ(d.pending[1].seq, 2);
  EXPECT_EQ(d.pending[1].domain, "daemon");
  EXPECT_THAT(in.pending[1].tables, ElementsAre("issue"));
  EXPECT_THAT(in.pending_tables, ElementsAre("issue"));
  auto unknown = backend_->Invoke("nope", json::object());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(backend_->inspect().next_mid, 3);
}

TEST_F(BackendTest, ViewsUpdateOptimisticallyAndTheTwoAxesMoveSeparately) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("counter")).ok());
  EXPECT_EQ(source_.registered.count(1), 1u);
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kUnknown);
  EXPECT_EQ(backend_->GetResultType(2), ResultType::kComplete);  // local-only view
  // Hydration happens at the first RELEASED snapshot, even an empty one.
  source_.Hello(1, {});
  source_.Snapshot(1, 1, "issue", {});
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kUnknown);
  source_.Progress(1);
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kComplete);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  EXPECT_THAT(ViewIds(1), ElementsAre("a"));
  EXPECT_TRUE(backend_->IsPending(1));
  EXPECT_FALSE(backend_->IsPending(2));
  EXPECT_EQ(backend_->GetResultType(1), ResultType::kComplete);
}

TEST_F(BackendTest, ExactConfirmationDeliversNoViewEvents) {
  Hydrate(1, "issue", "issues", {}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  batches_.clear();
  // The authority applied mid 1: its effect and the lmid row co-commit at cv 2.
  source_.Batch(1, 2, {AddOp("issue", Issue("a", "A"))});
  source_.Lmid(2, kClient, 1);
  source_.Progress(2);
  EXPECT_TRUE(batches_.empty());
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_THAT(ViewIds(1), ElementsAre("a"));
  EXPECT_EQ(Sync("issue"), (std::vector<RowValues>{Issue("a", "A")}));
  EXPECT_EQ(backend_->inspect().confirmed_lmid, 1);
  EXPECT_FALSE(backend_->IsPending(1));
}

TEST_F(BackendTest, ABurntMidSnapsThePredictionBack) {
  Hydrate(1, "issue", "issues", {}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  EXPECT_THAT(ViewIds(1), ElementsAre("a"));
  // The authority processed mid 1 as a no-op: only the lmid advances.
  batches_.clear();
  source_.Lmid(2, kClient, 1);
  source_.Progress(2);
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_TRUE(ViewIds(1).empty());
  ASSERT_EQ(batches_.size(), 1u);  // ONE coalesced delivery: the remove of a
  EXPECT_EQ(batches_[0].events.size(), 1u);
  EXPECT_TRUE(Head("issue").empty());
}

TEST_F(BackendTest, PendingReplaysInSeqOrderOnTheNewBase) {
  Hydrate(1, "counter", "counters", {Counter("c", 1)}, 1);
  std::vector<std::string> replayed;
  backend_->SetReplayObserver([&](const PendingMutation& p, bool ok) {
    replayed.push_back(p.name + (ok ? "" : "!"));
  });
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "c"}}).ok());
  ASSERT_TRUE(backend_->Invoke("double", {{"id", "c"}}).ok());
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("c", 4)}));  // (1+1)*2
  // Another writer sets the counter to 10; nothing of ours is confirmed yet.
  source_.Batch(1, 2, {EditOp("counter", Counter("c", 1), Counter("c", 10))});
  source_.Progress(2);
  EXPECT_THAT(replayed, ElementsAre("inc", "double"));
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("c", 22)}));  // (10+1)*2, not 10*2+1
  EXPECT_EQ(Sync("counter"), (std::vector<RowValues>{Counter("c", 10)}));
  // The authority applies inc (mid 1) at cv 3: the replay of double alone lands on 11.
  replayed.clear();
  source_.Batch(1, 3, {EditOp("counter", Counter("c", 10), Counter("c", 11))});
  source_.Lmid(3, kClient, 1);
  source_.Progress(3);
  EXPECT_THAT(replayed, ElementsAre("double"));
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("c", 22)}));
  ASSERT_EQ(backend_->pending().size(), 1u);
  EXPECT_EQ(backend_->pending()[0].mid, 2);
}

TEST_F(BackendTest, AReInvocationThatFailsOnTheNewBaseIsDropped) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  ASSERT_TRUE(backend_->Invoke("retitleExisting", {{"id", "a"}, {"title", "A2"}}).ok());
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A2")}));
  source_.Batch(1, 2, {RemoveOp("issue", Issue("a", "A"))});
  source_.Progress(2);
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_TRUE(Head("issue").empty());
  EXPECT_TRUE(backend_->health().ok());
}

TEST_F(BackendTest, AHelloDropsThatQidsBufferedFrames) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("counter"), RemoteQuery{"counters", json::object()}).ok());
  source_.Hello(1, {});
  source_.Hello(2, {});
  source_.Snapshot(1, 1, "issue", {Issue("old", "x")});
  source_.Snapshot(2, 1, "counter", {Counter("c", 1)});
  EXPECT_EQ(backend_->inspect().buffered_frames, 2u);
  source_.Hello(1, {});  // a new epoch for qid 1
  EXPECT_EQ(backend_->inspect().buffered_frames, 1u);
  source_.Snapshot(1, 2, "issue", {Issue("new", "y")});
  source_.Progress(2);
  EXPECT_THAT(ViewIds(1), ElementsAre("new"));
  EXPECT_EQ(Sync("counter"), (std::vector<RowValues>{Counter("c", 1)}));
}

TEST_F(BackendTest, AStaleBatchIsIgnored) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 5);
  source_.Batch(1, 4, {AddOp("issue", Issue("late", "L"))});
  source_.Batch(1, 5, {AddOp("issue", Issue("dup", "D"))});
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
  source_.Progress(6);
  EXPECT_THAT(ViewIds(1), ElementsAre("a"));
  EXPECT_EQ(backend_->inspect().applied_cv, 6);
}

TEST_F(BackendTest, ProgressReleasesOnlyFramesAtOrBelowCvMin) {
  Hydrate(1, "issue", "issues", {}, 1);
  source_.Batch(1, 3, {AddOp("issue", Issue("b", "B"))});
  source_.Batch(1, 2, {AddOp("issue", Issue("a", "A"))});
  source_.Progress(2);
  EXPECT_THAT(ViewIds(1), ElementsAre("a"));
  EXPECT_EQ(backend_->inspect().buffered_frames, 1u);
  source_.Progress(3);
  EXPECT_THAT(ViewIds(1), ElementsAre("a", "b"));
}

TEST_F(BackendTest, FramesForAQidWithNoLiveSubAreIgnored) {
  source_.Hello(9, {});
  source_.Snapshot(9, 1, "issue", {Issue("ghost", "g")});
  source_.Progress(1);
  EXPECT_EQ(backend_->sync().row_count(), 0u);
  EXPECT_TRUE(backend_->health().ok());
}

class SmallBufferBackendTest : public BackendTest {
 protected:
  SmallBufferBackendTest() : BackendTest(2) {}
};

TEST_F(SmallBufferBackendTest, OverflowReRegistersEverySubAndTheLmidQuery) {
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("counter"), RemoteQuery{"counters", json::object()}).ok());
  source_.log.clear();
  source_.Snapshot(1, 1, "issue", {});
  source_.Snapshot(2, 1, "counter", {});
  EXPECT_TRUE(source_.log.empty());
  source_.Batch(1, 2, {AddOp("issue", Issue("a", "A"))});  // third frame > cap 2
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
  // Subs in remote-key order ("counters" < "issues"), then the lmid query.
  EXPECT_THAT(source_.log, ElementsAre("unregister 2", "register 2 counters", "unregister 1",
                                       "register 1 issues", "unregister 0",
                                       "register 0 _rindle_client_mutations"));
}

TEST_F(BackendTest, RestartResetsTheGateAndKeepsPending) {
  Hydrate(1, "issue", "issues", {}, 7);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  source_.Batch(1, 8, {AddOp("issue", Issue("x", "X"))});
  source_.Restart();
  Inspect in = backend_->inspect();
  EXPECT_EQ(in.applied_cv, 0);
  EXPECT_EQ(in.buffered_frames, 0u);
  EXPECT_EQ(in.pending.size(), 1u);
  // The fresh, low-cv stream is released, not dropped as stale; pending re-applies on top.
  source_.Hello(1, {});
  source_.Snapshot(1, 1, "issue", {Issue("b", "B")});
  source_.Batch(1, 2, {AddOp("issue", Issue("c", "C"))});
  source_.Progress(2);
  EXPECT_THAT(ViewIds(1), ElementsAre("a", "b", "c"));
  EXPECT_EQ(backend_->pending().size(), 1u);
}

TEST_F(BackendTest, ResyncReSendsSentPendingEnvelopesInMidOrder) {
  for (const char* id : {"a", "b", "c"}) {
    ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", id}, {"title", id}}).ok());
  }
  source_.Lmid(1, kClient, 1);
  source_.Progress(1);
  source_.pushed.clear();
  source_.Resync();
  EXPECT_THAT(PushedMids(), ElementsAre(2, 3));
  EXPECT_EQ(source_.pushed[1].args, (json{{"id", "c"}, {"title", "c"}}));
}

TEST_F(BackendTest, UnregisterGcsRowsOnlyThatQueryReferencedAsAServerDelta) {
  Hydrate(1, "issue", "all-issues", {Issue("a", "A"), Issue("b", "B")}, 1);
  Hydrate(2, "issue", "issue-a", {Issue("a", "A")}, 2);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "c"}, {"title", "C"}}).ok());
  backend_->UnregisterQuery(1);
  EXPECT_THAT(source_.log, ::testing::Contains("unregister 1"));
  EXPECT_EQ(Sync("issue"), (std::vector<RowValues>{Issue("a", "A")}));
  // b left head AND sync; the pending prediction c survived the cycle (still head-only).
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A"), Issue("c", "C")}));
  EXPECT_THAT(ViewIds(2), ElementsAre("a", "c"));
  // A later release must not resurrect b (CRIT#2: the GC was not an optimistic remove).
  source_.Batch(2, 3, {EditOp("issue", Issue("a", "A"), Issue("a", "A2"))});
  source_.Progress(3);
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "A2"), Issue("c", "C")}));
  backend_->UnregisterQuery(2);
  EXPECT_TRUE(Sync("issue").empty());
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("c", "C")}));
  EXPECT_EQ(backend_->View(2), nullptr);
  EXPECT_TRUE(backend_->health().ok());
}

TEST_F(BackendTest, ASharedSubIsRefcountedAcrossLocalQueries) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  ASSERT_TRUE(backend_->RegisterQuery(2, TableAst("issue"), RemoteQuery{"issues", json::object()}).ok());
  EXPECT_EQ(backend_->GetResultType(2), ResultType::kComplete);  // late joiner to a hydrated sub
  EXPECT_THAT(ViewIds(2), ElementsAre("a"));
  source_.log.clear();
  backend_->UnregisterQuery(1);
  EXPECT_TRUE(source_.log.empty());  // still retained by qid 2
  EXPECT_EQ(Sync("issue").size(), 1u);
  // Frames keep flowing under the sub's wire qid (1).
  source_.Batch(1, 2, {AddOp("issue", Issue("b", "B"))});
  source_.Progress(2);
  EXPECT_THAT(ViewIds(2), ElementsAre("a", "b"));
  backend_->UnregisterQuery(2);
  EXPECT_THAT(source_.log, ElementsAre("unregister 1"));
  EXPECT_TRUE(Sync("issue").empty());
}

TEST_F(BackendTest, ConfirmedLmidAheadOfIssuedMidsWithPendingIsUnrecoverable) {
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}}).ok());
  source_.Lmid(1, kClient, 5);
  source_.Progress(1);
  EXPECT_FALSE(backend_->health().ok());
  EXPECT_THAT(std::string(backend_->health().message()), HasSubstr("confirmed lmid 5 is ahead of issued mids (1)"));
  EXPECT_FALSE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
}

TEST_F(BackendTest, ConfirmedLmidAheadWithNonePendingAdoptsNextMid) {
  source_.Hello(kLmidQid, {WireTable{kClientMutationsTable, {"client_id", "last_mutation_id"}}});
  source_.Snapshot(kLmidQid, 1, kClientMutationsTable,
                   {{Value::String(kClient), Value::Int(7)}});
  source_.Progress(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->inspect().confirmed_lmid, 7);
  EXPECT_EQ(backend_->inspect().next_mid, 8);
  auto mid = backend_->Invoke("createIssue", {{"id", "a"}, {"title", "A"}});
  ASSERT_TRUE(mid.ok());
  EXPECT_EQ(*mid, 8);
  // Watermarks never go backwards; another client's row confirms nothing of ours.
  source_.Lmid(2, kClient, 3);
  source_.Lmid(2, "someone-else", 8);
  source_.Progress(2);
  EXPECT_EQ(backend_->inspect().confirmed_lmid, 7);
  EXPECT_EQ(backend_->pending().size(), 1u);
}

TEST_F(BackendTest, KeyedWriterValidationNamesTheValidNames) {
  auto s = backend_->Invoke("typo", json::object()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("unknown column \"titel\""));
  EXPECT_THAT(std::string(s.message()), HasSubstr("columns: id, title, status"));
  s = backend_->Invoke("badTable", json::object()).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("unknown table \"issues\" — tables: counter, draft, issue"));
  s = backend_->Invoke("missingTitle", json::object()).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("missing non-nullable column \"title\""));
  EXPECT_EQ(backend_->inspect().next_mid, 1);
}

TEST_F(BackendTest, MutatorsMayNeitherReadNorWriteLocalOnlyTables) {
  auto s = backend_->Invoke("writeDraft", json::object()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("write local-only table \"draft\""));
  s = backend_->Invoke("readDraft", json::object()).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("read local-only table \"draft\""));
  EXPECT_TRUE(backend_->pending().empty());
}

TEST_F(BackendTest, InspectShowsTheCoalescedWriteSetAndTheReadLog) {
  Hydrate(1, "issue", "issues", {Issue("b", "B")}, 1);
  ASSERT_TRUE(backend_->Invoke("churn", json::object()).ok());
  Inspect in = backend_->inspect();
  ASSERT_EQ(in.pending.size(), 1u);
  const auto& w = in.pending[0].writes;
  ASSERT_EQ(w.size(), 2u);
  // b: edit then remove → remove carrying the ORIGINAL pre-image.
  EXPECT_EQ(w[0].pk, (RowValues{Value::String("b")}));
  EXPECT_FALSE(w[0].row.has_value());
  EXPECT_EQ(*w[0].old_row, Issue("b", "B"));
  // n: insert then update → a collapsed insert, no pre-image.
  EXPECT_EQ(*w[1].row, Issue("n", "2"));
  EXPECT_FALSE(w[1].old_row.has_value());
  // Reads: the keyed writers' probes (update n, update b, delete b) are recorded.
  const auto& reads = in.pending[0].reads.reads;
  ASSERT_EQ(reads.size(), 3u);
  EXPECT_EQ(reads[0].outcome, ReadOutcome::kPresent);
  EXPECT_EQ(in.ToJson()["pending"][0]["writes"].size(), 2u);
}

TEST_F(BackendTest, RawWritersCheckPreconditionsBeforeTheEngineAndQueriesAreLogged) {
  auto s = backend_->Invoke("raw", {{"again", true}}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(s.message()), HasSubstr("add of pk [\"r\"] which already exists"));
  s = backend_->Invoke("raw", {{"staleRemove", true}}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("stored row is"));
  s = backend_->Invoke("raw", {{"width", true}}).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("row has 1 cells, expected 3"));
  EXPECT_TRUE(Head("issue").empty());
  ASSERT_TRUE(backend_->Invoke("raw", json::object()).ok());
  Inspect in = backend_->inspect();
  ASSERT_EQ(in.pending.size(), 1u);
  EXPECT_EQ(in.pending[0].mid, 1);  // three failures consumed nothing
  ASSERT_EQ(in.pending[0].reads.queries.size(), 1u);
  EXPECT_EQ(in.pending[0].reads.queries[0].table, "issue");
  // add then edit of one pk: a collapsed insert of the final image.
  ASSERT_EQ(in.pending[0].writes.size(), 1u);
  EXPECT_FALSE(in.pending[0].writes[0].old_row.has_value());
  s = backend_->Invoke("queryDraft", json::object()).status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("read local-only table \"draft\""));
  EXPECT_TRUE(backend_->health().ok());
}

TEST_F(BackendTest, AJsonObjectInAJsonColumnIsStoredAsItsDump) {
  Schema schema = TestSchema();
  schema["issue"].columns[2].type = ColumnType::kJson;
  FakeSource src;
  OptimisticOptions o;
  o.client_id = kClient;
  o.schema = schema;
  o.mutators = TestMutators();
  OptimisticBackend b(std::move(o), &src);
  ASSERT_TRUE(b.Invoke("jsonCell", json::object()).ok());
  auto rows = *b.engine().TableRows("issue");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][2], Value::String("{\"k\":1}"));
}

TEST_F(BackendTest, AMalformedServerFrameMakesTheBackendUnhealthy) {
  Hydrate(1, "issue", "issues", {}, 1);
  source_.Batch(1, 2, {AddOp("issue", {Value::String("a")})});  // width 1, expected 3
  source_.Progress(2);
  EXPECT_FALSE(backend_->health().ok());
  EXPECT_THAT(std::string(backend_->health().message()), HasSubstr("server frame for qid 1"));
}

TEST_F(BackendTest, RegisterQueryErrors) {
  EXPECT_EQ(backend_->RegisterQuery(0, TableAst("issue")).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue")).ok());
  EXPECT_EQ(backend_->RegisterQuery(1, TableAst("issue")).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_FALSE(backend_->RegisterQuery(2, TableAst("nope")).ok());
  EXPECT_EQ(backend_->View(2), nullptr);
}

}  // namespace
}  // namespace rindle
