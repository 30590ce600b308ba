// The lifecycle system streams (seed 002 Slice I-iii retainSystemQuery / releaseSystemQuery /
// foldSystemFrames / otherScopeSessions / onScopeSessions): each fold category, the fixed order
// (outcome rows before room-ledger rows before the confirm-drop), filtering by client / doc /
// scope, garbled rows and removes (never a verdict), duplicates through the processed set,
// snapshot-replace of sessions, the doorbell, expiry on the fold clock, the CRIT#4 hello, release
// — and a resync re-sending its own domain only (§7.5 rule 3).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "base/lifecycle_tables.h"
#include "optimistic/system_streams.h"
#include "optimistic/testing/multi_domain_fixture.h"

namespace rindle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using namespace backend_test;  // NOLINT: test fixture names

const std::string kDoc = "doc:1";  // kRoom == RoomSourceKey(kDoc)

class SystemStreamsTest : public MultiDomainTest {
 protected:
  // Retains `table` for `doc_or_scope` on the daemon and answers its hello.
  void Retain(int64_t qid, std::string_view table, const std::string& doc_or_scope = kDoc) {
    SystemStreamSpec spec{std::string(table), "", ""};
    (table == kScopeSessionsTable ? spec.scope : spec.doc) = doc_or_scope;
    ASSERT_TRUE(backend_->RetainSystemQuery(qid, Remote(table, doc_or_scope), spec).ok());
    daemon_.Hello(qid, {Wire(table)});
  }
  static RemoteQuery Remote(std::string_view table, const std::string& doc_or_scope) {
    const bool sessions = table == kScopeSessionsTable;
    return RemoteQuery{std::string(kLifecycleQueryName),
                       {{"table", std::string(table)},
                        {sessions ? "scope" : "doc", doc_or_scope},
                        {"client_id", kClient}}};
  }
  static WireTable Wire(std::string_view table) {
    for (const LifecycleTableSpec& t : LifecycleTables()) {
      if (t.name != table) continue;
      WireTable w{std::string(t.name), {}, t.primary_key};
      for (auto c : t.columns) w.columns.emplace_back(c);
      return w;
    }
    return {};
  }
  static RowOp Add(std::string_view table, RowValues row) {
    return RowOp{RowOp::Kind::kAdd, std::string(table), std::move(row), {}};
  }
  static RowValues OutcomeRow(int64_t mid, std::string_view kind, const std::string& args = "",
                              const std::string& client = kClient, const std::string& doc = kDoc) {
    return {Value::String(doc),
            Value::String(client),
            Value::Int(mid),
            Value::String(std::string(kind)),
            Value::String("because"),
            Value::String("createIssue"),
            args.empty() ? Value::Null() : Value::String(args)};
  }
  static RowValues LedgerRow(int64_t lmid, const std::string& client = kClient,
                             const std::string& doc = kDoc) {
    return {Value::String(doc), Value::String(client), Value::Int(lmid)};
  }
  static RowValues WatermarkRow(const std::string& doc, int64_t seq) {
    return {Value::String(doc), Value::Int(seq)};
  }
  static RowValues SessionRow(const std::string& scope, const std::string& client, int64_t exp) {
    return {Value::String(scope), Value::String(client), Value::Int(exp)};
  }
  // A gate-less room-domain invoke (it ships on the daemon channel).
  void InvokeRoom(const std::string& id) {
    ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", id}, {"title", id}})).ok());
  }
  // Outcomes (qid 11) and the room ledger (qid 12) for kDoc.
  void RetainFence() {
    Retain(11, kRoomMutationOutcomesTable);
    Retain(12, kRoomClientMutationsTable);
  }
  std::string Args(const std::string& id) const {
    return RoomArgs({{"id", id}, {"title", id}}).dump();
  }
};

