// gate_model_test.cc — the naive gate model's rules (gate_model.h).
#include "oracles/gate_model.h"

#include <vector>

#include <gtest/gtest.h>

namespace rindle {
namespace {

TEST(GateModelTest, StaleBatchIsDroppedButASnapshotAlwaysBuffers) {
  GateModel g(4);
  EXPECT_EQ(g.Push({1, 5, false, 0}), GateModel::Arrival::kBuffered);
  EXPECT_EQ(g.Release(5).size(), 1u);
  EXPECT_EQ(g.applied_cv(), 5);
  EXPECT_EQ(g.Push({1, 5, false, 0}), GateModel::Arrival::kStale);
  EXPECT_EQ(g.Push({1, 3, true, 0}), GateModel::Arrival::kBuffered);
  EXPECT_EQ(g.buffered(), 1u);
}

TEST(GateModelTest, OverflowPastTheCapClearsTheBuffer) {
  GateModel g(2);
  EXPECT_EQ(g.Push({1, 1, false, 0}), GateModel::Arrival::kBuffered);
  EXPECT_EQ(g.Push({1, 2, false, 0}), GateModel::Arrival::kBuffered);
  EXPECT_EQ(g.Push({1, 3, false, 0}), GateModel::Arrival::kOverflow);
  EXPECT_EQ(g.buffered(), 0u);
}

TEST(GateModelTest, DropRemovesOneQidsFrames) {
  GateModel g(8);
  g.Push({1, 4, false, 0});
  g.Push({2, 2, false, 0});
  g.Push({1, 3, false, 0});
  g.Push({2, 9, false, 0});
  EXPECT_EQ(g.Drop(2), 2u);
  const auto released = g.Release(4);
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(released[0].qid, 1);
  EXPECT_EQ(released[1].qid, 1);
}

// Seed 002 §5.1: a release is in (cv, arrival) order, not arrival order — a snapshot that
// overtook an older batch of another query (frame_faults.h snapshot_overtake) applies after it.
// Before: the model released in arrival order and so agreed with mutant 018.
TEST(GateModelTest, ReleaseIsInCvThenArrivalOrder) {
  GateModel g(8);
  g.Push({2, 6, true, 0, 10});   // a snapshot at cv 6 arrives first
  g.Push({1, 4, false, 0, 11});  // an older batch of another query
  g.Push({1, 6, false, 0, 12});
  g.Push({3, 5, false, 0, 13});
  const auto released = g.Release(6);
  ASSERT_EQ(released.size(), 4u);
  std::vector<int64_t> tags;
  for (const auto& f : released) tags.push_back(f.tag);
  EXPECT_EQ(tags, (std::vector<int64_t>{11, 13, 10, 12}));  // cv 4, 5, then cv 6 by arrival
}

TEST(GateModelTest, ReleaseBelowAppliedCvNeverMovesItBackAndResetClearsAll) {
  GateModel g(8);
  g.Release(7);
  g.Release(3);
  EXPECT_EQ(g.applied_cv(), 7);
  g.Push({1, 9, false, 0});
  g.Reset();
  EXPECT_EQ(g.applied_cv(), 0);
  EXPECT_EQ(g.buffered(), 0u);
}

// Seed 478: a snapshot buffered before the fence began counts; only the others are missing.
TEST(GateModelTest, ASnapshotBufferedBeforeTheFenceIsNotMissing) {
  GateModel g(8);
  g.Push({1, 97, true, 0});
  g.BeginFence({0, 1});
  EXPECT_TRUE(g.Release(97).empty());
  g.Push({0, 97, true, 0});
  EXPECT_EQ(g.Release(97).size(), 2u);
}

}  // namespace
}  // namespace rindle
