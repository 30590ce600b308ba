// rng_test.cc — the simulation generator: reference outputs, determinism, fork independence,
// range reduction bounds and (un)bias sanity.
#include "base/rng.h"

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

TEST(RngTest, MatchesReferenceSplitmixXoshiroOutputs) {
  // Computed with an independent transcription of the public-domain reference algorithms.
  Rng one(1);
  EXPECT_EQ(one.Next(), 0xb3f2af6d0fc710c5ULL);
  EXPECT_EQ(one.Next(), 0x853b559647364ceaULL);
  EXPECT_EQ(one.Next(), 0x92f89756082a4514ULL);
  Rng zero(0);
  EXPECT_EQ(zero.Next(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(zero.Next(), 0xbf6e1f784956452aULL);
}

TEST(RngTest, Fnv1aMatchesPublishedVectors) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(RngTest, SameSeedGivesSameSequence) {
  Rng a(42);
  Rng b(42);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.Next(), b.Next()) << "at draw " << i;
  EXPECT_TRUE(a == b);
}

TEST(RngTest, DifferentSeedsGiveDifferentSequences) {
  Rng a(1);
  Rng b(2);
  int equal = 0;
  for (int i = 0; i < 100; ++i) equal += a.Next() == b.Next() ? 1 : 0;
  EXPECT_EQ(equal, 0);
}

TEST(RngTest, ForkDoesNotAdvanceTheParent) {
  Rng parent(7);
  Rng untouched(7);
  Rng child = parent.Fork("network");
  (void)child.Next();
  EXPECT_TRUE(parent == untouched);
  EXPECT_EQ(parent.Next(), untouched.Next());
}

TEST(RngTest, ForkIsDeterministicPerStateAndPurpose) {
  Rng a(7);
  Rng b(7);
  Rng fa = a.Fork("workload");
  Rng fb = b.Fork("workload");
  for (int i = 0; i < 100; ++i) ASSERT_EQ(fa.Next(), fb.Next());
}

TEST(RngTest, ForksWithDifferentPurposesAreIndependentStreams) {
  Rng root(7);
  Rng w = root.Fork("workload");
  Rng n = root.Fork("network");
  Rng f = root.Fork("faults");
  int collisions = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t a = w.Next(), b = n.Next(), c = f.Next();
    collisions += (a == b) + (b == c) + (a == c);
  }
  EXPECT_EQ(collisions, 0);
  // A child differs from its parent's own stream too.
  Rng parent(7);
  Rng child = parent.Fork("workload");
  EXPECT_NE(parent.Next(), child.Next());
}

TEST(RngTest, AddingAForkDoesNotReshuffleOtherStreams) {
  // Run 1 forks only "network"; run 2 forks "faults" first (a new knob). The network stream
  // and the root's own stream must be identical in both.
  Rng root1(99);
  Rng net1 = root1.Fork("network");
  Rng root2(99);
  Rng faults2 = root2.Fork("faults");
  (void)faults2.Next();
  Rng net2 = root2.Fork("network");
  for (int i = 0; i < 100; ++i) ASSERT_EQ(net1.Next(), net2.Next());
  EXPECT_EQ(root1.Next(), root2.Next());
}

TEST(RngTest, ForkDependsOnParentState) {
  Rng a(5);
  Rng b(5);
  (void)b.Next();
  EXPECT_NE(a.Fork("x").Next(), b.Fork("x").Next());
}

TEST(RngTest, BelowStaysInRange) {
  Rng rng(3);
  const uint64_t bounds[] = {1,
                             2,
                             3,
                             7,
                             1000,
                             (1ULL << 32) + 1,
                             (1ULL << 63) + 1,
                             std::numeric_limits<uint64_t>::max()};
  for (uint64_t n : bounds) {
    for (int i = 0; i < 2000; ++i) ASSERT_LT(rng.Below(n), n) << "n=" << n;
  }
  EXPECT_EQ(Rng(1).Below(1), 0u);
}

TEST(RngTest, BelowIsRoughlyUniformOverSmallRange) {
  Rng rng(11);
  constexpr int kDraws = 60000;
  std::vector<int> counts(6, 0);
  for (int i = 0; i < kDraws; ++i) ++counts[rng.Below(6)];
  for (int c : counts) {
    EXPECT_GT(c, kDraws / 6 * 95 / 100);
    EXPECT_LT(c, kDraws / 6 * 105 / 100);
  }
}

TEST(RngTest, BelowRejectsTheShortBucketForHugeBounds) {
  // n = 3·2^62: plain `Next() % n` would land in [0, 2^62) half of the time (r in [0, 2^62)
  // and in [3·2^62, 2^64) both map there); an unbiased reduction lands there a third of the time.
  Rng rng(12);
  const uint64_t n = 3ULL << 62;
  constexpr int kDraws = 30000;
  int low = 0;
  for (int i = 0; i < kDraws; ++i) low += rng.Below(n) < (1ULL << 62) ? 1 : 0;
  const double fraction = static_cast<double>(low) / kDraws;
  EXPECT_GT(fraction, 0.30);
  EXPECT_LT(fraction, 0.37);
}

TEST(RngTest, RangeIsInclusiveAndCoversBothEnds) {
  Rng rng(13);
  std::map<int64_t, int> seen;
  for (int i = 0; i < 5000; ++i) {
    const int64_t v = rng.Range(-2, 2);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 2);
    ++seen[v];
  }
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ(rng.Range(5, 5), 5);
}

TEST(RngTest, RangeHandlesTheFullInt64Span) {
  Rng rng(14);
  bool negative = false, positive = false;
  for (int i = 0; i < 100; ++i) {
    const int64_t v =
        rng.Range(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    negative = negative || v < 0;
    positive = positive || v > 0;
  }
  EXPECT_TRUE(negative);
  EXPECT_TRUE(positive);
  const int64_t top = rng.Range(std::numeric_limits<int64_t>::max() - 1,
                                std::numeric_limits<int64_t>::max());
  EXPECT_GE(top, std::numeric_limits<int64_t>::max() - 1);
}

TEST(RngTest, ChanceHonoursTheIntegerRatio) {
  Rng rng(15);
  int hits = 0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_FALSE(rng.Chance(0, 10));
    ASSERT_TRUE(rng.Chance(10, 10));
  }
  constexpr int kDraws = 40000;
  for (int i = 0; i < kDraws; ++i) hits += rng.Chance(1, 4) ? 1 : 0;
  EXPECT_GT(hits, kDraws / 4 * 95 / 100);
  EXPECT_LT(hits, kDraws / 4 * 105 / 100);
}

TEST(RngTest, PickReturnsEveryElementEventually) {
  Rng rng(16);
  const std::vector<std::string> items = {"a", "b", "c"};
  std::map<std::string, int> seen;
  for (int i = 0; i < 300; ++i) {
    const std::string& s = rng.Pick(items);
    ASSERT_GE(&s, &items.front());
    ASSERT_LE(&s, &items.back());
    ++seen[s];
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST(RngDeathTest, PreconditionsAreChecked) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Rng rng(1);
  EXPECT_DEATH(rng.Below(0), "CHECK failed");
  EXPECT_DEATH(rng.Range(3, 2), "CHECK failed");
  EXPECT_DEATH(rng.Chance(1, 0), "CHECK failed");
  EXPECT_DEATH(rng.Pick(std::vector<int>{}), "empty");
}

}  // namespace
}  // namespace rindle::sim