TEST_F(SystemStreamsTest, ADeoptRowFlipsThePendingRoomEntryBeforeItsLedgerRowCanRetireIt) {
  RetainFence();
  InvokeRoom("a");  // room mid 1, seq 1, sent on the daemon channel
  // One daemon release co-commits the deopt row and the covering room ledger row.
  daemon_.Batch(11, 1, {Add(kRoomMutationOutcomesTable, OutcomeRow(1, kOutcomeDeopt, Args("a")))});
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(1))});
  daemon_.Progress(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  const DomainsInspect d = backend_->InspectDomains();
  ASSERT_EQ(d.pending.size(), 1u);  // not retired as a success
  EXPECT_EQ(d.pending[0].domain, "daemon");
  EXPECT_EQ(d.pending[0].mid, 1);
  EXPECT_EQ(d.pending[0].seq, 1);  // flipped in place: its original seq
  EXPECT_EQ(d.watermark.at(kRoom), 1);
  EXPECT_EQ(backend_->outcome_counters().deopt_flips, 1);
  EXPECT_EQ(backend_->outcome_counters().deopt_reinvokes, 0);
  EXPECT_THAT(Mids(daemon_), ElementsAre(1, 1));  // room mid 1, then the flip's daemon mid 1
  EXPECT_EQ(Head("issue"), (std::vector<RowValues>{Issue("a", "a")}));  // still predicted
  EXPECT_EQ(backend_->system_folds().outcome_rows, 1);
  EXPECT_EQ(backend_->system_folds().ledger_rows, 1);
}

TEST_F(SystemStreamsTest, APreviousSessionsDeoptRowIsNotReInvokedByAFreshSession) {
  // A fresh session over a client id with history: the room domain was never opened here.
  RetainFence();
  daemon_.Batch(11, 1, {Add(kRoomMutationOutcomesTable, OutcomeRow(3, kOutcomeDeopt, Args("z")))});
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(5))});
  daemon_.Progress(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  // The row was judged BEFORE the ledger adopted nextMid 6: mid 3 was never issued here.
  EXPECT_EQ(backend_->outcome_counters().unissued, 1);
  EXPECT_EQ(backend_->outcome_counters().deopt_reinvokes, 0);
  EXPECT_TRUE(backend_->InspectDomains().pending.empty());
  EXPECT_TRUE(daemon_.pushed.empty());
  EXPECT_EQ(backend_->InspectDomains().next_mid.at(kRoom), 6);
  EXPECT_EQ(backend_->InspectDomains().watermark.at(kRoom), 5);
  // The next room mutation continues the server's sequence.
  InvokeRoom("n");
  EXPECT_EQ(daemon_.pushed.back().mid, 6);
}

TEST_F(SystemStreamsTest, ARejectedRowSurfacesOnceAndItsCoveringLedgerRowBurnsTheMid) {
  RetainFence();
  InvokeRoom("a");
  InvokeRoom("b");
  daemon_.Batch(11, 1, {Add(kRoomMutationOutcomesTable, OutcomeRow(1, kOutcomeRejected))});
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(2))});
  daemon_.Progress(1);
  ASSERT_EQ(rejected_.size(), 1u);
  EXPECT_EQ(rejected_[0].first.mid, 1);
  EXPECT_EQ(rejected_[0].first.args["id"], "a");  // the pending entry's envelope
  EXPECT_EQ(rejected_[0].second, "because");
  // Both retired: 1 burnt (its prediction snaps back), 2 applied by absence (no server rows here).
  EXPECT_TRUE(backend_->InspectDomains().pending.empty());
  EXPECT_TRUE(Head("issue").empty());
  // The row re-delivered (an edit of the same key) and the socket frame: duplicates.
  daemon_.Batch(11, 2,
                {RowOp{RowOp::Kind::kEdit, std::string(kRoomMutationOutcomesTable),
                       OutcomeRow(1, kOutcomeRejected), OutcomeRow(1, kOutcomeRejected)}});
  daemon_.Progress(2);
  backend_->OnOutcome(kRoom, Rejected(1, "again"));
  EXPECT_EQ(rejected_.size(), 1u);
  EXPECT_EQ(backend_->outcome_counters().duplicates, 2);
}

TEST_F(SystemStreamsTest, ASocketFrameAlreadyResolvedTheRowsVerdict) {
  ConnectRoom();
  RetainFence();
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "a"}, {"title", "a"}})).ok());
  room_.Outcome(Deopt(1, "createIssue"));  // flipped out of band
  ASSERT_EQ(backend_->outcome_counters().deopt_flips, 1);
  daemon_.Batch(11, 1, {Add(kRoomMutationOutcomesTable, OutcomeRow(1, kOutcomeDeopt, Args("a")))});
  daemon_.Progress(1);
  EXPECT_EQ(backend_->outcome_counters().duplicates, 1);
  EXPECT_EQ(backend_->outcome_counters().deopt_reinvokes, 0);
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
}

