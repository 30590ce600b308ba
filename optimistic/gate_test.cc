// The §5.1 coherence gate: (cv, arrival) release, stale batches, hello supersession, overflow,
// restart reset.
#include "optimistic/gate.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

NormalizedEvent Ev(NormalizedEvent::Type type, int64_t cv) {
  NormalizedEvent ev;
  ev.type = type;
  ev.cv = cv;
  return ev;
}
constexpr auto kSnap = NormalizedEvent::Type::kSnapshot;
constexpr auto kBatch = NormalizedEvent::Type::kBatch;

TEST(GateTest, ReleasesFramesAtOrBelowCvMinInCvThenArrivalOrder) {
  SourceGate g("daemon", 100);
  g.OnData(1, Ev(kBatch, 3));
  g.OnData(2, Ev(kBatch, 2));
  g.OnData(3, Ev(kBatch, 3));
  g.OnData(4, Ev(kBatch, 5));
  auto out = g.Release(3);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].qid, 2);
  EXPECT_EQ(out[1].qid, 1);
  EXPECT_EQ(out[2].qid, 3);
  EXPECT_EQ(g.buffered(), 1u);
  EXPECT_EQ(g.applied_cv(), 3);
  EXPECT_EQ(g.Release(2).size(), 0u);
  EXPECT_EQ(g.applied_cv(), 3);  // monotone
}

TEST(GateTest, StaleBatchIsIgnoredButASnapshotStillBuffers) {
  SourceGate g("daemon", 100);
  g.Release(5);
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 5)), SourceGate::Admit::kStale);
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 4)), SourceGate::Admit::kStale);
  EXPECT_EQ(g.OnData(1, Ev(kSnap, 4)), SourceGate::Admit::kBuffered);
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 6)), SourceGate::Admit::kBuffered);
  EXPECT_EQ(g.buffered(), 2u);
}

TEST(GateTest, HelloDropsOnlyThatQidsFrames) {
  SourceGate g("daemon", 100);
  g.OnData(1, Ev(kSnap, 1));
  g.OnData(2, Ev(kSnap, 1));
  g.OnData(1, Ev(kBatch, 2));
  EXPECT_EQ(g.OnHello(1), 2u);
  ASSERT_EQ(g.buffered(), 1u);
  EXPECT_EQ(g.buffer()[0].qid, 2);
}

TEST(GateTest, OverflowClearsTheBuffer) {
  SourceGate g("daemon", 2);
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 1)), SourceGate::Admit::kBuffered);
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 2)), SourceGate::Admit::kBuffered);
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 3)), SourceGate::Admit::kOverflow);
  EXPECT_EQ(g.buffered(), 0u);
}

TEST(GateTest, ResetClearsBufferAndAppliedCv) {
  SourceGate g("daemon", 10);
  g.Release(9);
  g.OnData(1, Ev(kBatch, 10));
  g.Reset();
  EXPECT_EQ(g.buffered(), 0u);
  EXPECT_EQ(g.applied_cv(), 0);
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 1)), SourceGate::Admit::kBuffered);
}

// Seed 478: after a reconnect a data sub's hello and snapshot arrived before the lmid hello that
// begins the resync fence; the fence must count that buffered snapshot, not wait for it forever.
TEST(GateTest, ASnapshotBufferedBeforeTheFenceBeganIsNotOwed) {
  SourceGate g("daemon", 100);
  g.OnHello(1);
  ASSERT_EQ(g.OnData(1, Ev(kSnap, 97)), SourceGate::Admit::kBuffered);
  g.BeginFence({0, 1});
  g.OnHello(0);
  EXPECT_TRUE(g.Release(97).empty());  // the lmid snapshot is still owed
  ASSERT_EQ(g.OnData(0, Ev(kSnap, 97)), SourceGate::Admit::kBuffered);
  EXPECT_EQ(g.Release(96).size(), 0u);  // cvMin below the buffered snapshot's cv
  const auto out = g.Release(97);
  ASSERT_EQ(out.size(), 2u);  // both snapshots, together
  EXPECT_EQ(out[0].qid, 1);
  EXPECT_EQ(out[1].qid, 0);
  EXPECT_FALSE(g.fenced());
}

