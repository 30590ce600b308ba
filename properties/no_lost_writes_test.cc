// no_lost_writes_test.cc — no-lost-writes names the mutations still pending at quiescence (mid or
// "unsent", mutator, compact args, domain), not only their count.
#include "properties/no_lost_writes.h"

#include "gtest/gtest.h"

namespace rindle::props {
namespace {

PendingMutation Pending(std::optional<int64_t> mid, const std::string& name,
                        const nlohmann::json& args, const std::string& domain) {
  PendingMutation p;
  p.mid = mid;
  p.name = name;
  p.args = args;
  p.domain = domain;
  return p;
}

TEST(NoLostWritesTest, NamesEachPendingMutation) {
  const std::vector<PendingMutation> pending = {
      Pending(3, "addIssue", {{"id", "i1"}, {"title", "t"}}, "daemon"),
      Pending(std::nullopt, "rename", {{"id", "i2"}}, "app")};
  EXPECT_EQ(DescribePendingAtQuiescence("c1", pending),
            "c1: 2 mutations still pending at quiescence: "
            "mid 3 addIssue {\"id\":\"i1\",\"title\":\"t\"} (domain daemon); "
            "unsent rename {\"id\":\"i2\"} (domain app)");
}

TEST(NoLostWritesTest, ListsFiveThenCountsTheRest) {
  std::vector<PendingMutation> pending;
  for (int64_t m = 1; m <= 7; ++m) pending.push_back(Pending(m, "touch", {{"n", m}}, "daemon"));
  const std::string text = DescribePendingAtQuiescence("c2", pending);
  EXPECT_NE(text.find("mid 5 touch {\"n\":5}"), std::string::npos) << text;
  EXPECT_EQ(text.find("mid 6 "), std::string::npos) << text;
  EXPECT_NE(text.find("; ... and 2 more"), std::string::npos) << text;
}

}  // namespace
}  // namespace rindle::props