TEST_F(SystemStreamsTest, AnAbsentOutcomeRowUnderACoveringLedgerRowMeansApplied) {
  RetainFence();
  InvokeRoom("a");
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(1))});
  daemon_.Progress(1);
  EXPECT_TRUE(backend_->InspectDomains().pending.empty());
  EXPECT_TRUE(rejected_.empty());
  EXPECT_EQ(backend_->InspectDomains().watermark.at(kRoom), 1);
}

TEST_F(SystemStreamsTest, RowsOfAnotherClientOrDocAreNeverVerdictsNorConfirms) {
  RetainFence();
  InvokeRoom("a");
  daemon_.Batch(11, 1,
                {Add(kRoomMutationOutcomesTable, OutcomeRow(1, kOutcomeRejected, "", "c2")),
                 Add(kRoomMutationOutcomesTable,
                     OutcomeRow(1, kOutcomeDeopt, Args("a"), kClient, "doc:2"))});
  daemon_.Batch(12, 1,
                {Add(kRoomClientMutationsTable, LedgerRow(1, "c2")),
                 Add(kRoomClientMutationsTable, LedgerRow(1, kClient, "doc:2"))});
  daemon_.Progress(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_TRUE(rejected_.empty());
  EXPECT_EQ(backend_->outcome_counters().frames, 0);
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
  EXPECT_EQ(backend_->InspectDomains().watermark.at(kRoom), 0);
  EXPECT_EQ(backend_->InspectDomains().watermark.count("room:doc:2"), 0u);
  EXPECT_EQ(backend_->system_folds().filtered, 4);
}

TEST_F(SystemStreamsTest, GarbledRowsAndRemovesFailClosed) {
  RetainFence();
  Retain(13, kRoomWatermarkTable);
  InvokeRoom("a");
  RowValues bad_kind = OutcomeRow(1, "maybe");
  RowValues bad_mid = OutcomeRow(1, kOutcomeDeopt);
  bad_mid[2] = Value::String("1");
  RowValues bad_doc = OutcomeRow(1, kOutcomeRejected);
  bad_doc[0] = Value::Int(1);
  RowValues bad_lmid = LedgerRow(1);
  bad_lmid[2] = Value::String("1");
  daemon_.Batch(11, 1,
                {Add(kRoomMutationOutcomesTable, bad_kind), Add(kRoomMutationOutcomesTable, bad_mid),
                 Add(kRoomMutationOutcomesTable, bad_doc),
                 RemoveOp(std::string(kRoomMutationOutcomesTable), OutcomeRow(1, kOutcomeRejected))});
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, bad_lmid)});
  daemon_.Batch(13, 1, {Add(kRoomWatermarkTable, WatermarkRow(kDoc, 4))});
  daemon_.Progress(1);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_TRUE(rejected_.empty());
  EXPECT_EQ(backend_->outcome_counters().frames, 0);
  EXPECT_EQ(backend_->system_folds().garbled, 4);
  EXPECT_EQ(backend_->system_folds().removes, 1);
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
  // A ledger remove confirms nothing; a watermark remove never regresses the fence.
  daemon_.Batch(12, 2, {RemoveOp(std::string(kRoomClientMutationsTable), LedgerRow(1))});
  daemon_.Batch(13, 2, {RemoveOp(std::string(kRoomWatermarkTable), WatermarkRow(kDoc, 4))});
  daemon_.Progress(2);
  EXPECT_EQ(backend_->InspectDomains().pending.size(), 1u);
  EXPECT_EQ(backend_->room_watermarks().at(kDoc), 4);
  // Then the covering ledger row: no verdict was invented, so it is applied.
  daemon_.Batch(12, 3, {Add(kRoomClientMutationsTable, LedgerRow(1))});
  daemon_.Progress(3);
  EXPECT_TRUE(backend_->InspectDomains().pending.empty());
  EXPECT_TRUE(rejected_.empty());
}

TEST_F(SystemStreamsTest, UnparseableArgsMakeARetiredMidsDeoptNotSelfContained) {
  RetainFence();
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(0))});
  daemon_.Progress(1);
  InvokeRoom("a");
  daemon_.Batch(12, 2, {Add(kRoomClientMutationsTable, LedgerRow(1))});  // applied, retired
  daemon_.Progress(2);
  ASSERT_TRUE(backend_->InspectDomains().pending.empty());
  daemon_.Batch(11, 3, {Add(kRoomMutationOutcomesTable, OutcomeRow(1, kOutcomeDeopt, "{not json"))});
  daemon_.Progress(3);
  EXPECT_EQ(backend_->outcome_counters().deopt_unnamed, 1);
  EXPECT_TRUE(backend_->InspectDomains().pending.empty());
}