// Seed 1921 (a livelock): while a fence waits, the batches of the qids already re-snapshotted pile
// up behind progress frames the fence holds. Those are held by the fence alone, not a pinned
// cvMin: they must not overflow the gate (each overflow re-registers and fences again). Before
// the fix the fifth batch overflowed (6 frames > cap 2 + 3 fenced).
TEST(GateTest, FramesAHeldProgressCoversDoNotOverflowAFence) {
  SourceGate g("daemon", 2);
  g.BeginFence({0, 1, 2});
  ASSERT_EQ(g.OnData(1, Ev(kSnap, 10)), SourceGate::Admit::kBuffered);
  EXPECT_TRUE(g.Release(10).empty());
  for (int64_t cv = 11; cv <= 20; ++cv) {
    ASSERT_EQ(g.OnData(1, Ev(kBatch, cv)), SourceGate::Admit::kBuffered) << "cv " << cv;
    EXPECT_TRUE(g.Release(cv).empty());
  }
  ASSERT_EQ(g.OnData(0, Ev(kSnap, 21)), SourceGate::Admit::kBuffered);
  ASSERT_EQ(g.OnData(2, Ev(kSnap, 22)), SourceGate::Admit::kBuffered);
  EXPECT_EQ(g.fence_spared(), 8);  // cv 15..20 and the two snapshots would have overflowed
  EXPECT_EQ(g.Release(22).size(), 13u);  // together, once every snapshot is here
  EXPECT_FALSE(g.fenced());
}

// What no progress covers is still backlog while fenced: a pinned cvMin overflows as before.
TEST(GateTest, AFenceStillOverflowsOnFramesNoProgressCovers) {
  SourceGate g("daemon", 2);
  g.BeginFence({0, 1});
  ASSERT_EQ(g.OnData(1, Ev(kSnap, 10)), SourceGate::Admit::kBuffered);
  EXPECT_TRUE(g.Release(9).empty());
  for (int64_t cv = 11; cv <= 13; ++cv) {
    ASSERT_EQ(g.OnData(1, Ev(kBatch, cv)), SourceGate::Admit::kBuffered);
  }
  EXPECT_EQ(g.OnData(1, Ev(kBatch, 14)), SourceGate::Admit::kOverflow);  // 5 > 2 + 2
  EXPECT_EQ(g.buffered(), 0u);
}

// A progress the fence holds still says every batch at or below its cvMin came before it on the
// link: a batch at or below it is a redelivery (campaign seed 280: a relay's retransmit of qid
// 3's epoch-1 batch, arriving after qid 3's new snapshot, was buffered — appliedCv lagged the
// held cvMin — and released after that snapshot; corpus/seed-280-superseded-epoch.json).
TEST(GateTest, ABatchAtOrBelowAFenceHeldCvMinIsStale) {
  SourceGate g("daemon", 100);
  g.OnData(3, Ev(kBatch, 2));
  EXPECT_EQ(g.Release(1).size(), 0u);  // appliedCv 1; the cv-2 batch waits
  g.BeginFence({0, 1, 3});
  g.OnHello(3);
  ASSERT_EQ(g.OnData(3, Ev(kSnap, 5)), SourceGate::Admit::kBuffered);
  EXPECT_TRUE(g.Release(5).empty());  // held: qids 0 and 1 owe their snapshots
  EXPECT_EQ(g.applied_cv(), 1);
  EXPECT_EQ(g.OnData(3, Ev(kBatch, 2)), SourceGate::Admit::kStale);  // the retransmit
  EXPECT_EQ(g.OnData(3, Ev(kBatch, 5)), SourceGate::Admit::kStale);
  EXPECT_EQ(g.OnData(3, Ev(kBatch, 6)), SourceGate::Admit::kBuffered);
  ASSERT_EQ(g.OnData(0, Ev(kSnap, 6)), SourceGate::Admit::kBuffered);
  ASSERT_EQ(g.OnData(1, Ev(kSnap, 6)), SourceGate::Admit::kBuffered);
  const auto out = g.Release(6);
  ASSERT_EQ(out.size(), 4u);  // qid 3's snapshot, the two others, its cv-6 batch — no cv 2
  for (const auto& f : out) EXPECT_GE(f.cv, 5) << "qid " << f.qid;
}

}  // namespace
}  // namespace rindle
