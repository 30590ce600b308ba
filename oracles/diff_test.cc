// diff_test.cc — JsonDiff: empty on equality, readable path + expected/actual otherwise.
#include "oracles/diff.h"

#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

TEST(JsonDiffTest, EmptyWhenEqualIncludingIntVersusDouble) {
  EXPECT_EQ(JsonDiff(json::parse(R"({"a":[1,2,{"b":null}]})"),
                     json::parse(R"({"a":[1,2.0,{"b":null}]})")),
            "");
}

TEST(JsonDiffTest, NamesThePathAndBothSides) {
  EXPECT_EQ(JsonDiff(json::parse(R"({"a":[1,{"b":"x"}]})"), json::parse(R"({"a":[1,{"b":"y"}]})")),
            "$.a[1].b: expected \"x\", got \"y\"");
  EXPECT_EQ(JsonDiff(json::parse(R"({"a":1})"), json::parse(R"({"b":1})")),
            "$.a: expected 1, got (missing)\n$.b: expected (missing), got 1");
  EXPECT_EQ(JsonDiff(json::parse("[1]"), json::parse("[1,2]")),
            "$: expected 1 elements, got 2\n$[1]: expected (missing), got 2");
  EXPECT_EQ(JsonDiff(json::parse("null"), json::parse("{}")), "$: expected null, got {}");
}

TEST(JsonDiffTest, StopsAfterMaxLines) {
  const std::string d = JsonDiff(json::parse("[1,2,3,4]"), json::parse("[5,6,7,8]"), 2);
  EXPECT_EQ(d, "$[0]: expected 1, got 5\n$[1]: expected 2, got 6");
}

}  // namespace
}  // namespace rindle