TEST_F(SystemStreamsTest, WatermarkRowsFoldByMonotoneMaxPerDoc) {
  Retain(13, kRoomWatermarkTable);
  daemon_.Snapshot(13, 1, std::string(kRoomWatermarkTable), {WatermarkRow(kDoc, 3)});
  daemon_.Batch(13, 2,
                {Add(kRoomWatermarkTable, WatermarkRow(kDoc, 2)),
                 Add(kRoomWatermarkTable, WatermarkRow("doc:2", 9))});
  daemon_.Progress(2);
  EXPECT_EQ(backend_->room_watermarks(), (std::map<std::string, int64_t>{{kDoc, 3}}));
  daemon_.Batch(13, 3,
                {RowOp{RowOp::Kind::kEdit, std::string(kRoomWatermarkTable), WatermarkRow(kDoc, 7),
                       WatermarkRow(kDoc, 3)}});
  daemon_.Progress(3);
  EXPECT_EQ(backend_->room_watermarks().at(kDoc), 7);
  EXPECT_EQ(backend_->InspectDomains().lifecycle.room_watermarks.at(kDoc), 7);
  EXPECT_EQ(backend_->system_folds().watermark_rows, 3);
  EXPECT_EQ(backend_->system_folds().filtered, 1);
  // No view, no engine table, no reconcile for system frames alone.
  EXPECT_EQ(backend_->reconcile_cycles(), 0);
}

TEST_F(SystemStreamsTest, ScopeSessionsReplaceOnSnapshotApplyOnBatchAndRingTheDoorbell) {
  std::vector<ScopeSessionsEvent> events;
  std::vector<size_t> pending_at_event;
  backend_->SetScopeSessionsObserver([&](const ScopeSessionsEvent& e) {
    events.push_back(e);
    pending_at_event.push_back(backend_->InspectDomains().pending.size());
  });
  Retain(14, kScopeSessionsTable, "s");
  daemon_.Snapshot(14, 1, std::string(kScopeSessionsTable),
                   {SessionRow("s", kClient, 100), SessionRow("s", "c2", 100)});
  daemon_.Progress(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].scope, "s");
  EXPECT_EQ(events[0].others, 1);  // our own row never counts
  daemon_.Batch(14, 2,
                {Add(kScopeSessionsTable, SessionRow("s", "c3", 50)),
                 RemoveOp(std::string(kScopeSessionsTable), SessionRow("s", "c2", 100)),
                 Add(kScopeSessionsTable, SessionRow("other", "c4", 100))});
  daemon_.Progress(2);
  ASSERT_EQ(events.size(), 2u);  // once per touched scope
  EXPECT_EQ(events[1].others, 1);
  EXPECT_EQ(backend_->InspectDomains().lifecycle.scope_sessions.at("s"),
            (std::map<std::string, int64_t>{{kClient, 100}, {"c3", 50}}));
  EXPECT_EQ(backend_->InspectDomains().lifecycle.scope_sessions.count("other"), 0u);
  // Expiry on the fold clock.
  EXPECT_EQ(backend_->OtherScopeSessions("s"), 1);
  clock_.Advance(50);
  EXPECT_EQ(backend_->OtherScopeSessions("s"), 0);
  // A re-hydrate (a new hello + snapshot) REPLACES the scope: c3 aged out while we were down.
  daemon_.Hello(14, {Wire(kScopeSessionsTable)});
  daemon_.Snapshot(14, 3, std::string(kScopeSessionsTable), {SessionRow("s", "c5", 500)});
  daemon_.Progress(3);
  EXPECT_EQ(backend_->InspectDomains().lifecycle.scope_sessions.at("s"),
            (std::map<std::string, int64_t>{{"c5", 500}}));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].others, 1);
  // An emptied-out snapshot still rings (a 1→0 observation).
  daemon_.Hello(14, {Wire(kScopeSessionsTable)});
  daemon_.Snapshot(14, 4, std::string(kScopeSessionsTable), {});
  daemon_.Progress(4);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[3].others, 0);
  EXPECT_EQ(backend_->system_folds().session_snapshots, 3);
  EXPECT_EQ(backend_->system_folds().scope_events, 4);
}

