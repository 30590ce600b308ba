// backend_fence_test.cc — the resync fence (gate.h): after a reconnect (the lmid query's hello)
// or an overflow re-registration, the gate releases nothing until every re-registered sub and the
// lmid query have their snapshots buffered; then they release together. Both tests failed before
// the fence: the reconnect order (lmid first) dropped the confirmed write from the view, the
// overflow order (data first) applied a non-idempotent mutation twice.
#include <string>
#include <vector>

#include "optimistic/testing/backend_test_fixture.h"

namespace rindle {
namespace {

using namespace backend_test;  // NOLINT: test fixture names

WireTable LmidTable() { return WireTable{kClientMutationsTable, {"client_id", "last_mutation_id"}}; }

class FenceTest : public BackendTest {
 protected:
  FenceTest() : BackendTest(/*cap=*/3) {}
  void LmidSnapshot(int64_t cv, int64_t lmid) {
    source_.Hello(kLmidQid, {LmidTable()});
    source_.Snapshot(kLmidQid, cv, kClientMutationsTable,
                     {{Value::String(kClient), Value::Int(lmid)}});
  }
};

// Reconnect: the source re-registers in qid order, so the lmid snapshot (confirming mid 1) and a
// progress arrive before the data snapshot holding mid 1's effect.
TEST_F(FenceTest, ReconnectLmidFirstKeepsTheConfirmedWriteVisible) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  // The link broke while mid 1 was processed at cv 2: its batches were lost. Reconnect.
  source_.Resync();
  LmidSnapshot(2, 1);
  source_.Progress(2);
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b"}));  // before the fence: {"a"}
  EXPECT_EQ(backend_->inspect().pending.size(), 1u);
  source_.Hello(1, {});
  source_.Snapshot(1, 3, "issue", {Issue("a", "A"), Issue("b", "B")});
  source_.Progress(3);
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);
  EXPECT_EQ(backend_->fence_holds(), 1);
}

// Reconnect after a buffered lmid batch whose cv's data batch was lost with the old connection:
// the new session's first progress (sent before the re-registrations reached the authority, so
// before any hello) must not release the old connection's confirmation alone (gate.h
// DropConnection; sim seed 155 no-flicker, seed 178 applied-once). Failed before: the view lost
// "b" (pending retired, its effect missing from the data) and pending was empty.
TEST_F(FenceTest, ReconnectDropsTheDeadConnectionsBufferedFrames) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  source_.Lmid(2, kClient, 1);  // mid 1 processed at cv 2; its data batch for qid 1 was lost
  source_.Resync();
  source_.Progress(5);  // the new session: no sub registered yet
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(backend_->inspect().pending.size(), 1u);
  EXPECT_EQ(backend_->connection_frames_dropped(), 1);
  LmidSnapshot(6, 1);
  source_.Hello(1, {});
  source_.Snapshot(1, 6, "issue", {Issue("a", "A"), Issue("b", "B")});
  source_.Progress(6);
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);
}

// Overflow: Reregister sends the data subs first, the lmid query last; the data snapshot already
// holds mid 1's effect (n = 2) while mid 1 is still pending.
TEST_F(FenceTest, OverflowDataFirstDoesNotApplyAMutationTwice) {
  Hydrate(1, "counter", "counters", {Counter("k", 1)}, 1);
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "k"}}).ok());
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));
  for (int cv = 2; cv <= 5; ++cv) source_.Batch(1, cv, {});  // no progress: overflow
  ASSERT_EQ(backend_->overflows(), 1);
  source_.Hello(1, {});
  source_.Snapshot(1, 6, "counter", {Counter("k", 2)});
  source_.Progress(6);
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));  // before: n = 3
  LmidSnapshot(7, 1);
  source_.Progress(7);
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);
}

// A sub released while fenced leaves the fence; a progress below the fenced snapshots' cvs holds.
TEST_F(FenceTest, ReleasedSubLeavesTheFenceAndCvMinMustCoverTheSnapshots) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  source_.Resync();
  LmidSnapshot(4, 0);
  backend_->UnregisterQuery(1);
  source_.Progress(3);  // below the lmid snapshot's cv: still held
  EXPECT_EQ(backend_->inspect().applied_cv, 1);
  EXPECT_EQ(backend_->fence_holds(), 1);
  source_.Progress(4);
  EXPECT_EQ(backend_->inspect().applied_cv, 4);
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
}

