// merge_shrink_test.cc — the merge shrinker against a fake run: it keeps only what the failure
// needs (the actions, and the parts of a server batch and a write), keeps the property, refuses
// a passing scenario; the verdict follows "expect".
#include "sim/merge/merge_shrink.h"

#include "gtest/gtest.h"
#include "sim/merge/merge_generator.h"

namespace rindle::sim {
namespace {

// Fails "merge-rows" while some freeze action and some write op on `tag` remain.
RunResult Fake(const MergeScenario& s) {
  bool freeze = false, tag = false;
  for (const MergeAction& a : s.actions) {
    freeze = freeze || a.op == MergeAction::Op::kFreeze;
    for (const ModelOp& op : a.ops) tag = tag || (a.op == MergeAction::Op::kWrite && op.table == "tag");
  }
  RunResult r;
  r.seed = s.seed;
  if (freeze && tag) {
    r.ok = false;
    r.property = "merge-rows";
    r.message = "fake";
  }
  return r;
}

TEST(MergeShrinkTest, KeepsOnlyWhatTheFailureNeeds) {
  MergeScenario s;
  for (uint64_t seed = 1; seed < 200; ++seed) {
    s = GenerateMergeScenario(seed);
    if (!Fake(s).ok) break;
  }
  ASSERT_FALSE(Fake(s).ok) << "no seed below 200 has a freeze and a tag write";
  absl::StatusOr<MergeShrinkResult> r = ShrinkMerge(s, Fake, ShrinkOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->scenario.actions.size(), 2u);
  EXPECT_EQ(r->scenario.property, "merge-rows");
  EXPECT_TRUE(r->scenario.expect_fail);
  for (const MergeAction& a : r->scenario.actions) EXPECT_LE(a.ops.size(), 1u);
  EXPECT_TRUE(JudgeMergeScenario(r->scenario, Fake(r->scenario)).pass);
  EXPECT_FALSE(JudgeMergeScenario(r->scenario, RunResult{}).pass);
}

TEST(MergeShrinkTest, RefusesAPassingScenario) {
  MergeScenario s;
  s.seed = 1;
  EXPECT_FALSE(ShrinkMerge(s, Fake, ShrinkOptions{}).ok());
}

}  // namespace
}  // namespace rindle::sim