TEST_F(SystemStreamsTest, TheDoorbellFiresAfterTheWholeReleaseApplied) {
  RetainFence();
  std::vector<size_t> pending_at_event;
  backend_->SetScopeSessionsObserver([&](const ScopeSessionsEvent&) {
    pending_at_event.push_back(backend_->InspectDomains().pending.size());
  });
  Retain(14, kScopeSessionsTable, "s");
  InvokeRoom("a");
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(1))});
  daemon_.Batch(14, 1, {Add(kScopeSessionsTable, SessionRow("s", "c2", 100))});
  daemon_.Progress(1);
  EXPECT_THAT(pending_at_event, ElementsAre(0u));  // the confirm-drop already ran
}

TEST_F(SystemStreamsTest, ASkewedSystemHelloIsRefusedAndResubscribed) {
  ASSERT_TRUE(backend_
                  ->RetainSystemQuery(13, Remote(kRoomWatermarkTable, kDoc),
                                      SystemStreamSpec{std::string(kRoomWatermarkTable), "", kDoc})
                  .ok());
  daemon_.log.clear();
  WireTable skew = Wire(kRoomWatermarkTable);
  std::swap(skew.columns[0], skew.columns[1]);
  daemon_.Hello(13, {skew});
  EXPECT_EQ(backend_->schema_rejections(), 1);
  EXPECT_THAT(daemon_.log, ElementsAre("unregister 13", "register 13 _rindle/lifecycle"));
  daemon_.Batch(13, 1, {Add(kRoomWatermarkTable, WatermarkRow(kDoc, 4))});  // the refused epoch
  daemon_.Progress(1);
  EXPECT_TRUE(backend_->room_watermarks().empty());
  // Another table on a system qid, or a system table on an app query, is skew too.
  daemon_.Hello(13, {Wire(kScopeSessionsTable)});
  EXPECT_EQ(backend_->schema_rejections(), 2);
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("issue"), RemoteQuery{"issues", json::object()})
                  .ok());
  daemon_.Hello(1, {Wire(kRoomWatermarkTable)});
  EXPECT_EQ(backend_->schema_rejections(), 3);
  // The exact wire schema passes; an expansion (an extra column) reads by name.
  WireTable wide = Wire(kRoomWatermarkTable);
  wide.columns.insert(wide.columns.begin() + 1, "extra");
  daemon_.Hello(13, {wide});
  daemon_.Batch(13, 2,
                {Add(kRoomWatermarkTable, {Value::String(kDoc), Value::Int(0), Value::Int(8)})});
  daemon_.Progress(2);
  EXPECT_EQ(backend_->room_watermarks().at(kDoc), 8);
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
}