// A reconnect while the previous session's fence still waits (seed 48): session 2 buffered qid
// 1's snapshot but never qid 2's; mid 1 was processed at cv 4 while the link was down, so session
// 2 never shipped its effect. Session 3's welcome must fence afresh: before the fix the old fence
// went on, qid 2 left it, and the lmid snapshot (confirming mid 1) released together with session
// 2's stale snapshot of qid 1 — the confirmed write vanished from the view until session 3's qid
// 1 snapshot landed.
TEST_F(FenceTest, ReconnectDuringAFenceFencesAfresh) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  Hydrate(2, "issue", "issues2", {Issue("a", "A")}, 1);
  source_.Resync();  // session 2
  LmidSnapshot(2, 0);
  source_.Hello(1, {});
  source_.Snapshot(1, 3, "issue", {Issue("a", "A")});
  source_.Hello(2, {});  // its snapshot never arrives: the link breaks
  source_.Progress(3);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  source_.Resync();  // session 3; mid 1 was processed at cv 4 meanwhile
  backend_->UnregisterQuery(2);
  LmidSnapshot(5, 1);
  source_.Progress(5);
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b"}));  // before the fix: {"a"}
  EXPECT_EQ(backend_->inspect().pending.size(), 1u);
  source_.Hello(1, {});
  source_.Snapshot(1, 6, "issue", {Issue("a", "A"), Issue("b", "B")});
  source_.Progress(6);
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);
}

// The tail of an overflow re-registration (sim seed 1921, no-lost-writes): a second overflow hit
// while the first re-registration's answers were still in flight, so its lmid hello and snapshot
// arrived inside the second fence and counted for it. The fence released on the second
// re-registration's data snapshot, before that re-registration's own lmid hello — which, arriving
// outside a fence with no reconnect since, was taken for a reconnect's and fenced every data sub
// again; their snapshots never came, every later frame was held and mid 2 stayed pending forever.
// Failed before the fix: pending {2}, the view without "c", one more fence hold per progress.
TEST_F(FenceTest, OverflowTailLmidHelloAfterTheFenceReleasedDoesNotFenceAgain) {
  Hydrate(1, "issue", "issues", {Issue("a", "A")}, 1);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "b"}, {"title", "B"}}).ok());
  for (int cv = 2; cv <= 5; ++cv) source_.Batch(1, cv, {});  // no progress: overflow 1
  ASSERT_EQ(backend_->overflows(), 1);
  source_.Hello(1, {});  // re-registration 1's answers start to arrive
  source_.Snapshot(1, 6, "issue", {Issue("a", "A")});
  for (int cv = 7; cv <= 11; ++cv) source_.Batch(1, cv, {});  // still no progress: overflow 2
  ASSERT_EQ(backend_->overflows(), 2);
  // Mid 1 processed at cv 12 (re-registration 1's stream: its data batch is superseded), then
  // re-registration 1's lmid answer, confirming mid 1.
  source_.Batch(1, 12, {RowOp{RowOp::Kind::kAdd, "issue", Issue("b", "B"), {}}});
  LmidSnapshot(13, 1);
  source_.Hello(1, {});  // re-registration 2
  source_.Snapshot(1, 14, "issue", {Issue("a", "A"), Issue("b", "B")});
  source_.Progress(14);
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b"}));
  // Still fenced: re-registration 1's lmid snapshot answered an older registration, so the fence
  // waits for re-registration 2's (gate.h ExpectHellos; the lmid-gap test below).
  EXPECT_EQ(backend_->inspect().pending.size(), 1u);
  LmidSnapshot(15, 1);  // re-registration 2's lmid answer: not a reconnect
  source_.Progress(15);
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "c"}, {"title", "C"}}).ok());
  source_.Batch(1, 16, {RowOp{RowOp::Kind::kAdd, "issue", Issue("c", "C"), {}}});
  source_.Lmid(16, kClient, 2);
  const int64_t holds = backend_->fence_holds();
  source_.Progress(16);
  EXPECT_EQ(backend_->fence_holds(), holds);  // before the fix: held
  EXPECT_EQ(ViewIds(1), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);  // before the fix: mid 2 pending forever
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
}

