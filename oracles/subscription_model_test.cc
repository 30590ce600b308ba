// subscription_model_test.cc — the refcounted subscription model's rules (subscription_model.h).
#include "oracles/subscription_model.h"

#include <gtest/gtest.h>

namespace rindle {
namespace {

TEST(SubscriptionModelTest, FirstRetainCreatesTheSubAndIsItsSourceQid) {
  SubscriptionModel m;
  EXPECT_TRUE(m.Retain("k", 7));
  EXPECT_FALSE(m.Retain("k", 3));
  ASSERT_NE(m.Find("k"), nullptr);
  EXPECT_EQ(m.Find("k")->source_qid, 7);
  EXPECT_EQ(m.KeyOfSource(7), "k");
  EXPECT_EQ(m.KeyOfSource(3), std::nullopt);
}

TEST(SubscriptionModelTest, OnlyTheLastReleaseRemovesTheSub) {
  SubscriptionModel m;
  m.Retain("k", 1);
  m.Retain("k", 2);
  EXPECT_EQ(m.Release(1), std::nullopt);  // the source qid's own retain may go first
  EXPECT_NE(m.Find("k"), nullptr);
  EXPECT_EQ(m.Release(2), 1);
  EXPECT_EQ(m.Find("k"), nullptr);
  EXPECT_FALSE(m.retained(2));
}

TEST(SubscriptionModelTest, HydrationIsPerSubAndEndsWithIt) {
  SubscriptionModel m;
  m.Retain("k", 1);
  EXPECT_FALSE(m.Hydrate(9));  // no such source
  EXPECT_TRUE(m.Hydrate(1));
  EXPECT_FALSE(m.Hydrate(1));  // already hydrated
  EXPECT_TRUE(m.Find("k")->hydrated);
  m.Release(1);
  m.Retain("k", 4);
  EXPECT_FALSE(m.Find("k")->hydrated);
}

}  // namespace
}  // namespace rindle