TEST_F(SystemStreamsTest, RetainErrors) {
  const RemoteQuery remote = Remote(kRoomWatermarkTable, kDoc);
  const SystemStreamSpec spec{std::string(kRoomWatermarkTable), "", kDoc};
  EXPECT_EQ(backend_->RetainSystemQuery(13, remote, spec, kRoom).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(backend_->RetainSystemQuery(0, remote, spec).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(backend_->RetainSystemQuery(13, remote, SystemStreamSpec{"issue", "", kDoc}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(backend_
                ->RetainSystemQuery(
                    13, remote, SystemStreamSpec{std::string(kRoomWatermarkTable), "s", ""})
                .code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(backend_->RetainSystemQuery(13, remote, spec).ok());
  EXPECT_EQ(backend_->RetainSystemQuery(13, remote, spec).code(),
            absl::StatusCode::kAlreadyExists);
  ConnectRoom();
  const absl::Status other = backend_->RetainSystemQuery(14, remote, spec, kRoom);
  EXPECT_EQ(other.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(other.message(), HasSubstr("already retained on channel"));
}

TEST_F(SystemStreamsTest, ReleaseIsRefcountedAndKeepsTheFoldedState) {
  const RemoteQuery remote = Remote(kRoomWatermarkTable, kDoc);
  const SystemStreamSpec spec{std::string(kRoomWatermarkTable), "", kDoc};
  ASSERT_TRUE(backend_->RetainSystemQuery(13, remote, spec).ok());
  ASSERT_TRUE(backend_->RetainSystemQuery(15, remote, spec).ok());  // the same sub
  EXPECT_EQ(daemon_.registered.count(15), 0u);
  daemon_.Hello(13, {Wire(kRoomWatermarkTable)});
  daemon_.Snapshot(13, 1, std::string(kRoomWatermarkTable), {WatermarkRow(kDoc, 5)});
  daemon_.Progress(1);
  backend_->ReleaseSystemQuery(13);
  EXPECT_EQ(daemon_.registered.count(13), 1u);  // 15 still holds it
  daemon_.Batch(13, 2, {Add(kRoomWatermarkTable, WatermarkRow(kDoc, 6))});
  backend_->ReleaseSystemQuery(15);
  EXPECT_EQ(daemon_.registered.count(13), 0u);
  daemon_.Progress(2);  // its buffered frame went with it
  daemon_.Batch(13, 3, {Add(kRoomWatermarkTable, WatermarkRow(kDoc, 9))});  // a late frame
  daemon_.Progress(3);
  EXPECT_EQ(backend_->room_watermarks().at(kDoc), 5);  // the fence is not forgotten
  backend_->ReleaseSystemQuery(99);  // unknown: a no-op
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
  // A fresh retain of the qid serves again.
  ASSERT_TRUE(backend_->RetainSystemQuery(13, remote, spec).ok());
  daemon_.Hello(13, {Wire(kRoomWatermarkTable)});
  daemon_.Snapshot(13, 4, std::string(kRoomWatermarkTable), {WatermarkRow(kDoc, 4)});
  daemon_.Progress(4);
  EXPECT_EQ(backend_->room_watermarks().at(kDoc), 5);
}

TEST_F(SystemStreamsTest, ALedgerRowAheadOfSentRoomMidsPoisonsHealth) {
  RetainFence();
  InvokeRoom("a");
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(7))});
  daemon_.Progress(1);
  EXPECT_EQ(backend_->health().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(backend_->health().message(), HasSubstr("ahead of issued mids"));
}

// A daemon-carried room-ledger row is the room's ledger as of its flush: it lags the room
// channel's own lmid stream, so one below the watermark is stale — not an authority that forgot
// (seed 002 foldConfirm max-folds). Before the fix the shared confirm core refused it as a ledger
// regression and poisoned health (the campaign's seeds 5, 14, 16, 21, 29, 33, 34 once the
// simulator retained system streams).
TEST_F(SystemStreamsTest, ALaggingLedgerRowBelowTheWatermarkIsStaleNotARegression) {
  RetainFence();
  InvokeRoom("a");
  InvokeRoom("b");
  daemon_.Batch(12, 1, {Add(kRoomClientMutationsTable, LedgerRow(2))});
  daemon_.Progress(1);
  ASSERT_EQ(backend_->InspectDomains().watermark.at(kRoom), 2);
  daemon_.Batch(12, 2, {Add(kRoomClientMutationsTable, LedgerRow(1))});
  daemon_.Progress(2);
  EXPECT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->InspectDomains().watermark.at(kRoom), 2);
  EXPECT_EQ(backend_->system_folds().stale_ledger_rows, 1);
}

// Seed 002 §7.5 rule 3 (resendPending(gate.key)): a resync re-sends its own channel's domain
// only. A gate-less domain's envelopes are never re-sent on the daemon channel — an envelope
// carries no domain, so the daemon would take a room's mid N for its own mid N and drop the
// room's write as a duplicate (the campaign's seed 588 after a room disconnect).
TEST_F(SystemStreamsTest, AResyncReSendsOnlyItsOwnDomain) {
  InvokeRoom("a");  // room:doc:1 mid 1 (gate-less: shipped on the daemon channel)
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "d"}, {"title", "d"}}).ok());  // daemon 1
  InvokeRoom("b");  // room:doc:1 mid 2
  daemon_.pushed.clear();
  daemon_.Resync();
  ASSERT_EQ(daemon_.pushed.size(), 1u);
  EXPECT_THAT(Mids(daemon_), ElementsAre(1));
  EXPECT_EQ(daemon_.pushed[0].args["id"], "d");
  // A connected room's domain is its own channel's to re-send.
  ConnectRoom();
  daemon_.pushed.clear();
  daemon_.Resync();
  EXPECT_THAT(Mids(daemon_), ElementsAre(1));
  room_.Resync();
  EXPECT_THAT(Mids(room_), ElementsAre(1, 2));
}

}  // namespace
}  // namespace rindle