// The lmid query's unregister/re-register gap (issue 11): an overflow's Reregister sends the lmid
// query's unregister and register as two link messages, and a push the authority processes
// between them ships its data batch with no lmid frame. Safe only while the fence waits for THAT
// registration's lmid snapshot. Here a second overflow hit while the first re-registration's
// answers were in flight (the seed-1921 shape): the first one's lmid snapshot, arriving inside
// the second fence, completed it, so the gap's data batch (inc, k 1 → 2) released with mid 1
// still pending and the head showed k = 3.
TEST_F(FenceTest, AnOlderRegistrationsLmidSnapshotDoesNotCompleteTheFence) {
  Hydrate(1, "counter", "counters", {Counter("k", 1)}, 1);
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "k"}}).ok());
  for (int cv = 2; cv <= 5; ++cv) source_.Batch(1, cv, {});  // no progress: overflow 1
  ASSERT_EQ(backend_->overflows(), 1);
  source_.Hello(1, {});  // re-registration 1's answers start to arrive
  source_.Snapshot(1, 6, "counter", {Counter("k", 1)});
  for (int cv = 7; cv <= 11; ++cv) source_.Batch(1, cv, {});  // still no progress: overflow 2
  ASSERT_EQ(backend_->overflows(), 2);
  LmidSnapshot(12, 0);  // re-registration 1's lmid answer
  source_.Hello(1, {});  // re-registration 2's data answer and the progress after it
  source_.Snapshot(1, 13, "counter", {Counter("k", 1)});
  source_.Progress(13);
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));
  // The authority unregistered the lmid query (re-registration 2), then processed mid 1: a data
  // batch and no lmid frame; then the progress after that commit.
  source_.Batch(1, 14, {RowOp{RowOp::Kind::kEdit, "counter", Counter("k", 2), Counter("k", 1)}});
  source_.Progress(14);
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));  // before the fix: 3
  LmidSnapshot(15, 1);  // re-registration 2's lmid answer confirms mid 1
  source_.Progress(15);
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
}

// The resubscribe path (issue 11 slice f-028): does a query re-registered after an unsubscribe,
// its old registration's answers still in flight, have the overflow's owed-hello gap — an older
// registration's snapshot completing a newer fence? It cannot. Here qid 1 is released and
// retained again under the SAME qid (the simulator and seed 002's store deal fresh qids, so this
// is the worst case: its answers share the qid), and an overflow re-registers it before the
// resubscription's answers arrive: two registrations of qid 1 in flight, one hello owed. The
// resubscription's hello pays the debt and its (older) snapshot counts for the fence — but the
// fence also waits for the lmid query's newest snapshot (owed, gate.h), and Reregister registers
// the lmid query LAST: the authority answers one link's registrations in order and every
// transport fault keeps one query's frames in order (frame_faults.h: an overtake only moves a
// DATA hello + snapshot earlier), so the overflow registration's own qid-1 hello always lands
// before that lmid snapshot and makes qid 1 wait again (SourceGate::OnHello). The gap's batch
// (mid 1 processed between the lmid unregister and register) then releases together with the
// confirmation: k never shows 3 and the confirmed write never vanishes.
TEST_F(FenceTest, AResubscriptionsOlderSnapshotDoesNotCompleteAnOverflowFence) {
  Hydrate(1, "counter", "counters", {Counter("k", 1)}, 1);
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "k"}}).ok());
  backend_->UnregisterQuery(1);  // unsubscribe, then resubscribe under the same qid
  ASSERT_TRUE(backend_->RegisterQuery(1, TableAst("counter"),
                                      RemoteQuery{"counters", json::object()}).ok());
  ASSERT_EQ(source_.registered.count(1), 1u);
  for (int cv = 2; cv <= 5; ++cv) source_.Batch(1, cv, {});  // no progress: overflow
  ASSERT_EQ(backend_->overflows(), 1);
  source_.Hello(1, {});  // the resubscription's answer (older than the overflow's)
  source_.Snapshot(1, 6, "counter", {Counter("k", 1)});
  const int64_t holds = backend_->fence_holds();
  source_.Progress(6);
  EXPECT_EQ(backend_->fence_holds(), holds + 1);  // held: the lmid query's snapshot is owed
  // The unsubscribe dropped k's synced row: until a release, inc predicts over nothing (n = 1).
  const std::vector<RowValues> hydrating = {Counter("k", 1)};
  EXPECT_EQ(Head("counter"), hydrating);
  source_.Hello(1, {});  // the overflow re-registration's: qid 1 waits again
  source_.Snapshot(1, 7, "counter", {Counter("k", 1)});
  source_.Progress(7);
  EXPECT_EQ(backend_->fence_holds(), holds + 2);
  EXPECT_EQ(Head("counter"), hydrating);
  // The lmid unregister/register gap: mid 1's data batch, no lmid frame.
  source_.Batch(1, 8, {RowOp{RowOp::Kind::kEdit, "counter", Counter("k", 2), Counter("k", 1)}});
  source_.Progress(8);
  EXPECT_EQ(backend_->fence_holds(), holds + 3);  // had it released: k = 3 (applied twice)
  EXPECT_EQ(Head("counter"), hydrating);
  EXPECT_EQ(backend_->inspect().pending.size(), 1u);
  LmidSnapshot(9, 1);
  source_.Progress(9);
  EXPECT_EQ(Head("counter"), (std::vector<RowValues>{Counter("k", 2)}));  // never 3
  EXPECT_EQ(backend_->inspect().pending.size(), 0u);
  EXPECT_EQ(backend_->inspect().buffered_frames, 0u);
}

}  // namespace
}  // namespace rindle
